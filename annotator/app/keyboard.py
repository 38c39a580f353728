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
    ("paste several lines (in an Add box)", "add them all, one candidate per line: all or nothing, bad lines named"),
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
  const DISCARD_NOTE = 'input[aria-label="Note (required for \\'other\\')"]';
  const DISCUSS_NOTE = 'textarea[aria-label="What should a lead look at?"]';
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
  // Whether Streamlit is running the script (or a fragment): the app root carries the run state. An action that
  // acts on what the page shows waits for the run to finish, so it never hits a button or box about to be replaced
  // (Done pressed while the previous click is still redrawing, a key typed into the last item's box...).
  const app = () => doc.querySelector('[data-testid="stApp"]');
  const busy = () => { const a = app(); const s = a && a.getAttribute('data-test-script-state');
                       return s === 'running' || s === 'rerunRequested' || s === 'stopRequested'; };
  // Each action that makes Streamlit run waits until the run the previous one started has finished: clicks are
  // queued and played one at a time, each on the page as it is when its turn comes.
  const queue = [];
  let inflight = 0, sawBusy = false, watched = null, runsEnded = 0, wasBusy = false, lastChange = Date.now();
  const run = (action) => { if (action()) { inflight = Date.now(); sawBusy = busy(); } };
  const pump = () => {
    if (inflight && Date.now() - inflight > 4000) inflight = 0;  // a click that started no run at all
    while (queue.length && !inflight && !busy()) run(queue.shift());
  };
  const watch = () => {  // follow the run state as it changes (a short run is seen even between two polls)
    const a = app();
    if (!a || a === watched) return;
    watched = a;
    new MutationObserver(() => {
      lastChange = Date.now();
      if (busy()) { sawBusy = true; wasBusy = true; }
      else {
        if (wasBusy) runsEnded += 1;
        wasBusy = false;
        if (sawBusy) { inflight = 0; sawBusy = false; }
      }
      pump();
    }).observe(a, {attributes: true, attributeFilter: ['data-test-script-state']});
  };
  setInterval(() => { watch(); if (inflight && !busy() && !sawBusy && Date.now() - inflight > 400) inflight = 0;
                      pump(); }, 50);
  const act = (action) => { watch(); queue.push(action); pump(); return true; };
  // Keys typed while a g / b waits for a run to end go into the box once it has the focus, not to the shortcuts.
  let typingInto = null, typed = '', addAfter = false;
  const focusBox = (selector, tries = 40) => act(() => {
    const box = doc.querySelector(selector);
    if (!box || box.disabled) {
      if (tries > 0) setTimeout(() => focusBox(selector, tries - 1), 50); else typingInto = null;
      return false;
    }
    box.focus();
    if (typed) doc.execCommand('insertText', false, typed);
    const enter = addAfter;
    typingInto = null; typed = ''; addAfter = false;
    // then Enter, as if typed in the box: Streamlit takes the value, and the listener below presses Add
    if (enter) box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter', bubbles: true}));
    return false;  // focusing starts no run
  });
  const addFrom = (box) => {
    const label = box.getAttribute('aria-label') || '';
    const side = label.endsWith('GOOD') ? 'good' : 'bad';
    if (!box.value.trim()) return;
    // Streamlit takes the typed value on Enter (its own handler runs right after this one); the Add click follows
    // at once, carrying that value, and need not wait for the run the value started: the button is found by its
    // key (the item's own), and Streamlit folds a click made during a run into the next run, so Add runs once,
    // with the value. Only a click of ours still under way (Done, Next…) is waited for: the box may be stale.
    const text = box.value.trim();
    const add = () => press(k => k.endsWith('-addbtn-' + side));
    // Belt and braces: once the runs are over, a box still holding the same text with no error on the page means
    // the click was lost (a page redrawn under it on a loaded machine): press Add once more. The server refuses a
    // candidate already in the lists, so this can never add it twice.
    const verify = (deadline, since) => {  // after a run has ended and nothing has run for a while
      if (inflight || busy() || queue.length || runsEnded <= since || Date.now() - lastChange < 400) {
        if (Date.now() < deadline) setTimeout(() => verify(deadline, since), 50);
        return;
      }
      const now = doc.querySelector('input[aria-label="' + label + '"]');
      if (now && now.value.trim() === text && !main().querySelector('[data-testid="stAlertContentError"]')) act(add);
    };
    setTimeout(() => {
      watch();
      const since = runsEnded;
      if (!inflight && !queue.length) run(add); else act(add);
      verify(Date.now() + 10000, since);
    }, 0);
  };
  doc.addEventListener('keydown', (e) => {
    if (typingInto) {  // a box is about to get the focus: what is typed meanwhile is meant for it
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key.length === 1) typed += e.key;
      else if (e.key === 'Backspace') typed = typed.slice(0, -1);
      else if (e.key === 'Enter') addAfter = true;
      else if (e.key === 'Escape') { typingInto = null; typed = ''; addAfter = false; queue.length = 0; }
      else return;
      e.preventDefault(); e.stopPropagation();
      return;
    }
    const t = e.target;
    const textInput = t && t.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'range']
                         .includes((t.getAttribute('type') || 'text').toLowerCase());
    const typing = t && (textInput || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
    if (typing) {
      const label = (t.getAttribute && t.getAttribute('aria-label')) || '';
      if (e.key === 'Enter' && t.tagName === 'INPUT' && label.startsWith('Add to ') && !e.isComposing) addFrom(t);
      else if (e.key === 'Escape') t.blur();
      return;
    }
    if (e.key === 'Escape') {  // a dialog (the legend) that has not taken the focus yet still closes on Escape
      const dialog = doc.querySelector('[role="dialog"]');
      const close = dialog && !dialog.contains(t) && dialog.querySelector('button[aria-label="Close"]');
      if (close) { close.click(); e.preventDefault(); }
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const box = (side) => { typingInto = side; typed = ''; addAfter = false;
                            return focusBox('input[aria-label="Add to ' + side + '"]'); };
    let done = false;
    if (e.key === 'g') done = box('GOOD');
    else if (e.key === 'b') done = box('BAD');
    else if (e.key === 'd') done = act(() => press(k => k.endsWith('-done')));
    else if (e.key === 'o') done = act(() => press(k => k.endsWith('-reopen')));
    else if (e.key === 'n') done = act(() => press(k => k === 'cur_next'));
    else if (e.key === 'p') done = act(() => press(k => k === 'cur_prev'));
    else if (e.key === 'u') done = act(() => press(k => k.endsWith('-undo')));
    else if (e.key === 's') done = act(() => openExpander('DISCUSS', DISCUSS_NOTE));
    else if (e.key === 'x') done = act(() => openExpander('Discard', DISCARD_NOTE));
    else if (e.key === '?') done = act(() => press(k => k === 'cur_keys'));
    else if (/^[1-9]$/.test(e.key)) {
      const n = Number(e.key);
      // the candidate lists (annotator.app.candidate_rows): GOOD's rows come before BAD's in the page
      done = act(() => { const target = Array.from(main().querySelectorAll(
                           '.annotator-candidate button[data-action="remove"]')).filter(b => !b.disabled)[n - 1];
                         if (target) target.focus(); return false; });
    }
    if (done) e.preventDefault();
  }, true);
  // Several lines pasted into an Add box (a text box would glue them into one bogus candidate) go to that side's
  // "Paste several" box and are added together: all or nothing, every bad line named by the page.
  doc.addEventListener('paste', (e) => {
    const t = e.target;
    const label = (t && t.getAttribute && t.getAttribute('aria-label')) || '';
    if (!(t.tagName === 'INPUT' && label.startsWith('Add to '))) return;
    const text = (e.clipboardData && e.clipboardData.getData('text/plain')) || '';
    if (!/[\\r\\n]/.test(text.replace(/[\\r\\n]+$/, ''))) return;  // one line: an ordinary paste
    e.preventDefault(); e.stopPropagation();
    const side = label.endsWith('GOOD') ? 'GOOD' : 'BAD';
    const area = 'textarea[aria-label="' + side + ' candidates, one per line"]';
    act(() => openExpander('Paste several into ' + side, area));
    const fill = (tries) => act(() => {  // the box is drawn by the expander's run: wait for it
      const box = doc.querySelector(area);
      if (!box) { if (tries > 0) setTimeout(() => fill(tries - 1), 50); return false; }
      box.focus(); box.select();
      doc.execCommand('insertText', false, text);
      box.blur();  // Streamlit takes the value on blur; the click right after carries it (as with Enter above)
      setTimeout(() => { watch(); run(() => press(k => k.endsWith('-bulkbtn-' + side.toLowerCase()))); }, 0);
      return false;
    });
    fill(60);
  }, true);
  const openExpander = (label, selector) => {
    const summary = Array.from(main().querySelectorAll('summary')).find(s => s.textContent.includes(label));
    if (!summary) return false;
    const opening = !summary.parentElement.open;
    if (opening) summary.click();
    const focus = (tries) => { const el = doc.querySelector(selector);
      if (el) el.focus(); else if (tries > 0) setTimeout(() => focus(tries - 1), 50); };
    focus(60);
    return opening;  // opening the expander runs the script (its content is built only while open)
  };
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
