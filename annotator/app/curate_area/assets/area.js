// The Curate work area (annotator.app.curate_area): fills area.html from the element's data and owns focus and keys.
//
// Text from the data goes into the page through textContent, title and value only (never parsed as markup).
// Events go out one at a time through the "event" trigger; the next waits until the data acknowledges the last
// (data.ack), so two quick actions never overwrite each other. Single-key shortcuts act only when no text field has
// the focus, and not at all when the user turned them off (WCAG 2.1.4; the choice is kept in localStorage); inside
// fields only Enter, Esc and modified keys act. The rows are a grid with a roving tabindex (one row per list in the
// Tab order, its Move and Remove buttons too); the feedback boxes are live regions present before their text. After
// every action the focus lands where the data says, never in a text box unless the user asked for one (g, b, s, x)
// or must fix what they typed: on a new item the list cursor (its first suggestion when GOOD is empty), after an
// add the row just added (g adds another word, l goes to BAD, d is Done), after a refused add the Add box.
//
// The data is checked against the protocol's JSON Schema (SCHEMA below, generated from Python's types) before
// anything of it is drawn: data of another version of the app, or of another shape, is said in place of the work
// area (reload the page) instead of being drawn half right.

const SVG = 'http://www.w3.org/2000/svg';
const TRASH = 'M280-120q-33 0-56.5-23.5T200-200v-520h-40v-80h200v-40h240v40h200v80h-40v520q0 33-23.5 56.5T680-120H280Z'
  + 'm400-600H280v520h400v-520ZM360-280h80v-360h-80v360Zm160 0h80v-360h-80v360ZM280-720v520-520Z';
