"""Benchmark: the breakdown by domain with bootstrap intervals (issue 22) over N translations.

Run: ``python benchmarks/bench_domain_breakdown.py [--translations 50000] [--systems 4] [--domains 12]``. Outcomes
are drawn at random (fixed seed) with ~20 % of the items without a domain; prints the CPU time of one breakdown.
"""

from __future__ import annotations

import argparse
import random
import time

from annotator.domain.research_metrics import domain_breakdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--translations", type=int, default=50_000)
    parser.add_argument("--systems", type=int, default=4)
    parser.add_argument("--domains", type=int, default=12)
    args = parser.parse_args()
    rng = random.Random(1)
    domains = [f"domain-{k}" for k in range(args.domains)]
    outcomes = [
        (f"system-{n % args.systems}", rng.choice(domains) if rng.random() < 0.8 else None,
         rng.choices(("GOOD", "BAD", "MISS"), (5, 3, 2))[0])
        for n in range(args.translations)
    ]  # fmt: skip
    started = time.process_time()
    rows = domain_breakdown(outcomes)
    cpu = time.process_time() - started
    print(f"{args.translations} translations, {len(rows)} system × domain groups: {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
