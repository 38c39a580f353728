"""Benchmark of matcher fidelity: MuCoW WMT19 references scored as a system, beside MuCoW's own evaluate.py.

Run: ``python benchmarks/bench_mucow.py [--data ../shared/data/mucow-wmt19] [--analyser default] [--list]``.
Every reference contains a correct-sense word by construction, so every BAD is a false BAD and every MISS a miss.
Every line counts, same-lemma keys (``акра``/``акр``) included; each false BAD is listed with its cause.
MuCoW's scorer is imported from the data folder (not copied): it reads Moses-tokenised references and a lemmatised
file, for which this script writes the default analyser's lemmas (space-separated, one line per reference).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import sys
import tempfile
import time
from pathlib import Path

from annotator.data_import.mucow import read_mucow
from annotator.evaluation.run import create_analyser
from annotator.evaluation.suite import SuiteReport, score_references

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "mucow-wmt19"
PAIRS = {"en-de": "DE", "en-ru": "RU"}
#: Issue 22's bound on false BADs: MuCoW's own scorer's count on the same references (18 and 0) plus 2.
BOUNDS = {"en-de": 20, "en-ru": 2}


def mucow_own(data: Path, pair: str, lemma_lines: list[str]) -> dict[str, int]:
    """Run MuCoW's ``processLanguagePair`` on the references; parse its All Pos/Neg/Unk columns."""
    spec = importlib.util.spec_from_file_location("mucow_evaluate", data / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        raw, lem = Path(tmp, "raw"), Path(tmp, "lem")
        raw.mkdir()
        lem.mkdir()
        (raw / "reference").write_bytes((data / f"{pair}.ref.txt").read_bytes())
        (lem / "reference.parsed.toklemma").write_text("\n".join(lemma_lines) + "\n", encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            module.processLanguagePair(pair, str(data / pair), str(raw / "*"), str(lem / "*.parsed.toklemma"))
    row = next(line for line in out.getvalue().splitlines() if line.startswith("reference"))
    cells = [cell for cell in row.split("\t") if cell]
    all_pos, all_neg, all_unk = (int(c) for c in cells[-9:-6])
    return {"pos": all_pos, "neg": all_neg, "unk": all_unk}


def table(title: str, rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [title, ""]
    for n, row in enumerate(rows):
        lines.append("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--analyser", default="default")
    parser.add_argument("--list", action="store_true", help="list every false BAD and MISS line")
    parser.add_argument("--no-mucow", action="store_true", help="skip MuCoW's own scorer (needs sacremoses)")
    args = parser.parse_args()
    ours: list[tuple[str, ...]] = [
        ("pair", "lines", "GOOD", "false BAD", "bound (MuCoW + 2)", "from cand. analysis", "MISS", "seconds")
    ]
    theirs: list[tuple[str, ...]] = [("pair", "lines", "pos", "false BAD (neg)", "unknown")]
    reports: dict[str, SuiteReport] = {}
    for pair, lang in PAIRS.items():
        lines = read_mucow(args.data / pair)
        analyser = create_analyser(args.analyser)
        started = time.perf_counter()
        report = score_references(lines, lang, analyser)
        seconds = time.perf_counter() - started
        reports[pair] = report
        ours.append(
            (
                pair.upper(),
                str(report.lines),
                str(report.good),
                str(report.bad),
                str(BOUNDS[pair]),
                str(report.bad_from_candidate_analysis),
                str(report.miss),
                f"{seconds:.1f}",
            )
        )
        if not args.no_mucow:
            analyses = analyser.analyse([line.reference or "" for line in lines], lang)
            own = mucow_own(args.data, pair, [" ".join(a.lemmas) for a in analyses])
            theirs.append((pair.upper(), str(len(lines)), str(own["pos"]), str(own["neg"]), str(own["unk"])))
    print(table(f"annotator (analyser: {args.analyser}), references scored as a system", ours))
    print()
    if not args.no_mucow:
        print(table("MuCoW's own evaluate.py (lemma file from the same analyser)", theirs))
        print()
    for pair, report in reports.items():
        print(f"{pair.upper()} steps of ω: {dict(sorted(report.steps.items()))}")
        print(f"{pair.upper()} false BADs by cause: {report.causes()}")
        if args.list:
            for number, omega, step, cause, ref in report.bad_lines:
                print(f"  BAD line {number}: {omega!r} at {step} ({cause}): {ref}")
            for number, ref in report.miss_lines:
                print(f"  MISS line {number}: {ref}")
    held = all(r.bad <= BOUNDS[p] and r.miss == 0 for p, r in reports.items())
    print(f"acceptance (false BADs ≤ MuCoW's own + 2, 0 MISS): {'holds' if held else 'FAILS'}")


if __name__ == "__main__":
    sys.exit(main())