const LEGEND = [
  ['(on arrival)', 'the cursor is on the first GOOD candidate (the first suggestion when GOOD is empty): no text box has the caret, so every key below acts at once'],
  ['g / b', 'type in Add to GOOD / Add to BAD'],
  ['Enter (in an Add box)', 'add the candidate; several pasted lines are added together (all or nothing). The cursor then goes to the row just added (g adds another, l goes to BAD, d is Done); a refused add stays in the box'],
  ['Esc', 'leave a text box or close a panel (then single keys work again)'],
  ['j / k or ↓ / ↑', 'move the cursor through the GOOD, then the BAD candidates, then the suggestions'],
  ['h / l or ← / →', 'jump the cursor to the GOOD / BAD list'],
  ['1 … 9', 'put the cursor on that row of the list it is in (3: the third candidate)'],
  ['Tab', 'reach every row\'s Move and Remove buttons'],
  ['Delete or r', 'remove the candidate under the cursor'],
  ['m', 'move the candidate under the cursor to the other list'],
  ['f', 'jump the cursor to the first suggestion (below the lists, "N suggestions below — f" says so when they are out of view; on arrival it is there when GOOD is empty)'],
  ['+ (on a suggestion)', 'accept it into GOOD (a BAD candidate suggested for GOOD moves there)'],
  ['- (on a suggestion)', 'accept it into BAD'],
  ['Enter (on a suggestion)', 'accept it into the list it is suggested for'],
  ['Delete or r (on a suggestion)', 'dismiss it: it is not suggested to you on this item again'],
  ['d', 'Done'],
  ['s', 'DISCUSS: write a note for a lead (Ctrl+Enter sends)'],
  ['x', 'Discard: choose a reason with ↓ / ↑, Enter confirms (for "other", Enter goes to the note, then Enter confirms)'],
  ['o', 'Reopen'],
  ['u', 'Undo your last change on this item, or your Done / Discard on the item just left (by Next item after Done or by n / p; u again redoes); right after a dismissal, bring the suggestion back'],
  ['n / p (Alt+N / Alt+P anywhere)', 'Next / Previous item'],
  ['a', 'turn "Next item after Done" on or off'],
  ['?', 'this legend'],
  ['"Single-key shortcuts" off', 'only Alt+N / Alt+P, arrows, Delete, Enter and Esc act; letters and digits type nothing'],
];
const SINGLE_KEYS = 'annotator-single-key-shortcuts';
// protocol:begin
const SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:annotator:work-area:5", "title": "The work area's protocol: the data Python sends, and the events the script sends back", "version": 5, "$ref": "#/$defs/AreaData", "$defs": {"AcceptEvent": {"description": "A suggestion taken into ``side``.", "type": "object", "properties": {"type": {"const": "accept"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "side": {"enum": ["good", "bad"]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "side", "text"], "additionalProperties": false}, "Action": {"description": "A button: whether it shows, whether it acts, and its tooltip (what it does, or why it cannot).", "type": "object", "properties": {"shown": {"type": "boolean"}, "enabled": {"type": "boolean"}, "tip": {"type": "string"}}, "required": ["enabled", "shown", "tip"], "additionalProperties": false}, "Actions": {"type": "object", "properties": {"done": {"$ref": "#/$defs/Action"}, "undo": {"$ref": "#/$defs/Action"}, "discuss": {"$ref": "#/$defs/Action"}, "discard": {"$ref": "#/$defs/Action"}, "reopen": {"$ref": "#/$defs/Action"}}, "required": ["discard", "discuss", "done", "reopen", "undo"], "additionalProperties": false}, "AddEvent": {"description": "A candidate typed into ``side``'s Add box.", "type": "object", "properties": {"type": {"const": "add"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "side": {"enum": ["good", "bad"]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "side", "text"], "additionalProperties": false}, "AddManyEvent": {"description": "Several pasted lines added together (all or nothing).", "type": "object", "properties": {"type": {"const": "add_many"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "side": {"enum": ["good", "bad"]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "side", "text"], "additionalProperties": false}, "AdvanceEvent": {"description": "The page's \"Next item after Done\" turned on or off.", "type": "object", "properties": {"type": {"const": "advance"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "on": {"type": "boolean"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "on"], "additionalProperties": false}, "AreaData": {"description": "Everything the element draws for one item-language or copy (text only: the script never parses markup).", "type": "object", "properties": {"protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "editable": {"type": "boolean"}, "locked": {"type": "string"}, "advance": {"type": "boolean"}, "nav": {"$ref": "#/$defs/Nav"}, "card": {"$ref": "#/$defs/Card"}, "actions": {"$ref": "#/$defs/Actions"}, "lists": {"$ref": "#/$defs/Lists"}, "suggestions": {"$ref": "#/$defs/Suggestions"}, "placeholders": {"$ref": "#/$defs/Placeholders"}, "reasons": {"type": "array", "items": {"$ref": "#/$defs/ReasonChoice"}}, "scope": {"type": "string"}, "login": {"type": "string"}, "check": {"anyOf": [{"$ref": "#/$defs/Check"}, {"type": "null"}]}, "feedback": {"anyOf": [{"$ref": "#/$defs/Feedback"}, {"type": "null"}]}, "ack": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "comments": {"$ref": "#/$defs/Comments"}, "history": {"$ref": "#/$defs/History"}}, "required": ["ack", "actions", "advance", "card", "check", "comments", "editable", "feedback", "history", "item", "lang", "lists", "locked", "login", "nav", "placeholders", "protocol", "reasons", "scope", "suggestions", "version"], "additionalProperties": false}, "CandidateList": {"description": "One of GOOD / BAD; ``empty`` says why it is empty (\"\" when it is not, or nothing was recorded).", "type": "object", "properties": {"heading": {"type": "string"}, "side": {"type": "string"}, "other": {"type": "string"}, "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}}, "removed": {"type": "array", "items": {"type": "string"}}, "empty": {"type": "string"}}, "required": ["empty", "heading", "other", "removed", "rows", "side"], "additionalProperties": false}, "Card": {"description": "The item card: sentence with the target marked (``start``/``end``), sense, senses, notices, translations.", "type": "object", "properties": {"title": {"type": "string"}, "status": {"type": "string"}, "status_label": {"type": "string"}, "sentence": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"}, "sense": {"type": "array", "items": {"$ref": "#/$defs/SensePart"}}, "gloss": {"type": "string"}, "senses_title": {"type": "string"}, "senses": {"type": "array", "items": {"$ref": "#/$defs/SenseLine"}}, "notices": {"type": "array", "items": {"$ref": "#/$defs/Notice"}}, "translation": {"anyOf": [{"$ref": "#/$defs/Translation"}, {"type": "null"}]}, "mt": {"type": "array", "items": {"$ref": "#/$defs/MtLine"}}}, "required": ["end", "gloss", "mt", "notices", "sense", "senses", "senses_title", "sentence", "start", "status", "status_label", "title", "translation"], "additionalProperties": false}, "Check": {"description": "What the text typed in an Add box would add (``scope``: the page it was typed on).", "type": "object", "properties": {"scope": {"type": "string"}, "side": {"type": "string"}, "text": {"type": "string"}, "kind": {"enum": ["ok", "error"]}, "message": {"type": "string"}, "hint": {"type": "string"}}, "required": ["hint", "kind", "message", "scope", "side", "text"], "additionalProperties": false}, "CheckEvent": {"description": "The text typed in an Add box, to check (nothing is saved).", "type": "object", "properties": {"type": {"const": "check"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "side": {"enum": ["good", "bad"]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "side", "text"], "additionalProperties": false}, "Clear": {"description": "Empty this box if it still holds this text (the text was saved).", "type": "object", "properties": {"field": {"type": "string"}, "text": {"type": "string"}}, "required": ["field", "text"], "additionalProperties": false}, "CommentEvent": {"description": "A comment added to the item-language.", "type": "object", "properties": {"type": {"const": "comment"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "text"], "additionalProperties": false}, "CommentRow": {"type": "object", "properties": {"who": {"type": "string"}, "when": {"type": "string"}, "text": {"type": "string"}}, "required": ["text", "when", "who"], "additionalProperties": false}, "Comments": {"type": "object", "properties": {"title": {"type": "string"}, "rows": {"type": "array", "items": {"$ref": "#/$defs/CommentRow"}}, "may_post": {"type": "boolean"}, "shown": {"type": "boolean"}, "open": {"type": "boolean"}}, "required": ["may_post", "open", "rows", "shown", "title"], "additionalProperties": false}, "DiscardEvent": {"description": "Discarded with a reason (\"\": none chosen, which the service refuses) and a note.", "type": "object", "properties": {"type": {"const": "discard"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "reason": {"anyOf": [{"enum": ["idiom", "proper_noun", "insufficient_context", "other"]}, {"enum": [""]}]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "reason", "text"], "additionalProperties": false}, "DiscussEvent": {"description": "The item-language sent to discussion with a note.", "type": "object", "properties": {"type": {"const": "discuss"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "text"], "additionalProperties": false}, "DismissEvent": {"description": "A suggestion turned down (``side``: the list it was suggested for).", "type": "object", "properties": {"type": {"const": "dismiss"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "side": {"enum": ["good", "bad"]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "side", "text"], "additionalProperties": false}, "DoneEvent": {"description": "The item-language marked done.", "type": "object", "properties": {"type": {"const": "done"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq"], "additionalProperties": false}, "Event": {"oneOf": [{"$ref": "#/$defs/AddEvent"}, {"$ref": "#/$defs/AddManyEvent"}, {"$ref": "#/$defs/RemoveEvent"}, {"$ref": "#/$defs/MoveEvent"}, {"$ref": "#/$defs/DoneEvent"}, {"$ref": "#/$defs/DiscussEvent"}, {"$ref": "#/$defs/DiscardEvent"}, {"$ref": "#/$defs/ReopenEvent"}, {"$ref": "#/$defs/UndoEvent"}, {"$ref": "#/$defs/NextEvent"}, {"$ref": "#/$defs/PreviousEvent"}, {"$ref": "#/$defs/CommentEvent"}, {"$ref": "#/$defs/CheckEvent"}, {"$ref": "#/$defs/AdvanceEvent"}, {"$ref": "#/$defs/AcceptEvent"}, {"$ref": "#/$defs/DismissEvent"}]}, "Feedback": {"description": "What the last event did, shown ``where`` the eyes are; the focus then goes to ``focus``.", "type": "object", "properties": {"id": {"type": "string"}, "kind": {"enum": ["info", "success", "error"]}, "text": {"type": "string"}, "where": {"type": "string"}, "focus": {"type": "string"}, "clear": {"$ref": "#/$defs/Clear"}, "close": {"type": "string"}, "scope": {"type": "string"}}, "required": ["focus", "id", "kind", "text", "where"], "additionalProperties": false}, "History": {"type": "object", "properties": {"title": {"type": "string"}, "shown": {"type": "boolean"}, "rows": {"type": "array", "items": {"$ref": "#/$defs/HistoryRow"}}}, "required": ["rows", "shown", "title"], "additionalProperties": false}, "HistoryRow": {"type": "object", "properties": {"when": {"type": "string"}, "who": {"type": "string"}, "action": {"type": "string"}, "detail": {"type": "string"}, "version": {"type": "integer"}}, "required": ["action", "detail", "version", "when", "who"], "additionalProperties": false}, "Lists": {"type": "object", "properties": {"good": {"$ref": "#/$defs/CandidateList"}, "bad": {"$ref": "#/$defs/CandidateList"}}, "required": ["bad", "good"], "additionalProperties": false}, "MoveEvent": {"description": "A row moved to the other list; ``side`` is the list it was in.", "type": "object", "properties": {"type": {"const": "move"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "key": {"type": "string"}, "side": {"anyOf": [{"enum": ["good", "bad"]}, {"type": "null"}]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "key"], "additionalProperties": false}, "MtLine": {"type": "object", "properties": {"label": {"type": "string"}, "text": {"type": "string"}}, "required": ["label", "text"], "additionalProperties": false}, "Nav": {"description": "The page's queue position and whether Previous / Next can act.", "type": "object", "properties": {"position": {"type": "string"}, "progress": {"type": "string"}, "previous": {"type": "boolean"}, "next": {"type": "boolean"}}, "required": ["next", "position", "previous", "progress"], "additionalProperties": false}, "NextEvent": {"description": "The next item of the queue.", "type": "object", "properties": {"type": {"const": "next"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq"], "additionalProperties": false}, "Notice": {"type": "object", "properties": {"kind": {"enum": ["info", "warning", "error"]}, "text": {"type": "string"}}, "required": ["kind", "text"], "additionalProperties": false}, "Placeholders": {"type": "object", "properties": {"good": {"type": "string"}, "bad": {"type": "string"}}, "required": ["bad", "good"], "additionalProperties": false}, "PreviousEvent": {"description": "The previous item of the queue.", "type": "object", "properties": {"type": {"const": "previous"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq"], "additionalProperties": false}, "ReasonChoice": {"type": "object", "properties": {"value": {"type": "string"}, "label": {"type": "string"}}, "required": ["label", "value"], "additionalProperties": false}, "RemoveEvent": {"description": "A row removed; ``side`` and ``text`` only name the candidate in the message, as the element showed it.", "type": "object", "properties": {"type": {"const": "remove"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}, "key": {"type": "string"}, "side": {"anyOf": [{"enum": ["good", "bad"]}, {"type": "null"}]}, "text": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq", "key"], "additionalProperties": false}, "ReopenEvent": {"description": "A finished item-language opened again.", "type": "object", "properties": {"type": {"const": "reopen"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq"], "additionalProperties": false}, "Row": {"description": "A candidate row: its key (what events name), the text shown, its provenance line and tooltip.", "type": "object", "properties": {"key": {"type": "string"}, "text": {"type": "string"}, "line": {"type": "string"}, "title": {"type": "string"}}, "required": ["key", "line", "text", "title"], "additionalProperties": false}, "SenseLine": {"description": "One sense of the lemma; ``sigma`` marks the item's own sense.", "type": "object", "properties": {"text": {"type": "string"}, "sigma": {"type": "boolean"}}, "required": ["sigma", "text"], "additionalProperties": false}, "SensePart": {"description": "A piece of the sense line; ``link`` makes it a link (the synset's page).", "type": "object", "properties": {"text": {"type": "string"}, "link": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["link", "text"], "additionalProperties": false}, "SuggestionRow": {"description": "A suggestion: for GOOD, for BAD, or ``move`` (a BAD candidate proposed for GOOD); ``label`` names its source, ``reason`` why it is proposed.", "type": "object", "properties": {"key": {"type": "string"}, "text": {"type": "string"}, "side": {"enum": ["good", "bad", "move"]}, "label": {"type": "string"}, "reason": {"type": "string"}}, "required": ["key", "label", "reason", "side", "text"], "additionalProperties": false}, "Suggestions": {"type": "object", "properties": {"title": {"type": "string"}, "rows": {"type": "array", "items": {"$ref": "#/$defs/SuggestionRow"}}}, "required": ["rows", "title"], "additionalProperties": false}, "Translation": {"description": "The machine translation an Evaluate row opened the item from; ``start``/``end`` mark its match (-1: none).", "type": "object", "properties": {"label": {"type": "string"}, "text": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"}, "outcome": {"type": "string"}}, "required": ["end", "label", "outcome", "start", "text"], "additionalProperties": false}, "UndoEvent": {"description": "The last change of this item-language undone.", "type": "object", "properties": {"type": {"const": "undo"}, "protocol": {"const": 5}, "item": {"type": "string"}, "lang": {"type": "string"}, "version": {"type": "integer"}, "seq": {"type": "string"}}, "required": ["type", "protocol", "item", "lang", "version", "seq"], "additionalProperties": false}}};
// protocol:end
// the text boxes whose unsaved text is kept in the browser for the log-in (localStorage, never the server)
const FIELDS = ['good', 'bad', 'discuss', 'discard_note', 'discard_reason', 'comment'];
const CHECK_DELAY_MS = 400;
const ACK_TIMEOUT_MS = 6000;

const nonce = Math.random().toString(36).slice(2, 10);
let seq = 0;
let sendTrigger = null;
let data = null;          // the data last drawn
let root = null;          // the .ca element
let queue = [];           // events waiting to be sent: {type, build, drawnFor}
let inflight = null;      // seq of the event sent and not yet acknowledged
let sentAt = 0;
let lastFeedback = null;  // id of the feedback last shown
let shownItem = null;     // "item|lang" on screen
let cursor = {side: 'good', index: 0};
let listening = false;
const checkTimers = {};

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};
// (an equal text is not written again: writing replaces the node, which is then laid out again)
const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
const $ = (selector) => root.querySelector(selector);
const $$ = (selector) => Array.from(root.querySelectorAll(selector));
const field = (name) => $(`.ca-field[data-field="${name}"]`);
const isTextField = (node) => Boolean(node) && (node.tagName === 'TEXTAREA' || node.tagName === 'SELECT'
  || node.isContentEditable || (node.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit']
    .includes((node.getAttribute('type') || 'text').toLowerCase())));
const trash = () => {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 -960 960 960');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', TRASH);
  svg.appendChild(path);
  return svg;
};

// A part of the element is rebuilt only when its data changed: an add redraws its list and the history, not the card,
// the other list and the suggestions as well (every node replaced is styled and laid out again before the row shows).
let drawnParts = {};
function changed(part, ...values) {
  const key = JSON.stringify(values);
  if (drawnParts[part] === key) return false;
  drawnParts[part] = key;
  return true;
}

// --- sending -------------------------------------------------------------------------------------------------

function enqueue(type, fields = {}, options = {}) {
  if (!data) return;
  const drawnFor = data.item + '|' + data.lang;
  if (type === 'check') queue = queue.filter((q) => !(q.type === 'check' && q.fields.side === fields.side));
  queue.push({type, fields, drawnFor, anyItem: Boolean(options.anyItem)});
  pump();
}

function pump() {
  if (inflight && Date.now() - sentAt < ACK_TIMEOUT_MS) return;
  inflight = null;
  while (queue.length) {
    const waiting = queue.shift();
    // an action meant for the item that was on screen when it was asked for; the page has moved on: drop it
    if (!waiting.anyItem && waiting.drawnFor !== data.item + '|' + data.lang) continue;
    seq += 1;
    const payload = {...waiting.fields, type: waiting.type, protocol: SCHEMA.version, item: data.item, lang: data.lang,
                     version: data.version, seq: nonce + ':' + seq};
    inflight = payload.seq;
    sentAt = Date.now();
    sendTrigger('event', payload);
    markPending();
    return;
  }
  markPending();
}

// data-pending on the element while an event waits for its answer (tests and benchmarks wait on it)
function markPending() {
  if (!root) return;
  if (inflight || queue.length) root.dataset.pending = String(queue.length + (inflight ? 1 : 0));
  else delete root.dataset.pending;
}

// drafts: per log-in and page scope (item, language, page) in localStorage, so a reload and every tab of the log-in
// see them; another log-in's drafts are dropped when the element loads, so none come back after the next log-in.
// A storage that refuses is ignored.
const DRAFT_PREFIX = 'annotator-draft|';
const draftKey = (name, scope) => DRAFT_PREFIX + data.login + '|' + (scope || data.scope) + name;
function saveDraft(name, value, scope) {
  try {
    if (value) localStorage.setItem(draftKey(name, scope), value);
    else localStorage.removeItem(draftKey(name, scope));
  } catch (error) { /* private mode or full: the text stays in the box */ }
}
function loadDraft(name) {
  try { return localStorage.getItem(draftKey(name)) || ''; } catch (error) { return ''; }
}
let draftsSweptFor = null;  // the log-in whose stale drafts were last swept
function sweepDrafts(login) {
  if (draftsSweptFor === login) return;
  draftsSweptFor = login;
  try {
    const mine = DRAFT_PREFIX + login + '|';
    const stale = [];
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key && key.startsWith(DRAFT_PREFIX) && !key.startsWith(mine)) stale.push(key);
    }
    for (const key of stale) localStorage.removeItem(key);
  } catch (error) { /* a storage that refuses holds no drafts */ }
}

