"""Compare the figures of benchmark scripts between two git revisions (issue 24, acceptance 5: "benchmarks show no
figure worse by more than 10 %").

Run: ``python benchmarks/compare_revisions.py [--old 5cda67c] [--new HEAD] [--runs 3] "BENCH [ARGS…]" …``, e.g.
``python benchmarks/compare_revisions.py "bench_unicode_rules.py --rows 20000" "bench_export.py --items 500"``.

Each revision is checked out into a temporary ``git worktree`` (removed afterwards) and every benchmark runs there
with ``PYTHONPATH=<worktree>``, pinned to one core with ``taskset`` when it exists (``--cpu``), old and new taking
turns (old, new, then new, old, …) so a machine that gets busier or quieter mid-way weighs on both alike. Each side
has its own ``ANNOTATOR_CACHE_DIR`` (the dictionary caches' format may differ between revisions); ``--warm-up 1``
fills it first, so no measured run pays for a cold cache. Each worktree's package is byte-compiled before its first
run, as an installed one is. The exit code is 1 when a figure is flagged.

A *figure* is a number followed by a unit on a line the benchmark prints: a time (``s``, ``ms``, ``µs``, ``min``:
lower is better), a rate (``/s``, ``items/s``: higher is better) or a size (``KB``, ``MB``, ``GB``: lower is
better). Counts and percentages are not figures. Lines are matched between revisions with their numbers blanked
out and what follows the last figure left off, so "2,124 changes … median 149 s" is the same figure whatever the
counts, and "… 62 ms ok" the same as "… 412 ms OVER". The table gives each figure's median per side and its
change; ``WORSE`` marks one more than ``--threshold`` (10 %) worse. A benchmark or figure that only the new
revision has is ``new``, one only the old has is ``gone``; a failed run is reported with its error.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from whole_process import compile_package

#: A number (1,038 or 0.25) and its unit; the unit must end there (so "2 sentences" is no time in seconds).
FIGURE = re.compile(
    r"(?<![\w.])(?P<number>\d[\d,]*(?:\.\d+)?)\s?"
    r"(?P<unit>(?:[A-Za-z]+)?/s|ms|µs|us|s|min|[KMG]i?B|kB)(?![\w/])"
)
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
SIDES = ("old", "new")


@dataclass(frozen=True)
class Figure:
    """One figure of a benchmark's output: which line (numbers blanked; the how-many-th such line), which figure on
    it and its unit. The label, for the table, is not part of its identity (it shows the line's own numbers)."""

    line: str
    occurrence: int
    index: int
    unit: str
    label: str = field(compare=False)

    @property
    def higher_is_better(self) -> bool:
        return self.unit.endswith("/s")


@dataclass
class Outcome:
    """Everything one benchmark gave on both sides: values per figure per side, and the errors of failed runs."""

    values: dict[Figure, dict[str, list[float]]] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=lambda: {side: [] for side in SIDES})
    missing: set[str] = field(default_factory=set)


