"""The name of a language's curation spreadsheet, apart from ``spreadsheet`` so that a page offering the download
names the file without loading the workbook library."""

from __future__ import annotations

from datetime import UTC, datetime


def sheet_file_name(lang: str, created: datetime | None = None) -> str:
    created = created or datetime.now(UTC)
    return f"sheet-{lang.upper()}-{created.strftime('%Y%m%d-%H%M%SZ')}.xlsx"