// an Add box is checked on the server (the candidate rules are Python's) once typing pauses
function scheduleCheck(name) {
  clearTimeout(checkTimers[name]);
  checkTimers[name] = setTimeout(() => {
    const box = field(name);
    if (box && box.value.trim()) enqueue('check', {side: name, text: box.value});
  }, CHECK_DELAY_MS);
}

function flushDraft(name) {
  clearTimeout(checkTimers[name]);
  delete checkTimers[name];
}

// --- commands (buttons and keys) -------------------------------------------------------------------------------

function addAll(side) {
  const box = field('bulk_' + side);
  if (!box || box.disabled || !box.value.trim()) return;
  cursor = {side, index: rowsOf(side).length + box.value.split(/\r?\n/).length};  // (clamped to the last row)
  enqueue('add_many', {side, text: box.value});
}

function showBulk(side, text) {
  const box = field('bulk_' + side);
  box.closest('.ca-bulk').hidden = false;
  box.value = text;
  box.focus({preventScroll: true});
}

function add(side) {
  const box = field(side);
  if (!box || box.disabled) return;
  const text = box.value;
  if (!text.trim()) { box.focus(); return; }
  flushDraft(side);
  cursor = {side, index: rowsOf(side).length};  // the row it will be (a new candidate goes to the end of its list)
  enqueue('add', {side, text});
}

