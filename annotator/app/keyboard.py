"""Every Curate action from the keyboard, with a legend on ``?``.

Streamlit's own shortcuts (``st.button(shortcut=…)``) take letters and modifiers only, not ``?`` or Enter inside a
text box, so a small script in a same-origin frame listens on the page: single keys act only when no text box has
the focus (Escape leaves a box), and Enter in an "Add to …" box presses its Add button. It only presses buttons and
focuses boxes the page already shows, so every change still goes through the same callbacks and services.
"""

from __future__ import annotations

import streamlit as st

#: (keys, what they do) — shown by the legend; the script below implements exactly these.
LEGEND: tuple[tuple[str, str], ...] = (
    ("g / b", "focus Add to GOOD / Add to BAD"),
    ("Enter (in an Add box)", "add the candidate"),
    ("Esc", "leave the text box (then single keys work again)"),
    (
        "1 … 9",
        "focus the Remove button of the n-th candidate (GOOD first, then BAD); Enter removes it, "
        "Shift+Tab reaches its Move button",
    ),
    ("d", "Done"),
    ("s", "DISCUSS: open the note"),
    ("x", "Discard: open the reason"),
    ("o", "Reopen"),
    ("n / p", "Next / Previous item (also Alt+N / Alt+P)"),
    ("u", "Undo your last change on this item (a new change in its history; u again redoes)"),
    ("?", "this legend"),
)
LEGEND_LABEL = "Keyboard shortcuts"

_SCRIPT = """<script type="text/plain" id="keys">
(() => {
  const win = window, doc = win.document;
  if (win.__annotatorKeys) return;
  win.__annotatorKeys = true;
  const main = () => doc.querySelector('[data-testid="stMain"]') || doc;
  // Streamlit marks each keyed widget's container with the class "st-key-<key>": find buttons by their keys.
  const keyed = (test) => {
    const found = [];
    for (const el of main().querySelectorAll('[class*="st-key-"]')) {
      for (const c of el.classList) {
        if (c.startsWith('st-key-') && test(c.slice(7))) {
          const b = el.querySelector('button');
          if (b && !b.disabled) found.push(b);
        }
      }
    }
    return found;
  };
  const press = (test) => { const b = keyed(test)[0]; if (b) { b.click(); return true; } return false; };
  const focusBox = (selector, tries = 20) => { const box = doc.querySelector(selector);
      if (box) { box.focus(); return; } if (tries > 0) setTimeout(() => focusBox(selector, tries - 1), 100); };
  const openExpander = (label, box) => {
      const summary = Array.from(main().querySelectorAll('summary')).find(s => s.textContent.includes(label));
      if (!summary) return false;
      if (!summary.parentElement.open) summary.click();
      focusBox(box); return true; };
  doc.addEventListener('keydown', (e) => {
    const t = e.target;
    const textInput = t && t.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'range']
                         .includes((t.getAttribute('type') || 'text').toLowerCase());
    const typing = t && (textInput || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
    if (typing) {
      const label = (t.getAttribute && t.getAttribute('aria-label')) || '';
      if (e.key === 'Enter' && t.tagName === 'INPUT' && label.startsWith('Add to ')) {
        const side = label.endsWith('GOOD') ? 'good' : 'bad';
        // Enter makes Streamlit take the typed value (a run); press Add once that run is over, so the two never race.
        const addWhenIdle = (tries) => {
          if (doc.querySelector('[data-testid="stStatusWidget"]') && tries > 0) {
            setTimeout(() => addWhenIdle(tries - 1), 30);
          } else { press(k => k.endsWith('-addbtn-' + side)); }
        };
        setTimeout(() => addWhenIdle(200), 80);
      } else if (e.key === 'Escape') { t.blur(); }
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    let done = false;
    if (e.key === 'g') { focusBox('input[aria-label="Add to GOOD"]'); done = true; }
    else if (e.key === 'b') { focusBox('input[aria-label="Add to BAD"]'); done = true; }
    else if (e.key === 'd') done = press(k => k.endsWith('-done'));
    else if (e.key === 'o') done = press(k => k.endsWith('-reopen'));
    else if (e.key === 'n') done = press(k => k === 'cur_next');
    else if (e.key === 'p') done = press(k => k === 'cur_prev');
    else if (e.key === 'u') done = press(k => k.endsWith('-undo'));
    else if (e.key === 's') done = openExpander('DISCUSS', 'textarea[aria-label="What should a lead look at?"]');
    else if (e.key === 'x') done = openExpander('Discard', 'input[aria-label="Note (required for \\'other\\')"]');
    else if (e.key === '?') done = press(k => k === 'cur_keys');
    else if (/^[1-9]$/.test(e.key)) {
      const target = keyed(k => /-remove-(good|bad)-/.test(k))[Number(e.key) - 1];
      if (target) { target.focus(); done = true; }
    }
    if (done) e.preventDefault();
  });
})();
</script>
<script>
  // Run the listener in the page's own realm: a function made in this frame would die when Streamlit replaces it.
  window.parent.Function(document.getElementById("keys").textContent)();
</script>"""


@st.dialog("Keyboard shortcuts")
def show_legend() -> None:
    st.table([{"keys": keys, "action": action} for keys, action in LEGEND])


def install() -> None:
    """The key listener (once per browser page) and the legend button."""
    st.iframe(_SCRIPT, height=1, width=1)


def legend_button(key: str) -> None:
    if st.button(LEGEND_LABEL, key=key, icon=":material/keyboard:", help="Or press ?"):
        show_legend()
