"""Benchmark: what accepting, dismissing and restoring a suggestion cost through ``CurationService.handle``, beside an
ordinary add, on a snapshot project of N items × 5 languages (SQLite, or the database ``--database-url`` names).

Run: ``python benchmarks/bench_suggestion_commands.py [--items 2000] [--commands 200]``.

An accept reads what the user is offered (``card_view``: the kept suggestions, the team's look-up, the user's
dismissals) before its write transaction, so that only an offered text is recorded as an accepted suggestion; a
dismissal reads the same, then writes one ``suggestion_dismissals`` row and nothing else (no version, no history);
a restore deletes it. Each command on its own item-language, in random order (fixed seed); wall and CPU per command,
median and 95th percentile.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_curate import build

from annotator.domain.commands import AcceptSuggestion, AddCandidate, Address, DismissSuggestion, RestoreSuggestion
from annotator.domain.model import Side
from annotator.services.curation import CurationService
from annotator.services.suggestions.card import card_view


def figures(label: str, samples: list[tuple[float, float]]) -> None:
    walls = sorted(1000 * wall for wall, _cpu in samples)
    cpus = sorted(1000 * cpu for _wall, cpu in samples)
    p95 = max(0, int(len(walls) * 0.95) - 1)
    print(
        f"  {label:<34} wall median {statistics.median(walls):6.2f} ms p95 {walls[p95]:6.2f} ms · "
        f"CPU median {statistics.median(cpus):6.2f} ms p95 {cpus[p95]:6.2f} ms  (n={len(samples)})"
    )


def timed(call: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--commands", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = build(Path(tmp), args.items)
        with project.db.read() as conn:
            user = project.repo.get_user(conn, "translator")
            keys = [(e.item_id, "DE") for e in project.repo.queue(conn, "DE")]
        assert user is not None
        service = CurationService(project, user)
        random.Random(42).shuffle(keys)
        added, accepted, dismissed, restored, offered = [], [], [], [], 0
        for number, (item_id, lang) in enumerate(keys[: args.commands]):
            address = Address(item_id, lang)
            shown = card_view(project, item_id, lang, user).suggestions
            text = shown[0].text if shown else f"parola {number}"
            offered += bool(shown)
            version = service.view(item_id, lang).state.version
            add, accept = AddCandidate(Side.GOOD, f"aggiunta {number}"), AcceptSuggestion(Side.GOOD, text)
            if number % 2:
                added.append(timed(partial(service.handle, address, add, version)))
            else:
                accepted.append(timed(partial(service.handle, address, accept, version)))
            dismissed.append(timed(partial(service.handle, address, DismissSuggestion(Side.BAD, f"nein {number}"))))
            restored.append(timed(partial(service.handle, address, RestoreSuggestion(f"nein {number}"))))
        print(f"{args.items} items × 5 languages, {project.db.url.split(':', 1)[0]}; {offered} of "
              f"{min(args.commands, len(keys))} item-languages had a suggestion to accept")  # fmt: skip
        figures("ordinary add", added)
        figures("accept (reads the offer first)", accepted)
        figures("dismiss (one row, no version)", dismissed)
        figures("restore", restored)


if __name__ == "__main__":
    main()