function togglePanel(name, open) {
  const panel = $(`.ca-${name}-panel`);
  const button = $(`[data-cmd="${name}"]`);
  if (!panel || !button) return;
  if (button.disabled || button.hidden) {  // say why, where the eyes are (x on a DISCUSS item used to do nothing)
    showFeedback({kind: 'info', where: 'card', text: button.title || `${button.textContent} is not possible here.`});
    return;
  }
  const show = open === undefined ? panel.hidden : open;
  if (show && panel.hidden) showFeedback(null);  // an earlier action's banner ("Nothing to undo") is not this panel's
  panel.hidden = !show;
  button.setAttribute('aria-expanded', String(show));
  if (show) (name === 'discuss' ? field('discuss') : field('discard_reason')).focus();
  else focusCursor();
}

function command(name, source) {
  const button = $(`[data-cmd="${name}"]`);
  switch (name) {
    case 'previous': case 'next': case 'done': case 'undo': case 'reopen':
      if (button && !button.disabled) enqueue(name, {}, {anyItem: name === 'previous' || name === 'next'});
      else if (button) showFeedback({kind: 'info', where: 'card', text: button.title || `${button.textContent} is not possible here.`});
      return true;
    case 'discuss': case 'discard':
      togglePanel(name);
      return true;
    case 'discuss-send':
      flushDraft('discuss');
      enqueue('discuss', {text: field('discuss').value});
      return true;
    case 'discard-send':
      flushDraft('discard_note');
      enqueue('discard', {reason: field('discard_reason').value, text: field('discard_note').value});
      return true;
    case 'comment':
      flushDraft('comment');
      enqueue('comment', {text: field('comment').value});
      return true;
    case 'add':
      add(source && source.dataset.side);
      return true;
    case 'add-all':
      addAll(source && source.dataset.side);
      return true;
    case 'suggestions':
      jumpSuggestions();
      return true;
    case 'legend': {
      const legend = $('.ca-legend');
      legend.hidden = !legend.hidden;
      $('[data-cmd="legend"]').setAttribute('aria-expanded', String(!legend.hidden));
      return true;
    }
    default:
      return false;
  }
}

// --- the cursor through both lists, then the suggestions --------------------------------------------------------

const SIDES = ['good', 'bad', 'sugg'];
const rowsOf = (side) => (side === 'sugg' ? $$('.ca-sugg .ca-row') : $$(`.ca-side[data-side="${side}"] .ca-row`));

function focusCursor() {
  let rows = rowsOf(cursor.side);
  if (!rows.length) {  // that list is empty now: the nearest one with rows (the suggestions, then GOOD, then BAD)
    const next = (cursor.side === 'sugg' ? ['good', 'bad'] : [cursor.side === 'good' ? 'bad' : 'good', 'sugg'])
      .find((side) => rowsOf(side).length);
    if (next) { cursor.side = next; rows = rowsOf(next); }
  }
  if (!rows.length) { root.focus({preventScroll: true}); return; }
  cursor.index = Math.max(0, Math.min(cursor.index, rows.length - 1));
  const row = rows[cursor.index];
  rove(row);
  row.focus({preventScroll: true});
  row.scrollIntoView({block: 'nearest'});
}

// one row of each list in the Tab order (the cursor's, else the first), marked selected where the cursor is
function rove(current) {
  for (const side of SIDES) {
    const rows = rowsOf(side);
    const stop = rows.includes(current) ? current : rows[side === cursor.side ? Math.min(cursor.index, rows.length - 1) : 0];
    rows.forEach((row) => { row.tabIndex = row === stop ? 0 : -1; row.setAttribute('aria-selected', String(row === current)); });
  }
}

function pickRow(number) {
  // digits: the row with that number in the list the cursor is in (the cursor's list, else GOOD)
  const side = cursorRow() ? cursorRow().dataset.side : cursor.side;
  const rows = rowsOf(side);
  if (number > rows.length) {
    const name = side === 'sugg' ? 'the suggestions' : data.lists[side].side;
    showFeedback({kind: 'info', where: side === 'sugg' ? 'suggestions' : side, text: `There is no row ${number} in ${name} (${rows.length} rows).`});
    return;
  }
  cursor = {side, index: number - 1};
  focusCursor();
}

function moveCursor(step) {
  const counts = SIDES.map((side) => rowsOf(side).length);
  const all = counts.reduce((a, b) => a + b, 0);
  if (!all) { root.focus({preventScroll: true}); return; }
  let flat = counts.slice(0, SIDES.indexOf(cursor.side)).reduce((a, b) => a + b, 0) + cursor.index;
  const focusedRow = document.activeElement && document.activeElement.closest && document.activeElement.closest('.ca-row');
  if (focusedRow && root.contains(focusedRow)) flat = Math.max(0, Math.min(flat + step, all - 1));
  let side = 0;
  while (flat >= counts[side]) { flat -= counts[side]; side += 1; }
  cursor = {side: SIDES[side], index: flat};
  focusCursor();
}

function jumpSuggestions() {
  if (!rowsOf('sugg').length) {
    showFeedback({kind: 'info', where: 'card', text: 'There are no suggestions for this item.'});
    return;
  }
  cursor = {side: 'sugg', index: 0};
  focusCursor();
}

// a suggestion row's event: the word as suggested, for the list chosen (dismiss: the list it was suggested for)
function suggestion(row, what) {
  if (!data.editable) { showFeedback({kind: 'info', where: 'suggestions', text: data.locked}); return; }
  cursor = {side: 'sugg', index: Number(row.dataset.index)};
  if (what === 'dismiss') enqueue('dismiss', {side: row.dataset.for === 'bad' ? 'bad' : 'good', text: row.dataset.text});
  else enqueue('accept', {side: what, text: row.dataset.text});
}

