"""Benchmark: agreement over 10,000 items × 5 languages × 2 translators (issue 11 target: ≤ 2 s).

Run: ``python benchmarks/bench_agreement.py [--items 10000] [--repeat 3] [--database]``.

Each item-language has 18 pre-populated candidates (3 GOOD, 15 BAD: 6 senses × 3 lemmas, as in the other
benchmarks' synthetic lexicon); each translator moves a few, deletes a few, adds one or two, and about 3% of the
copies are discarded and 2% flagged DISCUSS, drawn from a seeded generator. The time measured is
``agreement_report`` over the 100,000 copies (every figure: per language, per pair, overall, α).

With ``--database`` the same copies are also stored in a SQLite project (items imported through the service, G0/B0
and the copies written in bulk as set-up) and ``load_agreement`` is timed: reading the copies and G0 ∪ B0 from the
database plus the figures, as ``stats.json`` and the Agreement page get them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from annotator.domain.agreement import CopyRecord, agreement_report, format_figure

LANGS = ("DE", "ES", "IT", "RU", "ZH")


def copies(items: int, seed: int = 11) -> list[CopyRecord]:
    rng = random.Random(seed)
    out: list[CopyRecord] = []
    for n in range(items):
        for lang in LANGS:
            good0 = [f"{lang.lower()}{n % 2000}_g{j}" for j in range(3)]
            bad0 = [f"{lang.lower()}{n % 2000}_b{j}" for j in range(15)]
            pre = frozenset(good0 + bad0)
            for annotator in ("t1", "t2"):
                draw = rng.random()
                decision = "discarded" if draw < 0.03 else "discuss" if draw < 0.05 else "done"
                good, bad = set(good0), set(bad0)
                for candidate in rng.sample(good0, rng.randint(0, 1)):
                    good.discard(candidate)
                    bad.add(candidate)
                for candidate in rng.sample(bad0, rng.randint(0, 2)):
                    bad.discard(candidate)
                    good.add(candidate)
                for candidate in rng.sample(bad0, rng.randint(0, 2)):
                    bad.discard(candidate)
                    good.discard(candidate)
                good.update(f"added{rng.randint(0, 3)}" for _ in range(rng.randint(0, 2)))
                out.append(CopyRecord(f"item-{n:05d}", lang, annotator, decision, frozenset(good), frozenset(bad), pre))
    return out


def database_time(data: list[CopyRecord], items: int, repeat: int) -> list[float]:
    """Store ``data`` in a fresh SQLite project and time ``load_agreement`` on it."""
    from sqlalchemy import bindparam

    from annotator.domain.model import CandidateEntry, Origin, Status
    from annotator.project import Project, ProjectSettings
    from annotator.services.double_curation import load_agreement
    from annotator.services.importing import import_items
    from annotator.store import schema
    from annotator.store.double_curation import Assignment, Copy
    from annotator.store.repository import candidates_to_json

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        item_file = root / "items.jsonl"
        with item_file.open("w", encoding="utf-8") as handle:
            for n in range(items):
                row = {
                    "id": f"item-{n:05d}",
                    "sentence": f"Sentence {n} with a word.",
                    "target": "word",
                    "lemma": "word",
                    "pos": "NOUN",
                    "synset": f"bn:{n % 500:08d}n",
                    "source": "bench",
                }
                handle.write(json.dumps(row) + "\n")
        project = Project.open(root / "data", create=True)
        project.save_settings(ProjectSettings(name="bench", languages=LANGS))
        import_items(project, item_file)

        def entries(keys: frozenset[str], origin: Origin) -> tuple[CandidateEntry, ...]:
            return tuple(
                CandidateEntry(k, None, origin, ("bn:00000001n",) if origin is Origin.LEXICON else ())
                for k in sorted(keys)
            )

        by_il: dict[tuple[str, str], list[CopyRecord]] = {}
        for record in data:
            by_il.setdefault((record.item_id, record.lang), []).append(record)
        il = schema.item_languages
        update = (
            il.update()
            .where((il.c.item_id == bindparam("b_item")) & (il.c.lang == bindparam("b_lang")))
            .values(
                initial_good=bindparam("g0"),
                initial_bad=bindparam("b0"),
                good=bindparam("g0"),
                bad=bindparam("b0"),
                prepopulated=True,
            )
        )
        rows, assignments, copies = [], [], []
        for (item_id, lang), group in by_il.items():
            pre = sorted(group[0].prepopulated)
            g0 = frozenset(k for k in pre if "_g" in k)
            rows.append(
                {
                    "b_item": item_id,
                    "b_lang": lang,
                    "g0": candidates_to_json(entries(g0, Origin.LEXICON)),
                    "b0": candidates_to_json(entries(frozenset(pre) - g0, Origin.LEXICON)),
                }
            )
            assignments.append(Assignment(item_id, lang, "open", "bench", "2026-01-01T00:00:00"))
            for record in group:
                status = {"done": Status.DONE, "discuss": Status.DISCUSS}.get(record.decision, Status.DISCARDED)
                copies.append(
                    Copy(
                        item_id,
                        lang,
                        record.annotator,
                        status,
                        1,
                        entries(record.good, Origin.TRANSLATOR),
                        entries(record.bad, Origin.TRANSLATOR),
                    )
                )
        with project.db.write() as conn:
            conn.execute(update, rows)
            project.repo.add_assignments(conn, assignments, copies)
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            report = load_agreement(project, LANGS)
            times.append(time.perf_counter() - started)
        print(f"load_agreement compared {len(report.compared)} item-languages, α units {report.overall.alpha_units}")
        project.db.dispose()
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database", action="store_true", help="also time load_agreement over a SQLite project")
    args = parser.parse_args()
    data = copies(args.items)
    print(f"{len(data)} copies ({args.items} items × {len(LANGS)} languages × 2 translators)")
    times, cpu = [], []
    for _ in range(args.repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        report = agreement_report(data, LANGS)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    overall = report.overall
    print(
        f"item-languages compared {len(report.compared)}, units α {overall.alpha_units}, "
        f"exact GOOD {format_figure(overall.exact_good_agreement)} %, α {format_figure(overall.alpha, percent=False)}"
    )
    print(
        f"agreement_report: median {statistics.median(times):.2f} s, best {min(times):.2f} s (n={len(times)}); "
        f"CPU time median {statistics.median(cpu):.2f} s (wall time includes waiting for a shared CPU)"
    )
    if args.database:
        db_times = database_time(data, args.items, args.repeat)
        print(
            f"load_agreement (SQLite read + figures): median {statistics.median(db_times):.2f} s, "
            f"best {min(db_times):.2f} s (n={len(db_times)})"
        )


if __name__ == "__main__":
    main()
