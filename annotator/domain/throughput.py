"""Throughput of the team (Review → Progress, leads): items done today and this week, time per item, the team's rate.

Pure functions over plain history records (who changed which item-language when, and how). The definitions:

- **Done**: a ``done`` change by that person, counted once per item-language and period (marking the same item
  done twice in a week is one item). A Done whose very next change on the item-language is an ``undo`` was taken
  back and does not count. "Today" and "this week" are UTC days; a week starts on Monday 00:00 UTC.
- **Time per item**: the history has no "opened" event, so the time is measured between changes. A person's
  changes (on any item) are split into *work sessions* wherever two consecutive changes are more than
  ``SESSION_GAP_S`` apart. An item's time runs from the person's last change on another item before it — the
  moment they moved on to this one — to its Done; when the item is the first one of a session, from the first
  change on it in that session. The first item of a session accepted with a bare Done (nothing before it) has no
  measurable time and is left out of the median (it is still counted as done). A break longer than the gap is
  therefore never counted as work.
- **Median time per item**: the median of the measured times of the Done changes in the week.
- **Team rate**: items done this week per day of the week so far (today counts as a day).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

#: Changes further apart than this are two work sessions: the time between them is a break, not work.
SESSION_GAP_S = 30 * 60
DONE = "done"
UNDO = "undo"
ALL = "ALL"


@dataclass(frozen=True)
class Change:
    """One history row as throughput needs it; ``at`` is an ISO 8601 time with its UTC offset."""

    item_id: str
    lang: str
    user: str
    at: str
    action: str


@dataclass(frozen=True)
class Row:
    """Throughput of one person in one language (or ``ALL`` of them: the team)."""

    user: str
    lang: str
    done_today: int
    done_week: int
    median_seconds: float | None
    measured: int


@dataclass(frozen=True)
class Throughput:
    rows: tuple[Row, ...]
    team: tuple[Row, ...]  # per language, then ALL
    days: int  # days of this week so far, today included
    week_start: datetime

    def rate(self, lang: str = ALL) -> float:
        """Items done per day this week (the team, one language or ``ALL``)."""
        done = next((row.done_week for row in self.team if row.lang == lang), 0)
        return done / self.days


def parse_time(at: str) -> datetime:
    moment = datetime.fromisoformat(at)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def week_start(now: datetime) -> datetime:
    """Monday 00:00 UTC of ``now``'s week."""
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def read_since(now: datetime) -> datetime:
    """How far back the history must be read for this week's figures: a session running across Monday 00:00 is
    measured from its start, so read a day before the week (a session of changes under 30 minutes apart that
    lasted longer than that is cut, and only its first item's time is affected)."""
    return week_start(now) - timedelta(days=1)


def _done_changes(changes: list[tuple[datetime, Change]]) -> list[int]:
    """Indexes of the ``done`` changes not taken back by an ``undo`` right after them on the same item-language."""
    last_on: dict[tuple[str, str], int] = {}
    taken_back: set[int] = set()
    for index, (_at, change) in enumerate(changes):
        key = (change.item_id, change.lang)
        previous = last_on.get(key)
        if change.action == UNDO and previous is not None and changes[previous][1].action == DONE:
            taken_back.add(previous)
        last_on[key] = index
    return [i for i, (_at, c) in enumerate(changes) if c.action == DONE and i not in taken_back]


def _durations(own: list[tuple[datetime, Change]]) -> dict[int, float | None]:
    """For each change index of one person (sorted by time) that is a Done: the item's time (see the module)."""
    measured: dict[int, float | None] = {}
    session_start = 0
    for index, (at, change) in enumerate(own):
        if index and (at - own[index - 1][0]).total_seconds() > SESSION_GAP_S:
            session_start = index
        if change.action != DONE:
            continue
        key = (change.item_id, change.lang)
        first = index
        while first > session_start and (own[first - 1][1].item_id, own[first - 1][1].lang) == key:
            first -= 1
        if first > session_start:
            start = own[first - 1][0]  # the moment they left the previous item
        elif first < index:
            start = own[first][0]  # first item of the session: from its first change
        else:
            measured[index] = None  # a bare Done opening a session: nothing to measure from
            continue
        measured[index] = (at - start).total_seconds()
    return measured


def throughput(changes: Iterable[Change], now: datetime) -> Throughput:
    """This week's figures from the history (``changes`` in any order; system users already left out)."""
    now = now.astimezone(UTC)
    start = week_start(now)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    by_user: dict[str, list[tuple[datetime, Change]]] = defaultdict(list)
    everyone: list[tuple[datetime, Change]] = []
    for change in changes:
        moment = parse_time(change.at)
        if moment <= now:
            by_user[change.user].append((moment, change))
            everyone.append((moment, change))
    everyone.sort(key=lambda pair: pair[0])
    kept = {id(everyone[i][1]) for i in _done_changes(everyone)}
    week: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    day: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for name, own in by_user.items():
        own.sort(key=lambda pair: pair[0])
        for index, seconds in _durations(own).items():
            at, change = own[index]
            if at < start or id(change) not in kept:
                continue
            item = (change.item_id, change.lang)
            for key in ((name, change.lang), (ALL, change.lang), (ALL, ALL)):
                week[key].add(item)
                if at >= today:
                    day[key].add(item)
                if seconds is not None:
                    times[key].append(seconds)

    def row(key: tuple[str, str]) -> Row:
        measured = times.get(key, [])
        median = statistics.median(measured) if measured else None
        return Row(key[0], key[1], len(day.get(key, ())), len(week.get(key, ())), median, len(measured))

    rows = tuple(row(key) for key in sorted(k for k in week if k[0] != ALL))
    langs = sorted({lang for (who, lang) in week if who != ALL})
    team = tuple(row((ALL, lang)) for lang in [*langs, ALL])
    days = (today - start).days + 1
    return Throughput(rows, team, days, start)


def format_seconds(seconds: float | None) -> str:
    """``1 min 05 s`` / ``42 s`` / ``n/a``: how the page and the CSV show a time per item."""
    if seconds is None:
        return "n/a"
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"