function jumpCursor(side) {
  cursor = {side, index: cursor.side === side ? cursor.index : Math.min(cursor.index, Math.max(rowsOf(side).length - 1, 0))};
  if (!rowsOf(side).length) { field(side).focus(); return; }
  focusCursor();
}

// a row's event names the candidate as shown, so the page need not read the item to say what was moved
const rowFields = (row) => ({key: row.dataset.key, side: row.dataset.side, text: row.querySelector('code').textContent});

function cursorRow() {
  const active = document.activeElement;
  const row = active && active.closest ? active.closest('.ca-row') : null;
  return row && root.contains(row) ? row : null;
}

// --- keys ------------------------------------------------------------------------------------------------------

function singleKeys() {
  try { return localStorage.getItem(SINGLE_KEYS) !== 'off'; } catch (error) { return true; }
}

function onKey(event) {
  if (!root || !root.isConnected || !data) return;
  const target = event.target;
  const inside = root.contains(target);
  if (!inside && target !== document.body && target !== document.documentElement) return;
  if (event.isComposing) return;
  const key = event.key;
  if (event.altKey && !event.ctrlKey && !event.metaKey && (event.code === 'KeyN' || event.code === 'KeyP')) {
    command(event.code === 'KeyN' ? 'next' : 'previous');
    event.preventDefault();
    return;
  }
  if (inside && isTextField(target)) {
    const name = target.dataset.field;
    if (key === 'Escape') {
      event.preventDefault();
      if (name === 'bulk_good' || name === 'bulk_bad') {
        target.closest('.ca-bulk').hidden = true;
        field(name.slice(5)).focus();
      } else if (name === 'discuss') togglePanel('discuss', false);
      else if (name === 'discard_note' || name === 'discard_reason') togglePanel('discard', false);
      else focusCursor();
    } else if (key === 'Enter' && (name === 'good' || name === 'bad')) {
      event.preventDefault();
      add(name);
    } else if (key === 'Enter' && name === 'discard_note') {
      event.preventDefault();
      command('discard-send');
    } else if (key === 'Enter' && name === 'discard_reason' && !event.altKey) {
      event.preventDefault();  // Enter confirms, as the panel says; only "other" needs its note first
      if (!target.value) {
        showFeedback({kind: 'info', where: 'discard', text: 'Choose a reason first (↓ / ↑), then Enter confirms.'});
      } else if (target.value === 'other' && !field('discard_note').value.trim()) {
        field('discard_note').focus();
        showFeedback({kind: 'info', where: 'discard', text: "'other' needs a note: type it, then Enter confirms."});
      } else command('discard-send');
    } else if (key === 'Enter' && (event.ctrlKey || event.metaKey) && (name === 'bulk_good' || name === 'bulk_bad')) {
      event.preventDefault();
      addAll(name.slice(5));
    } else if (key === 'Enter' && (event.ctrlKey || event.metaKey) && (name === 'discuss' || name === 'comment')) {
      event.preventDefault();
      command(name === 'discuss' ? 'discuss-send' : 'comment');
    }
    return;  // every other key belongs to the field
  }
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (inside && (key === 'Enter' || key === ' ') && target.tagName === 'BUTTON') return;  // the button's own click
  if (inside && target.tagName === 'SUMMARY' && (key === 'Enter' || key === ' ')) return;
  if (key === 'Escape') {
    if (!$('.ca-legend').hidden) command('legend');
    return;
  }
  if (key.length === 1 && !singleKeys()) {  // turned off: a letter, digit or sign does nothing at all
    event.preventDefault();
    event.stopPropagation();  // not Streamlit's own single keys either (r reruns the page)
    return;
  }
  const row = cursorRow();
  if (row && row.dataset.side === 'sugg' && ['+', '-', 'Enter', 'Delete', 'Backspace', 'r', 'm'].includes(key)) {
    if (key === 'm') showFeedback({kind: 'info', where: 'suggestions', text: 'On a suggestion: + accepts it into GOOD, - into BAD, Delete dismisses it.'});
    else if (key === 'Enter') suggestion(row, row.dataset.for === 'bad' ? 'bad' : 'good');
    else suggestion(row, key === '+' ? 'good' : key === '-' ? 'bad' : 'dismiss');
    event.preventDefault();
    event.stopPropagation();
    return;
  }
  let handled = true;
  switch (key) {
    case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
      pickRow(Number(key));
      break;
    case 'g': case 'b': {
      const box = field(key === 'g' ? 'good' : 'bad');
      if (box.disabled) showFeedback({kind: 'info', where: box.dataset.field, text: data.locked});
      else box.focus();
      break;
    }
    case 'd': command('done'); break;
    case 'u': command('undo'); break;
    case 'o': command('reopen'); break;
    case 'n': command('next'); break;
    case 'p': command('previous'); break;
    case 's': togglePanel('discuss', true); break;
    case 'x': togglePanel('discard', true); break;
    case '?': command('legend'); break;
    case 'f': jumpSuggestions(); break;
    case 'a': enqueue('advance', {on: !$('.ca-advance').checked}, {anyItem: true}); break;
    case 'j': case 'ArrowDown': moveCursor(+1); break;
    case 'k': case 'ArrowUp': moveCursor(-1); break;
    case 'h': case 'ArrowLeft': jumpCursor('good'); break;
    case 'l': case 'ArrowRight': jumpCursor('bad'); break;
    case 'Home': root.scrollIntoView({block: 'start'}); root.focus({preventScroll: true}); break;
    case 'Delete': case 'Backspace': case 'r': case 'm':
      if (row && !data.editable) showFeedback({kind: 'info', where: row.dataset.side, text: data.locked});
      else if (row) enqueue(key === 'm' ? 'move' : 'remove', rowFields(row));
      else handled = key !== 'Backspace' && key !== 'Delete' ? true : false;
      break;
    default: handled = false;
  }
  if (handled) {
    event.preventDefault();
    event.stopPropagation();  // the key was ours: not also one of Streamlit's own (r reruns the page)
  }
}

// --- drawing ---------------------------------------------------------------------------------------------------

function drawMarked(node, text, start, end, className) {
  node.replaceChildren();
  if (typeof start === 'number' && typeof end === 'number' && 0 <= start && start < end && end <= text.length) {
    const mark = el('mark', className || '', text.slice(start, end));
    node.append(text.slice(0, start), mark, text.slice(end));
  } else {
    node.append(text);
  }
}

