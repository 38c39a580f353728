"""Benchmark: the invisible-character checks on item-file rows and the terminal escaper (issue 14 items 10, 11).

Run: ``python benchmarks/bench_unicode_rules.py [--rows 100000]``. Times ``unicode_rules.field_problems`` over
``--rows`` item rows (ASCII English sentences, and mixed-script ones) as the item reader runs it on every row, and
``escape_controls`` over as many lines of command output. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import time

from annotator.domain.unicode_rules import escape_controls, field_problems

COLUMNS = ("sentence", "lemma", "source", "gloss", "target", "word", "target_word", "w", "id", "item_id")


def timed(label: str, action) -> None:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    action()
    print(f"{label}: {time.perf_counter() - started:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    rows = parser.parse_args().rows
    english = [
        {"id": f"item-{n}", "sentence": f"He poured shot number {n} of whiskey into the glass.", "lemma": "shot"}
        for n in range(rows)
    ]
    mixed = [
        {"id": f"item-{n}", "sentence": f"Er schenkte {n} Schlückchen ein — café 小杯 держит.", "lemma": "Schluck"}
        for n in range(rows)
    ]
    output = "\n".join(f"shot-{n}  IT  système-{n}  GOOD  goccio 小杯" for n in range(rows))
    timed(f"field_problems, {rows:,} ASCII rows", lambda: [field_problems(row, COLUMNS) for row in english])
    timed(f"field_problems, {rows:,} mixed-script rows", lambda: [field_problems(row, COLUMNS) for row in mixed])
    timed(f"escape_controls, {rows:,} output lines ({len(output) / 1e6:.1f} MB)", lambda: escape_controls(output))


if __name__ == "__main__":
    main()
