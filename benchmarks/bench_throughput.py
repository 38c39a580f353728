"""Benchmark: throughput for leads (Review → Progress) over a busy week of history.

Run: ``python benchmarks/bench_throughput.py [--translators 20] [--items 2500] [--repeat 3] [--database]``.

Each translator curates ``--items`` item-languages this week (the whole 10,000 × 5 project's worth with the
defaults: 50,000 Done changes), each with 1–4 edits before its Done, 5–90 s apart, and a 45-minute break every
60 items, drawn from a seeded generator. Timed: ``domain.throughput.throughput`` over the changes (the figures the
page shows). With ``--database`` the rows are also written to a SQLite project's ``history`` and the service's
read (one query for the week) plus the figures are timed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from annotator.domain.throughput import Change, throughput, week_start

LANGS = ("DE", "ES", "IT", "RU", "ZH")
NOW = datetime(2026, 11, 27, 18, 0, tzinfo=UTC)  # a Friday evening


def history(translators: int, items: int, seed: int = 21) -> list[Change]:
    rng = random.Random(seed)
    changes: list[Change] = []
    for t in range(translators):
        user, lang = f"t{t:02d}", LANGS[t % len(LANGS)]
        moment = week_start(NOW) + timedelta(hours=8)
        for n in range(items):
            if n and n % 60 == 0:
                moment += timedelta(minutes=45)
            item = f"item-{t:02d}-{n:05d}"
            for _ in range(rng.randint(1, 4)):
                moment += timedelta(seconds=rng.randint(5, 90))
                changes.append(Change(item, lang, user, moment.isoformat(timespec="microseconds"), "add"))
            moment += timedelta(seconds=rng.randint(5, 60))
            changes.append(Change(item, lang, user, moment.isoformat(timespec="microseconds"), "done"))
    return [c for c in changes if c.at <= NOW.isoformat()]


def timed(run, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--translators", type=int, default=20)
    parser.add_argument("--items", type=int, default=2500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database", action="store_true")
    args = parser.parse_args()
    changes = history(args.translators, args.items)
    figures = throughput(changes, NOW)
    team = figures.team[-1]
    print(f"{len(changes):,} changes, {team.done_week:,} items done this week, median {team.median_seconds:.0f} s")
    print(f"throughput(): {timed(lambda: throughput(changes, NOW), args.repeat) * 1000:.0f} ms (median)")
    if args.database:
        from annotator.domain.model import Role
        from annotator.project import Project
        from annotator.services.accounts import add_user
        from annotator.services.throughput import changes_since
        from annotator.store import schema

        with tempfile.TemporaryDirectory() as folder:
            project = Project.open(Path(folder) / "data", create=True)
            add_user(project, "lena", Role.LEAD, (), "lead-password")
            rows = [
                {"item_id": c.item_id, "lang": c.lang, "user": c.user, "at": c.at, "action": c.action, "version": 1}
                for c in changes
            ]
            with project.db.write() as conn:
                conn.execute(schema.history.insert(), rows)
            since = week_start(NOW) - timedelta(days=1)
            read = timed(lambda: throughput(changes_since(project, since), NOW), args.repeat)
            print(f"history read + throughput() from SQLite: {read * 1000:.0f} ms (median)")
            project.db.dispose()


if __name__ == "__main__":
    main()