function drawCard(d) {
  const c = d.card;
  setText($('.ca-position'), d.nav.position);
  setText($('.ca-progress'), d.nav.progress);
  $('.ca-position').title = d.nav.position;  // (cut with an ellipsis only where the header is too narrow)
  $('.ca-progress').title = d.nav.progress;
  $('[data-cmd="previous"]').disabled = !d.nav.previous;
  $('[data-cmd="next"]').disabled = !d.nav.next;
  $('.ca-advance').checked = Boolean(d.advance);
  setText($('.ca-id'), c.title);
  const status = $('.ca-status');
  setText(status, c.status_label);
  status.dataset.status = c.status;
  setText($('.ca-version'), 'v' + d.version);
  for (const [name, state] of Object.entries(d.actions)) {
    const button = $(`[data-cmd="${name}"]`);
    if (!button) continue;
    button.hidden = !state.shown;
    button.disabled = !state.enabled;
    button.title = state.tip || '';
  }
  // (the title and status above change on an add; the card's content below only on another item or evaluation)
  const {title, status: _s, status_label: _l, ...content} = c;
  if (!changed('card', content)) return;
  drawMarked($('.ca-sentence'), c.sentence, c.start, c.end);
  const sense = $('.ca-sense');
  sense.replaceChildren();
  c.sense.forEach(({text, link}) => {
    if (link) { const a = el('a', '', text); a.href = link; a.target = '_blank'; a.rel = 'noopener noreferrer'; sense.append(a); }
    else sense.append(text);
  });
  $('.ca-gloss').textContent = c.gloss;
  $('.ca-gloss').hidden = !c.gloss;
  const tr = $('.ca-translation');
  tr.hidden = !c.translation;
  if (c.translation) {
    $('.ca-tr-label').textContent = c.translation.label;
    drawMarked($('.ca-tr-text'), c.translation.text, c.translation.start, c.translation.end,
               c.translation.outcome === 'BAD' ? 'ca-bad' : 'ca-miss');
  }
  $('.ca-mt').replaceChildren(...c.mt.map(({label, text}) => {
    const line = el('div', 'ca-translation');
    line.append(el('span', 'ca-tr-label', label), ' ', el('span', '', text));
    line.lastChild.dir = 'auto';
    return line;
  }));
  const senses = $('.ca-senses');
  senses.hidden = !c.senses.length;
  senses.querySelector('summary').textContent = c.senses_title;
  senses.querySelector('ol').replaceChildren(...c.senses.map(({text, sigma}) => el('li', sigma ? 'ca-sigma' : '', text)));
  $('.ca-notices').replaceChildren(...c.notices.map(({kind, text}) => {
    const note = el('p', 'ca-notice ca-' + kind, text);
    note.setAttribute('role', 'note');
    return note;
  }));
}

function drawLists(d) {
  const keepRow = cursorRow();
  for (const side of ['good', 'bad']) {
    const section = $(`.ca-side[data-side="${side}"]`);
    const list = d.lists[side];
    const box = field(side);
    box.disabled = !d.editable;
    box.placeholder = d.placeholders[side];
    section.querySelector('[data-cmd="add"]').disabled = !d.editable;
    if (!changed('list-' + side, list, d.editable)) continue;
    section.querySelector('.ca-heading').textContent = list.heading;
    const rows = list.rows.map(({key, text, line, title}, index) => {
      const row = el('li', 'ca-row');
      row.dataset.key = key;
      row.dataset.side = side;
      row.dataset.index = String(index);
      row.tabIndex = -1;
      row.setAttribute('role', 'row');
      row.setAttribute('aria-selected', 'false');
      row.setAttribute('aria-label', text);
      row.setAttribute('aria-rowindex', String(index + 1));  // the number a digit key picks
      const label = el('div', 'ca-text');
      label.setAttribute('role', 'gridcell');
      label.dir = 'auto';
      label.title = title;
      label.append(el('code', '', text), el('span', 'ca-prov', line));
      const move = el('button', 'ca-btn', '→ ' + list.other);
      move.type = 'button';
      move.dataset.row = 'move';
      move.setAttribute('aria-label', `Move ${text} to ${list.other}`);
      move.title = `Move to ${list.other} (m)`;
      const remove = el('button', 'ca-btn');
      remove.type = 'button';
      remove.dataset.row = 'remove';
      remove.appendChild(trash());
      remove.setAttribute('aria-label', `Remove ${text} from ${list.side}`);
      remove.title = `Remove from ${list.side} (Delete)`;
      move.disabled = remove.disabled = !d.editable;
      const cell = (button) => { const span = el('span', 'ca-cell'); span.setAttribute('role', 'gridcell');
                                 span.appendChild(button); return span; };
      row.append(label, cell(move), cell(remove));
      return row;
    });
    const ul = section.querySelector('.ca-rows');
    ul.setAttribute('aria-label', `${list.side} candidates`);
    if (!rows.length) {
      const empty = el('li', 'ca-empty');
      empty.setAttribute('role', 'row');
      const cell = el('span', list.empty ? 'ca-why' : '', list.empty || '(empty)');
      cell.setAttribute('role', 'gridcell');
      empty.appendChild(cell);
      rows.push(empty);
    }
    ul.replaceChildren(...rows);
    const removed = section.querySelector('.ca-removed');
    removed.replaceChildren();
    if (list.removed.length) {
      removed.append("Removed from the lexicon's suggestions: ");
      list.removed.forEach((text, index) => { if (index) removed.append(', '); removed.append(el('code', '', text)); });
    }
  }
  drawSuggestions(d);
  if (keepRow) focusCursor();
  else rove(null);
}

// "5 suggestions below — f": said while the suggestions exist and lie below the fold (their section watched by an
// IntersectionObserver), so a translator scrolled to the lists knows they are there
let belowFold = false;
function drawBelowHint(d) {
  const hint = $('.ca-sugg-below');
  const count = d.suggestions.rows.length;
  setText(hint, `${count} suggestion${count === 1 ? '' : 's'} below — f`);
  hint.setAttribute('aria-label', `${count} suggestion${count === 1 ? '' : 's'} below the lists: go there (f)`);
  hint.hidden = !(count && belowFold);
}

function watchSuggestions() {
  if (typeof IntersectionObserver === 'undefined') return;
  // (the section counts as in view once 48 px of it show: a heading's edge at the bottom is not the suggestions)
  new IntersectionObserver((entries) => {
    const entry = entries[entries.length - 1];
    const height = entry.rootBounds ? entry.rootBounds.height : window.innerHeight;
    belowFold = !entry.isIntersecting && entry.boundingClientRect.top >= height / 2;
    if (data) drawBelowHint(data);
  }, {rootMargin: '0px 0px -48px 0px'}).observe($('.ca-sugg'));
}

function drawSuggestions(d) {
  drawBelowHint(d);
  if (!changed('suggestions', d.suggestions, d.editable)) return;
  const section = $('.ca-sugg');
  section.hidden = !d.suggestions.rows.length;
  section.querySelector('.ca-heading').textContent = d.suggestions.title;
  const button = (label, what, text, title) => {
    const b = el('button', 'ca-btn', label);
    b.type = 'button';
    b.dataset.sugg = what;
    b.setAttribute('aria-label', `${title} ${text}`);
    b.title = title;
    b.disabled = !d.editable;
    const span = el('span', 'ca-cell');
    span.setAttribute('role', 'gridcell');
    span.appendChild(b);
    return span;
  };
  section.querySelector('.ca-rows').replaceChildren(...d.suggestions.rows.map(({key, text, side, label, reason}, index) => {
    const row = el('li', 'ca-row');
    row.dataset.key = key;
    row.dataset.side = 'sugg';
    row.dataset.for = side;
    row.dataset.text = text;
    row.dataset.index = String(index);
    row.tabIndex = -1;
    row.setAttribute('role', 'row');
    row.setAttribute('aria-selected', 'false');
    row.setAttribute('aria-label', `${text}, ${label}`);
    row.setAttribute('aria-rowindex', String(index + 1));
    const words = el('div', 'ca-text');
    words.setAttribute('role', 'gridcell');
    words.dir = 'auto';
    words.title = reason;
    words.append(el('code', '', text), el('span', 'ca-prov', label), el('span', 'ca-reason', reason));
    row.append(words, button('✓ GOOD', 'good', text, 'Accept into GOOD (+)'),
               button('✗ BAD', 'bad', text, 'Accept into BAD (-)'), button('Dismiss', 'dismiss', text, 'Dismiss (Delete)'));
    return row;
  }));
}

