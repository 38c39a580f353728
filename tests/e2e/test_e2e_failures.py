"""Issue 31: an unexpected error shows the browser one plain message and a reference id — no file path, no SQL —
and the server's log has the detail under the same id. Real ``annotator serve``, real Chromium.

The error is a real one: the project's database loses a table the Curate page reads (a damaged or half-restored
database), which the app does not expect.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import log_in, new_context, serve_app, server_env
from playwright.sync_api import Browser, expect

from annotator.project import Project

pytestmark = pytest.mark.e2e
REFERENCE = re.compile(r"this reference: ([0-9A-F]{8})\.")


def test_an_unexpected_error_shows_a_reference_not_a_traceback(demo: Path, tmp_path: Path, chromium: Browser) -> None:
    data = demo
    log = tmp_path / "server.log"
    with (
        serve_app(data, server_env("ANNOTATOR_DATABASE_URL"), cwd=tmp_path, log=log) as url,
    ):
        context = new_context(chromium, 1440, 1400)
        try:
            page = context.new_page()
            page.goto(url)
            log_in(page, "translator", "demo-translator-pass")
            with Project.open(data).db.write() as conn:
                conn.exec_driver_sql("DROP TABLE comments")
            page.reload()
            message = page.get_by_text("Something went wrong on the server")
            expect(message).to_be_visible()
            found = REFERENCE.search(message.inner_text())
            assert found is not None
            shown = page.locator("body").inner_text()
            details = ("Traceback", 'File "', ".py", "SELECT", "sqlalchemy", "OperationalError", "comments", str(data))
            for detail in details:
                assert detail not in shown, detail
            expect(page.get_by_test_id("stException")).to_have_count(0)
        finally:
            context.close()
        logged = log.read_text(encoding="utf-8", errors="replace")
        assert f"unexpected error, reference {found.group(1)}" in logged
        assert "Traceback" in logged and "no such table: comments" in logged
