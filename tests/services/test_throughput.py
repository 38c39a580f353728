"""Throughput for leads (issue 21): figures computed from a known history — the pure computation, the service
reading a real database (tools' changes left out, leads only, CSV cells kept as text) and the Review page."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from app_helpers import logged_in

from annotator.domain.model import Role
from annotator.domain.throughput import ALL, Change, Row, format_seconds, throughput, week_start
from annotator.errors import PermissionDenied
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.throughput import team_throughput, throughput_csv
from annotator.store import schema

NOW = datetime(2026, 11, 25, 15, 0, tzinfo=UTC)  # a Wednesday: the week began on Monday 23


def at(day: int, time: str) -> str:
    return f"2026-11-{day:02d}T{time}.000000+00:00"


#: (user, item, lang, day, time, action); the expected figures are worked out in the comments.
HISTORY = [
    # ana, ES, Monday: A from its first change (first item of the session) 09:00 → 09:03 = 180 s
    ("ana", "A", "ES", 23, "09:00:00", "add"),
    ("ana", "A", "ES", 23, "09:02:00", "remove"),
    ("ana", "A", "ES", 23, "09:03:00", "done"),
    # B from her last change on A (09:03) to its Done (09:07) = 240 s
    ("ana", "B", "ES", 23, "09:05:00", "add"),
    ("ana", "B", "ES", 23, "09:07:00", "done"),
    # 53 minutes later: a new session opened by a bare Done — counted, not timed
    ("ana", "C", "ES", 23, "10:00:00", "done"),
    # Wednesday (today): D 14:00 → 14:01:30 = 90 s; E done and undone at once: not counted, not timed
    ("ana", "D", "ES", 25, "14:00:00", "add"),
    ("ana", "D", "ES", 25, "14:01:30", "done"),
    ("ana", "E", "ES", 25, "14:02:00", "done"),
    ("ana", "E", "ES", 25, "14:02:10", "undo"),
    # bo, IT: a session across Monday 00:00 — F from Sunday 23:50 to 00:10 = 1200 s, G 00:10 → 00:20 = 600 s
    ("bo", "F", "IT", 22, "23:50:00", "add"),
    ("bo", "F", "IT", 23, "00:10:00", "done"),
    ("bo", "G", "IT", 23, "00:20:00", "done"),
    # bo, DE: last Friday's Done is not this week's; today's bare Done is counted, not timed
    ("bo", "I", "DE", 20, "11:00:00", "done"),
    ("bo", "H", "DE", 25, "13:00:00", "done"),
    # ana marks A done again this week after a reopen: still one item
    ("ana", "A", "ES", 25, "14:30:00", "reopen"),
    ("ana", "A", "ES", 25, "14:31:00", "done"),
]


def changes() -> list[Change]:
    return [Change(item, lang, user, at(day, time), action) for user, item, lang, day, time, action in HISTORY]


def test_week_starts_on_monday_utc() -> None:
    assert week_start(NOW) == datetime(2026, 11, 23, tzinfo=UTC)


def test_throughput_of_a_known_history() -> None:
    figures = throughput(reversed(changes()), NOW)  # any order
    # ana's A today: from her last change on another item (E's undo, 14:02:10) to 14:31 = 28 min 50 s = 1730 s
    assert figures.rows == (
        Row("ana", "ES", 2, 4, 210.0, 4),  # A (again) and D today; A B C D this week; timed 90 180 240 1730
        Row("bo", "DE", 1, 1, None, 0),
        Row("bo", "IT", 0, 2, 900.0, 2),  # median of 1200 and 600
    )
    team = {row.lang: row for row in figures.team}
    assert [row.lang for row in figures.team] == ["DE", "ES", "IT", ALL]
    assert team[ALL].done_week == 7 and team[ALL].done_today == 3
    assert team[ALL].median_seconds == 420.0  # of 90 180 240 600 1200 1730
    assert figures.days == 3 and figures.rate() == pytest.approx(7 / 3)
    assert figures.rate("IT") == pytest.approx(2 / 3)


def test_changes_after_now_are_not_counted_and_times_read_well() -> None:
    figures = throughput(changes(), datetime(2026, 11, 23, 9, 4, tzinfo=UTC))
    assert figures.rows == (Row("ana", "ES", 1, 1, 180.0, 1), Row("bo", "IT", 2, 2, 900.0, 2))
    assert figures.days == 1
    assert [format_seconds(s) for s in (None, 42.4, 65, 1730)] == ["n/a", "42 s", "1 min 05 s", "28 min 50 s"]


@pytest.fixture
def demo(app_demo: Path) -> Project:
    return Project.open(app_demo)


def write_history(project: Project, rows: list[tuple[str, str, str, int, str, str]]) -> None:
    with project.db.write() as conn:
        conn.execute(
            schema.history.insert(),
            [
                {"item_id": item, "lang": lang, "user": user, "at": at(day, time), "action": action, "version": 1}
                for user, item, lang, day, time, action in rows
            ],
        )


@pytest.mark.both_engines
def test_the_service_reads_the_week_from_the_database_for_leads_only(demo: Project) -> None:
    lead = add_user(demo, "lena", Role.LEAD, (), "lead-password")
    translator = add_user(demo, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    tool = [("system:prepopulate", "X", "IT", 25, "10:00:00", "done")]  # a tool is nobody's throughput
    formula = [("-2+3", "Y", "IT", 24, "10:00:00", "add"), ("-2+3", "Y", "IT", 24, "10:01:00", "done")]
    write_history(demo, [*HISTORY, *tool, *formula])
    figures = team_throughput(demo, lead, NOW)
    assert [row.user for row in figures.rows] == ["-2+3", "ana", "bo", "bo"]  # demo's own history is older
    with pytest.raises(PermissionDenied):
        team_throughput(demo, translator, NOW)
    table = list(csv.DictReader(io.StringIO(throughput_csv(figures))))
    assert table[0]["user"] == "'-2+3"  # a spreadsheet shows it as text, never runs it
    assert table[0]["median time per item (s)"] == "60" and table[0]["done this week"] == "1"
    assert table[-1] == {
        "user": "ALL",
        "lang": "ALL",
        "done today": "3",
        "done this week": "8",
        "median time per item (s)": "240",  # of 60 90 180 240 600 1200 1730
        "items timed": "7",
    }


def test_the_review_page_shows_the_throughput_and_offers_the_csv(demo: Project) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    stamp = now.isoformat()
    with demo.db.write() as conn:
        conn.execute(
            schema.history.insert(),
            [
                {"item_id": "shot-whiskey", "lang": "IT", "user": "translator", "at": stamp, "action": "done",
                 "version": 9},
            ],
        )  # fmt: skip
    lead = logged_in("lead", "demo-lead-pass")
    lead.switch_page("pages/review.py").run()
    lead.session_state["rev_tab"] = "Progress"
    lead.run()
    assert not lead.exception, lead.exception
    table = next(d.value for d in lead.dataframe if "done this week" in d.value.columns)
    row = table[(table["translator"] == "translator") & (table["lang"] == "IT")].iloc[0]
    assert row["done today"] == 1 and row["done this week"] == 1
    assert any("items/day" in m.value for m in lead.markdown)
    assert "Download throughput (CSV)" in [b.label for b in lead.get("download_button")]


def test_a_project_started_today_is_rated_over_one_day() -> None:
    """Issue 34: "1.2 items/day over 4 day(s)" on a project started on Thursday — the rate counts from the week's
    first change, not from Monday."""
    thursday = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)
    started = [Change(f"item-{n}", "IT", "ana", f"2026-11-26T1{n}:00:00+00:00", "done") for n in range(5)]
    figures = throughput(started, thursday)
    assert figures.days == 1 and figures.rate() == pytest.approx(5.0)
    assert figures.since == datetime(2026, 11, 26, tzinfo=UTC)