function drawCheck(d) {
  for (const side of ['good', 'bad']) {
    const out = $(`.ca-side[data-side="${side}"] .ca-check`);
    const check = d.check && d.check.side === side ? d.check : null;
    const box = field(side);
    if (!check || check.text !== box.value) { if (!box.value.trim()) { out.replaceChildren(); out.className = 'ca-check'; } continue; }
    out.className = 'ca-check ca-' + check.kind;
    out.replaceChildren(el('span', '', check.message));
    if (check.hint) out.append(el('span', 'ca-hint', check.hint));
  }
}

function drawThread(d) {
  const comments = $('.ca-comments');
  if (changed('comments', d.comments.title)) comments.querySelector('summary').textContent = d.comments.title;
  if (changed('comment-rows', d.comments.rows)) comments.querySelector('.ca-thread').replaceChildren(...d.comments.rows.map(({who, when, text}) => {
    const li = el('li');
    li.append(el('strong', '', who), ' · ' + when + '\n' + text);
    return li;
  }));
  field('comment').disabled = !d.comments.may_post;
  $('[data-cmd="comment"]').disabled = !d.comments.may_post;
  comments.hidden = !d.comments.shown;
  if (d.comments.open) comments.open = true;
  const history = $('.ca-history');
  history.hidden = !d.history.shown;
  if (changed('history', d.history.title)) history.querySelector('summary').textContent = d.history.title;
  if (changed('history-rows', d.history.rows)) history.querySelector('tbody').replaceChildren(...d.history.rows.map(({when, who, action, detail, version}) => {
    const tr = el('tr');
    [when, who, action, detail, version].forEach((cell) => tr.appendChild(el('td', '', String(cell))));
    return tr;
  }));
}

function showFeedback(feedback) {
  // the live regions stay in place (empty); only their text changes, so screen readers announce it
  $$('.ca-feedback').forEach((box) => { box.className = 'ca-feedback'; });
  $$('.ca-say').forEach((say) => { say.textContent = ''; });
  if (!feedback) return;
  let box = $(`.ca-feedback[data-where="${feedback.where}"]`);
  if (!box || box.closest('[hidden]')) box = $('.ca-feedback[data-where="card"]');  // (the last suggestion just went)
  box.className = 'ca-feedback ca-' + feedback.kind;
  box.querySelector(feedback.kind === 'error' ? '[role="alert"]' : '[role="status"]').textContent = feedback.text;
  const rect = box.getBoundingClientRect();
  if (rect.bottom > window.innerHeight || rect.top < 0) box.scrollIntoView({block: 'nearest'});
}

function place(where) {
  if (where === 'good' || where === 'bad' || where === 'discuss' || where === 'comment') {
    const box = field(where);
    if (box && !box.disabled) { box.focus({preventScroll: true}); return; }
  }
  if (where === 'discard') { field('discard_reason').focus({preventScroll: true}); return; }
  if (where === 'cursor') { focusCursor(); return; }
  if (where === 'area') { root.focus({preventScroll: true}); return; }
  // 'first': never a text box (single keys act at once: d is Done, g starts a GOOD word). On an editable item whose
  // GOOD list is empty, its first suggestion (+ accepts it); else the first GOOD row (the nearest list with rows),
  // else the work area itself
  if (data.editable && !rowsOf('good').length && rowsOf('sugg').length) {
    cursor = {side: 'sugg', index: 0};
    const first = rowsOf('sugg')[0];
    rove(first);
    first.focus({preventScroll: true});
    return;
  }
  cursor = {side: 'good', index: 0};
  focusCursor();
}

function arrive(d) {
  // a new item: its drafts in the boxes, panels shut unless a draft waits in them, the element at the top of the view
  for (const name of FIELDS) {
    const box = field(name);
    flushDraft(name);
    if (name === 'discard_reason') {
      box.replaceChildren(el('option', '', 'Choose a reason'), ...d.reasons.map(({value, label}) => {
        const option = el('option', '', label);
        option.value = value;
        return option;
      }));
      box.firstChild.value = '';
    }
    box.value = loadDraft(name);
  }
  togglePanelQuiet('discuss', Boolean(loadDraft('discuss')) && d.actions.discuss.enabled);
  togglePanelQuiet('discard', Boolean(loadDraft('discard_note') || loadDraft('discard_reason')) && d.actions.discard.enabled);
  $('.ca-comments').open = Boolean(loadDraft('comment')) || d.comments.open;
  $('.ca-history').open = false;
  $('.ca-senses').open = false;
  $$('.ca-check').forEach((out) => { out.replaceChildren(); out.className = 'ca-check'; });
  $$('.ca-rows').forEach((ul) => { ul.scrollTop = 0; });
  $$('.ca-bulk').forEach((bulk) => { bulk.hidden = true; bulk.querySelector('textarea').value = ''; });
  cursor = {side: 'good', index: 0};
  root.scrollIntoView({block: 'start'});
}

function togglePanelQuiet(name, show) {
  $(`.ca-${name}-panel`).hidden = !show;
  $(`[data-cmd="${name}"]`).setAttribute('aria-expanded', String(show));
}

function wire() {
  root.addEventListener('click', (event) => {
    const suggButton = event.target.closest('button[data-sugg]');
    if (suggButton && root.contains(suggButton)) {
      const row = suggButton.closest('.ca-row');
      if (!suggButton.disabled && row) suggestion(row, suggButton.dataset.sugg);
      return;
    }
    const rowButton = event.target.closest('button[data-row]');
    if (rowButton && root.contains(rowButton)) {
      const row = rowButton.closest('.ca-row');
      if (!rowButton.disabled && row) {
        cursor = {side: row.dataset.side, index: Number(row.dataset.index)};
        enqueue(rowButton.dataset.row, rowFields(row));
      }
      return;
    }
    const button = event.target.closest('button[data-cmd]');
    if (button && root.contains(button) && !button.disabled) command(button.dataset.cmd, button);
  });
  root.addEventListener('focusin', (event) => {
    const row = event.target.closest && event.target.closest('.ca-row');
    if (row) cursor = {side: row.dataset.side, index: Number(row.dataset.index)};
  });
  root.addEventListener('input', (event) => {
    const name = event.target.dataset && event.target.dataset.field;
    if (!name || !FIELDS.includes(name)) return;
    if (name === 'good' || name === 'bad') {
      const out = $(`.ca-side[data-side="${name}"] .ca-check`);
      if (!event.target.value.trim()) { out.replaceChildren(); out.className = 'ca-check'; }
    }
    saveDraft(name, event.target.value);
    if (name === 'good' || name === 'bad') scheduleCheck(name);
  });
  root.addEventListener('change', (event) => {
    if (event.target.classList.contains('ca-single-keys')) {
      try { localStorage.setItem(SINGLE_KEYS, event.target.checked ? 'on' : 'off'); } catch (error) { /* kept for the page */ }
      showFeedback({kind: 'info', where: 'card', text: event.target.checked
        ? 'Single-key shortcuts are on (? lists them).'
        : 'Single-key shortcuts are off: letters and digits do nothing outside text boxes; Alt+N / Alt+P still move.'});
    } else if (event.target.classList.contains('ca-advance')) {
      enqueue('advance', {on: event.target.checked}, {anyItem: true});
    } else if (event.target.dataset && event.target.dataset.field === 'discard_reason') {
      saveDraft('discard_reason', event.target.value);
    }
  });
  root.addEventListener('paste', (event) => {
    const name = event.target.dataset && event.target.dataset.field;
    if (name !== 'good' && name !== 'bad') return;
    const text = (event.clipboardData && event.clipboardData.getData('text/plain')) || '';
    if (!/[\r\n]/.test(text.replace(/[\r\n]+$/, ''))) return;  // one line: an ordinary paste
    event.preventDefault();  // several lines: to this side's "one per line" box, and added together
    showBulk(name, text);
    enqueue('add_many', {side: name, text});
  });
}

