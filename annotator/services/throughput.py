"""Throughput for leads (Review → Progress): this week's history read once, figures from ``domain.throughput``.

Only the history since the day before this week's Monday is read (one query over ``history``, rows as plain
``Change`` records), so the cost follows one week's work, not the project's age. The figures are cached per
change of the data and per UTC day, like the other read-model tables. Changes by tools (``system:…``) are left out.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from annotator.context import ProjectContext
from annotator.domain.model import User
from annotator.domain.output_text import is_formula_like  # not via spreadsheet: no openpyxl on the Review page
from annotator.domain.throughput import Change, Throughput, format_seconds, read_since, throughput
from annotator.domain.workflow import check_lead
from annotator.services.read_model import data_version
from annotator.versioned_cache import VersionedCache

#: Per project: this week's figures at the current data version and UTC day, and the one before.
_figures: VersionedCache[Throughput] = VersionedCache(keep=2)
CSV_COLUMNS = ("user", "lang", "done today", "done this week", "median time per item (s)", "items timed")


def changes_since(project: ProjectContext, since: datetime) -> list[Change]:
    """The history rows from ``since`` on (people's changes only), as plain records."""
    with project.db.read() as conn:
        return project.repo.changes_since(conn, since.astimezone(UTC).isoformat(timespec="microseconds"))


def team_throughput(project: ProjectContext, user: User, now: datetime | None = None) -> Throughput:
    """This week's throughput per person and language; for leads only (it names everyone's pace)."""
    check_lead(user, "see the team's throughput")
    now = datetime.now(UTC) if now is None else now.astimezone(UTC)
    scope = (str(project.data_dir), project.db.engine.url.render_as_string())
    version = (data_version(project), now.date())
    return _figures.get(scope, version, lambda: throughput(changes_since(project, read_since(now)), now))


def _cell(text: str) -> str:
    """A name a spreadsheet would run as a formula (``-cmd``, ``=…``) is kept as text by a leading apostrophe."""
    return "'" + text if is_formula_like(text) else text


def throughput_csv(figures: Throughput) -> str:
    """The per-person rows, then the team's rows (user ``ALL``); times in whole seconds, empty when not measured."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in (*figures.rows, *figures.team):
        median = "" if row.median_seconds is None else str(round(row.median_seconds))
        writer.writerow([_cell(row.user), _cell(row.lang), row.done_today, row.done_week, median, row.measured])
    return out.getvalue()


__all__ = ["Throughput", "changes_since", "format_seconds", "team_throughput", "throughput_csv"]
