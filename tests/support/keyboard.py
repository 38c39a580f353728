"""The Curate work area from the keyboard in Chromium: counted key presses, where the sentence arrives, feedback."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

from browser import log_in
from playwright.sync_api import Page, expect

from annotator.project import Project


class Keys:
    """The keyboard, counting every command key (typing a candidate's text is not counted, as the issue asks)."""

    def __init__(self, page: Page) -> None:
        self.page, self.presses = page, 0

    def press(self, key: str) -> None:
        self.presses += 1
        self.page.keyboard.press(key)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)


def item_of(page: Page) -> str:
    return parse_qs(urlparse(page.url).query)["item"][0]


def check_arrival(page: Page) -> None:
    where = page.evaluate(ARRIVAL_JS)
    assert where["top"] >= 0 and where["bottom"] <= where["height"], where
    assert not where["covered"], where  # nothing fixed (Streamlit's toolbar) over the sentence
    assert where["inArea"] and not where["typing"], where  # the cursor on the work area: single keys act at once


def check_feedback(page: Page, text: str) -> None:
    expect(page.locator(".ca [role=status], .ca [role=alert]").filter(has_text=text)).to_be_visible()
    shown = [f for f in page.evaluate(FEEDBACK_JS) if text in f["text"]]
    assert shown and all(f["top"] >= 0 and f["bottom"] <= f["height"] for f in shown), shown


def state_of(demo_dir: Path, item: str) -> tuple[object, list[tuple[str, str]]]:
    project = Project.open(demo_dir)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, "IT")
        history = [(h.user, h.action) for h in project.repo.history(conn, item, "IT")]
    return state, history


def log_in_translator(page: Page, url: str) -> None:
    page.goto(url)
    log_in(page, "translator", "demo-translator-pass")
    expect(page.get_by_text("Item 1 of 18")).to_be_visible()


#: Where the sentence is, whether the point at its middle is the sentence itself (not a fixed bar over it), and the
#: label of the focused element.
ARRIVAL_JS = """() => {
  const s = document.querySelector('[data-testid="item-sentence"]');
  const r = s.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + Math.min(r.width, 40) / 2, r.top + r.height / 2);
  const a = document.activeElement;
  const typing = Boolean(a) && (['TEXTAREA', 'SELECT'].includes(a.tagName) || a.isContentEditable
    || (a.tagName === 'INPUT'
        && !['checkbox', 'radio', 'button', 'submit'].includes((a.type || 'text').toLowerCase())));
  return {top: r.top, bottom: r.bottom, height: window.innerHeight, covered: !(hit && s.contains(hit)),
          focused: a && (a.getAttribute('aria-label') || a.tagName), typing,
          inArea: Boolean(a && a.closest && a.closest('.ca'))};
}"""


FEEDBACK_JS = """() => Array.from(document.querySelectorAll('.ca [role="status"], .ca [role="alert"]'))
  .filter(e => e.textContent.trim()).map(e => { const r = e.getBoundingClientRect();
    return {text: e.textContent, top: r.top, bottom: r.bottom, height: window.innerHeight}; })"""
