"""One GOOD or BAD candidate list as a single Streamlit element (a components v2 component in the page's DOM).

Each row used to be four Streamlit elements (a horizontal container, the text, a Move and a Remove button): with
~76 rows a run redrew ~300 elements, and the browser spent most of an add's time on them (issue 8: add → row
visible ≤ 150 ms). Here a list is one element whose constant script builds the rows from the component's data
with ``textContent`` and ``title`` (never markup from data), so candidates, provenance and tooltips are shown
literally. The rows keep the old look: the candidate in code, its provenance, everything in the tooltip, never
wrapping, the buttons in a fixed column; Move and Remove are real ``<button>`` elements with accessible names.

A click sends ``{action, key, version}`` (the version the page showed) as the component's ``action`` trigger;
Streamlit runs ``row_action`` as its callback before the fragment runs again, and that makes the same
``CurationService`` call through ``components._move`` / ``_remove`` as the old buttons did, so a stale page is
refused by the service's version check. A read-only list draws disabled buttons and its callback ignores clicks
(as Streamlit ignores a forged click on a disabled ``st.button``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from annotator.app.safe_text import visible_controls

COMPONENT_NAME = "annotator_candidate_rows"
#: The trigger the script sets on a click; the callback is ``on_action_change``.
EVENT = "action"
ACTIONS = ("move", "remove")

#: The rows' look (the component is mounted without a shadow root, so the page's styles and scripts reach it and
#: these rules are scoped by class). Colours, fonts and radii come from the theme's ``--st-*`` properties.
CSS = """
.annotator-candidates { display: flex; flex-direction: column; gap: .5rem; min-width: 0;
                        font-family: var(--st-font); color: var(--st-text-color); }
.annotator-heading { margin: 0 0 .5rem; padding: .75rem 0 .5rem; font-family: var(--st-heading-font);
                     font-size: var(--st-heading-font-size-3); font-weight: var(--st-heading-font-weight-3);
                     line-height: 1.2; color: var(--st-heading-color); border-bottom: 2px solid; }
.annotator-heading.annotator-good { border-bottom-color: var(--st-green-color); }
.annotator-heading.annotator-bad { border-bottom-color: var(--st-red-color); }
.annotator-rows { display: flex; flex-direction: column; gap: .5rem; min-width: 0; }
.annotator-candidate { display: flex; align-items: center; gap: .5rem; min-width: 0; }
.annotator-row { flex: 1 1 0; display: flex; align-items: baseline; gap: .6rem; min-width: 0; white-space: nowrap;
                 overflow: hidden; line-height: 1.6; }
.annotator-row code { flex: 0 1 auto; min-width: 3rem; overflow: hidden; text-overflow: ellipsis; font-size: .875em;
                      font-family: var(--st-code-font); padding: .1em .3em; border-radius: .25rem;
                      background: rgba(128, 128, 128, .12); }
.annotator-row .annotator-prov { flex: 0 1000 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis;
                                 font-size: .8rem; opacity: .6; }
.annotator-candidate button { flex: none; display: inline-flex; align-items: center; justify-content: center;
  min-height: 2.5rem; padding: .25rem .75rem; margin: 0; font: inherit; font-size: var(--st-base-font-size);
  line-height: 1.6; color: inherit; background: var(--st-background-color); cursor: pointer;
  border: 1px solid var(--st-border-color); border-radius: var(--st-button-radius); }
.annotator-candidate button:hover:not(:disabled) { border-color: var(--st-primary-color);
                                                   color: var(--st-primary-color); }
.annotator-candidate button:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 1px; }
.annotator-candidate button:disabled { opacity: .4; cursor: not-allowed; }
.annotator-candidate svg { width: 1.25rem; height: 1.25rem; fill: currentColor; }
.annotator-empty, .annotator-removed { font-size: .875rem; opacity: .6; }
.annotator-removed code { font-family: var(--st-code-font); font-size: .875em; padding: .1em .3em;
                          border-radius: .25rem; background: rgba(128, 128, 128, .12); }
"""

#: Builds the rows from ``data`` (see ``row_data``) with DOM calls only: text goes in through ``textContent`` and
#: ``title``, so nothing from the data is ever parsed as markup. Called again with new data on every change; one
#: click listener on the list sends the clicked button's action with the version the page showed.
JS = """
const SVG = 'http://www.w3.org/2000/svg';
const TRASH = 'M280-120q-33 0-56.5-23.5T200-200v-520h-40v-80h200v-40h240v40h200v80h-40v520q0 33-23.5 56.5T680-120H280Z'
  + 'm400-600H280v520h400v-520ZM360-280h80v-360h-80v360Zm160 0h80v-360h-80v360ZM280-720v520-520Z';