def figures(output: str) -> list[tuple[Figure, float]]:
    """The figures of one run's output, in the order printed."""
    found = []
    seen: dict[str, int] = {}
    for raw in output.splitlines():
        text = " ".join(raw.split())
        matches = list(FIGURE.finditer(text))
        if not matches:
            continue
        # the line up to its last figure, numbers blanked: a verdict after it ("ok" / "OVER") is not its identity
        template = NUMBER.sub("#", text[: matches[-1].end()])
        occurrence = seen[template] = seen.get(template, -1) + 1
        head, colon, _ = text.partition(": ")
        start = len(head) + 2 if colon and not FIGURE.search(head) else 0
        prefix = head if start else re.split(r", |: |\(", text, maxsplit=1)[0]
        prefix = re.sub(r"\s*\([^)]*\)", "", prefix).strip()  # "start-up for DE alone (fresh …)": the words
        for index, match in enumerate(matches):
            # what stands just before the number ("warm", "median"), after the line's head
            clause = re.split(r"[;,] ", text[start : match.start()])[-1].strip(" ()=:")
            label = " · ".join(part for part in dict.fromkeys((prefix, clause)) if part)
            figure = Figure(template, occurrence, index, match["unit"], f"{label[:80]} ({match['unit']})")
            found.append((figure, float(match["number"].replace(",", ""))))
            start = match.end()
    return found


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def change(figure: Figure, old: float | None, new: float | None, threshold: float) -> tuple[str, str]:
    """The change in percent of the old value, and the verdict: WORSE beyond the threshold, else better or blank."""
    if old is None or new is None:
        return "", "new" if old is None else "gone"
    if old == 0:
        return "n/a", ""
    percent = (new - old) / old * 100
    worse = -percent if figure.higher_is_better else percent
    verdict = "WORSE" if worse > threshold else ("better" if worse < -threshold else "")
    return f"{percent:+.1f} %", verdict


def add_worktree(repository: Path, revision: str, folder: Path) -> None:
    subprocess.run(
        ["git", "-C", str(repository), "worktree", "add", "--detach", "--quiet", str(folder), revision], check=True
    )
    compile_package(folder)  # both sides start as an installed package does: with their bytecode


def remove_worktree(repository: Path, folder: Path) -> None:
    subprocess.run(["git", "-C", str(repository), "worktree", "remove", "--force", str(folder)], check=False)