// the data arrives as one JSON document in bytes (curate_area.encode)
const decoder = new TextDecoder();
const decode = (raw) => (raw && raw.byteLength ? JSON.parse(decoder.decode(raw)) : null);

// --- the data checked against the protocol's schema (SCHEMA, generated by curate_area/schema.py) -----------------

// What is wrong with `value` under `schema`, as "path: problem" lines (at most a few). Knows the subset of JSON Schema
// schema.json_schema() generates: $ref to $defs, const, enum, anyOf / oneOf, type, items, properties, required and
// additionalProperties: false. `trail` is the path walked so far, made into text only for a problem (every run's
// data passes through here, so a valid document costs no string work).
const kindOf = (value) => (value === null ? 'null' : Array.isArray(value) ? 'array'
  : Number.isInteger(value) ? 'integer' : typeof value);
function schemaProblems(value, schema, trail, out) {
  const say = (problem) => out.push(`${trail.join('')}: ${problem}`);
  if (out.length >= 3) return out;
  if (schema.$ref) return schemaProblems(value, SCHEMA.$defs[schema.$ref.slice(8)], trail, out);  // '#/$defs/'
  if ('const' in schema) {
    if (value !== schema.const) say(`${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
    return out;
  }
  if (schema.enum) {
    if (!schema.enum.includes(value)) say(`${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
    return out;
  }
  const options = schema.anyOf || schema.oneOf;
  if (options) {
    let fitting = 0;
    for (const option of options) if (!schemaProblems(value, option, trail, []).length) fitting += 1;
    if (schema.anyOf ? !fitting : fitting !== 1) say(`${JSON.stringify(value)} fits none of its forms`);
    return out;
  }
  const kind = kindOf(value);
  if (schema.type && kind !== schema.type) {
    say(`expected ${schema.type}, got ${kind}`);
    return out;
  }
  if (kind === 'array' && schema.items) {
    for (let index = 0; index < value.length && out.length < 3; index += 1) {
      trail.push(`[${index}]`);
      schemaProblems(value[index], schema.items, trail, out);
      trail.pop();
    }
  }
  if (kind === 'object') {
    for (const name of schema.required || []) {
      if (!(name in value)) { trail.push('.' + name); say('missing'); trail.pop(); }
    }
    for (const name in value) {
      const property = schema.properties && schema.properties[name];
      trail.push('.' + name);
      if (property) schemaProblems(value[name], property, trail, out);
      else if (schema.additionalProperties === false) say('not in the protocol');
      trail.pop();
    }
  }
  return out;
}

// Why the data cannot be drawn ('' when it can): a page of another version of the app, or data not of the schema.
function dataFault(d) {
  if (!d || typeof d !== 'object' || Array.isArray(d)) return 'The work area received no data it can read. Reload the page.';
  if (d.protocol !== SCHEMA.version) {
    return `The app was updated (this page speaks protocol ${SCHEMA.version}, the server sent protocol ${d.protocol}). `
      + 'Reload the page to go on; nothing was changed.';
  }
  const found = schemaProblems(d, SCHEMA, ['data'], []);
  return found.length ? `The work area received data it cannot show (${found.join('; ')}). Reload the page; if this `
    + 'happens again, tell whoever runs the server.' : '';
}

// The fault said in place of the work area (its other parts hidden: area.css), or taken away.
function showFault(text) {
  const box = root.querySelector('.ca-fault');
  box.textContent = text;
  box.hidden = !text;
  if (text) root.dataset.fault = 'true';
  else delete root.dataset.fault;
}

export default function (component) {
  const {data: raw, parentElement, setTriggerValue} = component;
  const next = decode(raw);
  sendTrigger = setTriggerValue;
  const found = parentElement.querySelector('.ca');
  if (found && found !== root) {  // (re)mounted: nothing from an element that is gone is waited for
    root = found;
    drawnParts = {};
    shownItem = null;
    lastFeedback = null;
    queue = [];
    inflight = null;
    belowFold = false;
    wire();
    watchSuggestions();
    if (!found.querySelector('.ca-legend tbody').childElementCount) {
      found.querySelector('.ca-legend tbody').replaceChildren(...LEGEND.map(([keys, what]) => {
        const tr = el('tr');
        tr.append(el('td', '', keys), el('td', '', what));
        return tr;
      }));
    }
  }
  if (!listening) {  // one listener per page: it acts only for keys typed in the element or on the bare page
    listening = true;
    document.addEventListener('keydown', onKey, true);
  }
  if (!root || !next) return;
  const fault = dataFault(next);
  showFault(fault);
  if (fault) {  // nothing of it is drawn, and no key acts on what was drawn before
    data = null;
    shownItem = null;
    drawnParts = {};
    return;
  }
  data = next;
  sweepDrafts(next.login);
  root.querySelector('.ca-single-keys').checked = singleKeys();
  const here = next.item + '|' + next.lang;
  const arrived = here !== shownItem;
  drawCard(next);
  drawLists(next);
  drawThread(next);
  if (arrived) {
    shownItem = here;
    arrive(next);
    showFeedback(null);
  }
  drawCheck(next);
  const feedback = next.feedback;
  if (feedback && feedback.id !== lastFeedback) {
    lastFeedback = feedback.id;
    const cleared = feedback.clear && field(feedback.clear.field);
    if (cleared && cleared.value === feedback.clear.text) {
      cleared.value = '';
      if (FIELDS.includes(feedback.clear.field)) saveDraft(feedback.clear.field, '');
      if (cleared.closest('.ca-bulk')) cleared.closest('.ca-bulk').hidden = true;
      $$('.ca-check').forEach((out) => { out.replaceChildren(); out.className = 'ca-check'; });
    }
    if (feedback.close) {  // the panel's text was sent and saved: its drafts are done with
      togglePanelQuiet(feedback.close, false);
      const names = feedback.close === 'discuss' ? ['discuss'] : ['discard_note', 'discard_reason'];
      names.forEach((name) => {
        if (!arrived) field(name).value = '';
        saveDraft(name, '', feedback.scope);  // the drafts of the item the text was sent for
      });
    }
    if (feedback.text) showFeedback(feedback);
    place(feedback.focus || (arrived ? 'first' : 'cursor'));
  } else if (arrived) {
    place('first');
  }
  if (next.ack && next.ack === inflight) inflight = null;
  root.dataset.drawn = here + '|' + next.version;
  pump();
}