const el = (tag, className) => { const node = document.createElement(tag); if (className) node.className = className;
                                 return node; };
const trash = () => {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 -960 960 960');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', TRASH);
  svg.appendChild(path);
  return svg;
};
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(':scope > .annotator-candidates');
  if (!root) {
    root = el('div', 'annotator-candidates');
    parentElement.appendChild(root);
    root.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action]');
      if (!button || button.disabled || !root.contains(button)) return;
      root.annotatorSend('action', {action: button.dataset.action, key: button.dataset.key,
                                    version: root.annotatorVersion});
    });
  }
  root.annotatorSend = setTriggerValue;
  root.annotatorVersion = data.version;
  const focused = root.contains(document.activeElement) ? document.activeElement : null;
  const keep = focused && focused.dataset ? [focused.dataset.action, focused.dataset.key] : null;
  const heading = el('h3', 'annotator-heading annotator-' + data.side.toLowerCase());
  heading.textContent = data.heading;
  const list = el('div', 'annotator-rows');
  let refocus = null;
  for (const [key, text, line, title] of data.rows) {
    const row = el('div', 'annotator-candidate');
    const label = el('div', 'annotator-row');
    label.dir = 'auto';
    label.title = title;
    const code = el('code');
    code.textContent = text;
    const prov = el('span', 'annotator-prov');
    prov.textContent = line;
    label.append(code, prov);
    const move = el('button');
    move.type = 'button';
    move.dataset.action = 'move';
    move.dataset.key = key;
    move.textContent = '\u2192 ' + data.other;
    move.setAttribute('aria-label', 'Move ' + text + ' to ' + data.other);
    move.title = 'Move to ' + data.other;
    const remove = el('button');
    remove.type = 'button';
    remove.dataset.action = 'remove';
    remove.dataset.key = key;
    remove.appendChild(trash());
    remove.setAttribute('aria-label', 'Remove ' + text + ' from ' + data.side);
    remove.title = 'Remove from ' + data.side;
    move.disabled = remove.disabled = Boolean(data.disabled);
    row.append(label, move, remove);
    list.appendChild(row);
    if (keep && keep[1] === key) refocus = keep[0] === 'move' ? move : remove;
  }
  if (!data.rows.length) { const empty = el('div', 'annotator-empty'); empty.textContent = '(empty)';
                           list.appendChild(empty); }
  const parts = [heading, list];
  if (data.removed.length) {
    const removed = el('div', 'annotator-removed');
    removed.append("Removed from the lexicon's suggestions: ");
    data.removed.forEach((text, index) => {
      if (index) removed.append(', ');
      const code = el('code');
      code.textContent = text;
      removed.appendChild(code);
    });
    parts.push(removed);
  }
  root.replaceChildren(...parts);
  if (refocus && !refocus.disabled) refocus.focus();
}
"""

_mount = st.components.v2.component(COMPONENT_NAME, css=CSS, js=JS, isolate_styles=False)


Row = tuple[str, str, str, str]


def row_data(
    heading: str, rows: list[Row], removed: list[str], side: str, other: str, version: int, disabled: bool
) -> dict[str, Any]:
    """The component's data: the list's heading, ``rows`` as (key, candidate, provenance line, tooltip) and the
    lexicon's suggestions no longer listed, invisible characters made visible as everywhere else
    (``safe_text.visible_controls``); the script shows all of it as text only."""
    return {
        "heading": heading,
        "side": side,
        "other": other,
        "version": version,
        "disabled": disabled,
        "rows": [[key, *map(visible_controls, shown)] for key, *shown in rows],
        "removed": [visible_controls(text) for text in removed],
    }


def clicked(key: str) -> tuple[str, str, int] | None:
    """In the callback: the click the list with this ``key`` sent, as (action, candidate key, version the page
    showed), or None when the event is not one the script sends (a forged or malformed message does nothing)."""
    value = st.session_state.get(key)
    event = value.get(EVENT) if isinstance(value, Mapping) else None
    if not isinstance(event, Mapping):
        return None
    action, candidate, version = event.get("action"), event.get("key"), event.get("version")
    if action not in ACTIONS or not isinstance(candidate, str) or type(version) is not int:
        return None
    return str(action), candidate, version


def render(key: str, data: dict[str, Any], on_click: Callable[[], None]) -> None:
    """Mount the list (one element); ``on_click`` runs before the next run when a button was clicked."""
    _mount(key=key, data=data, on_action_change=on_click)
