"""Evaluate page (leads): its code is ``evaluate_view``, imported once per server.

Streamlit runs a page script anew on every rerun — its module body executed each time, and compiled each time under
``AppTest`` — so this one only calls ``render`` and every rerun reuses the imported module.
"""

from __future__ import annotations

from annotator.app.pages.evaluate_view import BUNDLED, DEMO_TRANSLATIONS, UPLOAD, UPLOADED, render

__all__ = ["BUNDLED", "DEMO_TRANSLATIONS", "UPLOAD", "UPLOADED", "render"]

if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