def run_once(worktree: Path, cache: Path, command: list[str], cpu: str | None, timeout: float) -> tuple[str, str]:
    """One run of a benchmark in a worktree: (stdout, error message or "")."""
    env = {**os.environ, "PYTHONPATH": str(worktree), "ANNOTATOR_CACHE_DIR": str(cache)}
    pin = ["taskset", "-c", cpu] if cpu and shutil.which("taskset") else []
    script = worktree / "benchmarks" / command[0]
    try:
        done = subprocess.run(
            [*pin, sys.executable, str(script), *command[1:]],
            cwd=worktree,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "", f"timed out after {timeout:.0f} s"
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        return done.stdout, f"exit code {done.returncode}: {tail}"
    return done.stdout, ""


def compare(
    repository: Path,
    revisions: dict[str, str],
    benchmarks: list[str],
    runs: int,
    warm_up: int,
    cpu: str | None,
    timeout: float,
) -> dict[str, Outcome]:
    """Run every benchmark ``runs`` times on each side, the two sides taking turns, after ``warm_up`` runs whose
    figures are dropped (they fill each side's caches); collect the figures."""
    outcomes = {bench: Outcome() for bench in benchmarks}
    with tempfile.TemporaryDirectory(prefix="compare-revisions-") as scratch:
        trees = {side: Path(scratch) / side for side in SIDES}
        try:
            for side in SIDES:
                add_worktree(repository, revisions[side], trees[side])
            for bench in benchmarks:
                command = shlex.split(bench)
                outcome = outcomes[bench]
                outcome.missing = {s for s in SIDES if not (trees[s] / "benchmarks" / command[0]).is_file()}
                if len(outcome.missing) == len(SIDES):
                    print(f"{command[0]}: in neither revision", file=sys.stderr)
                for number in range(-warm_up, runs):
                    order = SIDES if number % 2 == 0 else SIDES[::-1]
                    for side in (s for s in order if s not in outcome.missing):
                        what = "warm-up" if number < 0 else f"run {number + 1}/{runs}"
                        print(f"{command[0]} {what} on {side} …", file=sys.stderr, flush=True)
                        cache = Path(scratch) / f"{side}-cache"
                        output, error = run_once(trees[side], cache, command, cpu, timeout)
                        if error:
                            outcome.errors[side].append(error)
                        if number < 0:
                            continue
                        for figure, value in figures(output):
                            outcome.values.setdefault(figure, {s: [] for s in SIDES})[side].append(value)
        finally:
            for side in SIDES:
                if trees[side].exists():
                    remove_worktree(repository, trees[side])
    return outcomes


def report(outcomes: dict[str, Outcome], revisions: dict[str, str], threshold: float) -> int:
    """Print one table per benchmark; returns how many figures are worse than the threshold."""
    worse = 0
    print(f"old = {revisions['old']}, new = {revisions['new']}; medians; WORSE = more than {threshold:g} % worse")
    for bench, outcome in outcomes.items():
        print(f"\n== {bench}")
        for side in sorted(outcome.missing):
            print(f"   (not in the {side} revision)")
        for side in SIDES:
            for error in dict.fromkeys(outcome.errors[side]):
                print(f"   {side} run failed: {error}")
        if not outcome.values:
            print("   (no figures)")
            continue
        rows = [("figure", "old", "new", "change", "")]
        for figure, values in outcome.values.items():
            old, new = median(values["old"]), median(values["new"])
            percent, verdict = change(figure, old, new, threshold)
            absent = "old" if old is None else "new" if new is None else None
            if absent and outcome.errors[absent]:  # not printed because that side's run broke off
                verdict = f"{absent} failed"
            worse += verdict == "WORSE"
            rows.append((figure.label, _shown(old), _shown(new), percent, verdict))
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        for row in rows:
            print(
                "   "
                + "  ".join(
                    cell.ljust(w) if i == 0 else cell.rjust(w)
                    for i, (cell, w) in enumerate(zip(row, widths, strict=True))
                ).rstrip()
            )
    print(f"\n{worse} figure(s) worse by more than {threshold:g} %")
    return worse


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:,.4g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "benchmarks", nargs="+", help='a script in benchmarks/ and its arguments, quoted: "bench_x.py --n 5"'
    )
    parser.add_argument("--old", default="5cda67c", help="the revision before the work (default: 5cda67c)")
    parser.add_argument("--new", default="HEAD", help="the revision after it (default: HEAD)")
    parser.add_argument("--runs", type=int, default=3, help="runs per benchmark and revision (median shown)")
    parser.add_argument("--warm-up", type=int, default=0, help="runs per side first, their figures dropped")
    parser.add_argument("--cpu", default="0", help="taskset CPU list to pin the runs to ('' for no pinning)")
    parser.add_argument("--threshold", type=float, default=10.0, help="percent worse that is flagged")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds a single run may take")
    parser.add_argument("--repository", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument(
        "--results",
        type=Path,
        help="also append the table, dated and with the command, to this Markdown file (e.g. benchmarks/RESULTS.md)",
    )
    args = parser.parse_args()
    revisions = {"old": args.old, "new": args.new}
    outcomes = compare(
        args.repository, revisions, args.benchmarks, args.runs, args.warm_up, args.cpu or None, args.timeout
    )
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        flagged = report(outcomes, revisions, args.threshold)
    print(printed.getvalue(), end="")
    if args.results is not None:
        append_results(args.results, revisions, sys.argv[1:], printed.getvalue())
    return 1 if flagged else 0


def append_results(path: Path, revisions: dict[str, str], arguments: list[str], table: str) -> None:
    """Append one dated section to ``path``: the revisions (as commit ids), the command and the printed table."""
    commits = {
        side: subprocess.run(
            ["git", "rev-parse", "--short", revision], capture_output=True, text=True, check=False
        ).stdout.strip()
        or revision
        for side, revision in revisions.items()
    }
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = (
        f"\n## compare_revisions {commits['old']} → {commits['new']} ({stamp})\n\n"
        f"`python benchmarks/compare_revisions.py {shlex.join(arguments)}`\n\n```text\n{table.rstrip()}\n```\n"
    )
    with path.open("a", encoding="utf-8") as results:
        results.write(section)


if __name__ == "__main__":
    raise SystemExit(main())
