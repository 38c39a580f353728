"""Benchmark: agreement over 10,000 items × 5 languages × 2 translators (issue 11 target: ≤ 2 s).

Run: ``python benchmarks/bench_agreement.py [--items 10000] [--repeat 3]``.

Each item-language has 18 pre-populated candidates (3 GOOD, 15 BAD: 6 senses × 3 lemmas, as in the other
benchmarks' synthetic lexicon); each translator moves a few, deletes a few, adds one or two, and about 3% of the
copies are discarded and 2% flagged DISCUSS, drawn from a seeded generator. The time measured is
``agreement_report`` over the 100,000 copies (every figure: per language, per pair, overall, α).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = copies(args.items)
    print(f"{len(data)} copies ({args.items} items × {len(LANGS)} languages × 2 translators)")
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        report = agreement_report(data, LANGS)
        times.append(time.perf_counter() - started)
    overall = report.overall
    print(
        f"item-languages compared {len(report.compared)}, units α {overall.alpha_units}, "
        f"exact GOOD {format_figure(overall.exact_good_agreement)} %, α {format_figure(overall.alpha, percent=False)}"
    )
    print(f"agreement_report: median {statistics.median(times):.2f} s, best {min(times):.2f} s (n={len(times)})")


if __name__ == "__main__":
    main()
