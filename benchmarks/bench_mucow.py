"""Benchmark of matcher fidelity: MuCoW WMT19 references scored as a system, beside MuCoW's own evaluate.py.

Run: ``python benchmarks/bench_mucow.py [--data ../shared/data/mucow-wmt19] [--analyser default] [--list]``.
Every reference contains a correct-sense word by construction, so every BAD is a false BAD and every MISS a miss.
Every line counts, same-lemma keys (``акра``/``акр``) included; each false BAD is listed with its cause.
MuCoW's scorer is imported from the data folder (not copied): it reads Moses-tokenised references and a lemmatised
file, for which this script writes the default analyser's lemmas (space-separated, one line per reference).

Two more checks (issue 43). *Agreement*: a per-line replica of MuCoW's matching loop (``mucow_verdicts``; its totals
are checked equal to the table ``evaluate.py`` prints) against annotator's verdict on every reference (GOOD = pos,
BAD = neg, MISS = unk). *Perturbed system*: each reference with its correct word deleted (every token whose form or
lemma is a positive key word, ``perturbed``), where MISS is the truth unless a negative word is left: a GOOD found
by the stem step there is a match invented across words («Schüler» for a deleted «Schule»).
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

from annotator.analysis.base import Analysis
from annotator.data_import.mucow import MucowLine, read_mucow
from annotator.domain.matching import Step, fold
from annotator.evaluation.run import create_analyser
from annotator.evaluation.suite import SuiteReport, score_references, score_system

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


def mucow_verdicts(lines: list[MucowLine], pair: str, texts: list[str], lemma_lines: list[str]) -> list[str]:
    """MuCoW's per-line loop (``processLanguagePair``): ``pos``, ``neg`` or ``unk`` for each text — key words among
    the lower-cased Moses tokens, and only when none is there among the lemma line's words."""
    import sacremoses

    tokenizer = sacremoses.MosesTokenizer(lang=pair[-2:])
    out = []
    for line, text, lemmas in zip(lines, texts, lemma_lines, strict=True):
        words = [x.lower() for x in tokenizer.tokenize(text.strip(), escape=False)]
        positive, negative = any(w in words for w in line.positive), any(w in words for w in line.negative)
        if not positive and not negative:
            lemma_words = lemmas.strip().lower().split(" ")
            positive = any(w in lemma_words for w in line.positive)
            negative = any(w in lemma_words for w in line.negative)
        out.append("pos" if positive and not negative else "neg" if negative else "unk")
    return out


def perturbed(line: MucowLine, analysis: Analysis) -> str:
    """The reference with its correct word deleted: every token one of whose words is a positive key word as
    written, or through its lemma or another reading."""
    positive = {fold(word) for word in line.positive}
    readings = analysis.readings or ((),) * len(analysis.words)
    hit = set()
    for word, lemma, extra, token in zip(analysis.words, analysis.lemmas, readings, analysis.word_token, strict=True):
        if {fold(word), fold(lemma), *map(fold, extra)} & positive:
            hit.add(token)
    text = analysis.text
    for token in sorted(hit, reverse=True):
        start, end = analysis.token_spans[token]
        text = text[:start].rstrip() + " " + text[end:].lstrip()
    return text.strip()


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
    theirs: list[tuple[str, ...]] = [("pair", "lines", "pos", "false BAD (neg)", "unknown", "replica's totals")]
    agreement: list[tuple[str, ...]] = [
        (
            "pair",
            "references",
            "same verdict as MuCoW",
            "agreement",
            "perturbed lines",
            "GOOD",
            "GOOD at stem step",
            "BAD at stem step",
        )
    ]
    reports: dict[str, SuiteReport] = {}
    held_agreement = True
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
        analyses = analyser.analyse([line.reference or "" for line in lines], lang)
        texts = [perturbed(line, analysis) for line, analysis in zip(lines, analyses, strict=True)]
        broken = score_system(lines, lang, analyser, texts, "perturbed")
        stem_good = [r for r in broken if r.outcome == "GOOD" and r.match.step == Step.STEM]
        stem_bad = [r for r in broken if r.outcome == "BAD" and r.match.step == Step.STEM]
        if not args.no_mucow:
            lemma_lines = [" ".join(a.lemmas) for a in analyses]
            own = mucow_own(args.data, pair, lemma_lines)
            replica = mucow_verdicts(lines, pair, [line.reference or "" for line in lines], lemma_lines)
            totals = {verdict: replica.count(verdict) for verdict in ("pos", "neg", "unk")}
            same_totals = totals == own
            theirs.append(
                (
                    pair.upper(),
                    str(len(lines)),
                    str(own["pos"]),
                    str(own["neg"]),
                    str(own["unk"]),
                    "equal" if same_totals else f"DIFFER {totals}",
                )
            )
            verdict = {"GOOD": "pos", "BAD": "neg", "MISS": "unk"}
            ours_by_line = {line: verdict[outcome] for line, outcome in report.verdicts}
            same = sum(ours_by_line[line.line] == theirs_ for line, theirs_ in zip(lines, replica, strict=True))
            share = same / len(lines)
            held_agreement = held_agreement and same_totals and share >= 0.998 and not stem_good
            agreement.append(
                (
                    pair.upper(),
                    str(len(lines)),
                    str(same),
                    f"{100 * share:.2f} %",
                    str(len(broken)),
                    str(sum(r.outcome == "GOOD" for r in broken)),
                    str(len(stem_good)),
                    str(len(stem_bad)),
                )
            )
            if args.list:
                for line, theirs_ in zip(lines, replica, strict=True):
                    if ours_by_line[line.line] != theirs_:
                        print(f"  {pair} line {line.line}: annotator {ours_by_line[line.line]}, MuCoW {theirs_}")
        for result in stem_good:
            print(f"  {pair} perturbed: stem-step GOOD {result.match.omega_text!r}: {result.analysis.text}")
    print(table(f"annotator (analyser: {args.analyser}), references scored as a system", ours))
    print()
    if not args.no_mucow:
        print(table("MuCoW's own evaluate.py (lemma file from the same analyser)", theirs))
        print()
        print(table("per-line agreement with MuCoW's loop; references with the correct word deleted", agreement))
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
    if not args.no_mucow:
        verdict_text = "holds" if held_agreement else "FAILS"
        rule = "agreement ≥ 99.8 %, replica = evaluate.py, 0 stem-step GOOD when perturbed"
        print(f"acceptance ({rule}): {verdict_text}")


if __name__ == "__main__":
    sys.exit(main())
