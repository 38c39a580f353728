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
    days: int  # days of this week the team has been at work so far: from the week's first change, today included
    week_start: datetime
    since: datetime | None = None  # the day of the week's first change (None: nothing changed this week)

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


def _taken_back(rows: list[tuple[float, Change]]) -> set[int]:
    """Indexes (into time-sorted ``rows``) of the ``done`` changes an ``undo`` right after them took back."""
    last_on: dict[tuple[str, str], int] = {}
    taken_back: set[int] = set()
    for index, (_t, change) in enumerate(rows):
        key = (change.item_id, change.lang)
        previous = last_on.get(key)
        if change.action == UNDO and previous is not None and rows[previous][1].action == DONE:
            taken_back.add(previous)
        last_on[key] = index
    return taken_back


def _durations(times: list[float], keys: list[tuple[str, str]], dones: list[int]) -> dict[int, float | None]:
    """For one person's changes (times and item-languages, sorted by time), each Done's time (see the module)."""
    measured: dict[int, float | None] = {}
    session_start = 0
    next_done = 0
    for index in range(1, len(times) + 1):
        if index < len(times) and times[index] - times[index - 1] <= SESSION_GAP_S:
            continue
        # changes session_start … index-1 are one work session: time its Dones
        while next_done < len(dones) and dones[next_done] < index:
            done = dones[next_done]
            next_done += 1
            first = done
            while first > session_start and keys[first - 1] == keys[done]:
                first -= 1
            if first > session_start:
                measured[done] = times[done] - times[first - 1]  # from leaving the previous item
            elif first < done:
                measured[done] = times[done] - times[first]  # first item of the session: from its first change
            else:
                measured[done] = None  # a bare Done opening a session: nothing to measure from
        session_start = index
    return measured


def throughput(changes: Iterable[Change], now: datetime) -> Throughput:
    """This week's figures from the history (``changes`` in any order; system users already left out).

    Linear in the changes after one sort by time: each person's changes are walked once, session by session.
    """
    now = now.astimezone(UTC)
    start = week_start(now)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    now_s, start_s, today_s = now.timestamp(), start.timestamp(), today.timestamp()
    rows = [(t, change) for change in changes if (t := parse_time(change.at).timestamp()) <= now_s]
    rows.sort(key=lambda row: row[0])
    taken_back = _taken_back(rows)
    by_user: dict[str, list[int]] = defaultdict(list)
    for index, (_t, change) in enumerate(rows):
        by_user[change.user].append(index)
    week: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    day: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    spent: dict[tuple[str, str], list[float]] = defaultdict(list)
    for name, indexes in by_user.items():
        times = [rows[i][0] for i in indexes]
        keys = [(rows[i][1].item_id, rows[i][1].lang) for i in indexes]
        dones = [n for n, i in enumerate(indexes) if rows[i][1].action == DONE]
        for n, seconds in _durations(times, keys, dones).items():
            at, change = rows[indexes[n]]
            if at < start_s or indexes[n] in taken_back:
                continue
            item = keys[n]
            for key in ((name, change.lang), (ALL, change.lang), (ALL, ALL)):
                week[key].add(item)
                if at >= today_s:
                    day[key].add(item)
                if seconds is not None:
                    spent[key].append(seconds)

    def row(key: tuple[str, str]) -> Row:
        measured = spent.get(key, [])
        median = statistics.median(measured) if measured else None
        return Row(key[0], key[1], len(day.get(key, ())), len(week.get(key, ())), median, len(measured))

    rows_out = tuple(row(key) for key in sorted(k for k in week if k[0] != ALL))
    langs = sorted({lang for (who, lang) in week if who != ALL})
    team = tuple(row((ALL, lang)) for lang in [*langs, ALL])
    # a rate over the days since the week's first change: a project started today is not averaged over Monday on
    first = next((t for t, _change in rows if t >= start_s), None)
    since = (
        None if first is None else datetime.fromtimestamp(first, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    )
    days = (today - (since or today)).days + 1
    return Throughput(rows_out, team, days, start, since)


def format_seconds(seconds: float | None) -> str:
    """``1 min 05 s`` / ``42 s`` / ``n/a``: how the page and the CSV show a time per item."""
    if seconds is None:
        return "n/a"
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"
