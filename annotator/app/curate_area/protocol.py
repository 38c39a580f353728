"""The protocol between the work area's script (``area.js``) and Python: typed both ways, with a version number.

Python sends one ``AreaData`` document per run (``TypedDict``s below); the script sends back one event at a time,
each kind a dataclass (``EVENTS``), checked field by field by ``parse_event``. ``schema.json_schema()`` generates a
JSON Schema from these types, which ``area.js`` checks the data's version and shape against before drawing anything.
After changing a type here, bump ``VERSION`` and run ``python -m annotator.app.curate_area.schema`` to regenerate the
schema's two copies (``tests/app/test_curate_protocol.py`` fails until they equal the generated one).
"""

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NotRequired, TypedDict, Union, get_args, get_origin

from annotator.domain.model import DiscardReason, Side

VERSION = 5
#: The longest text an event may carry (a pasted list of candidates fits; a flood does not).
MAX_EVENT_TEXT = 40_000
#: The longest event id kept (the element's acknowledgement echoes it).
MAX_SEQ = 64

# --- what Python sends: one document per run --------------------------------------------------------------------


class Nav(TypedDict):
    """The page's queue position and whether Previous / Next can act."""

    position: str
    progress: str
    previous: bool
    next: bool


class SensePart(TypedDict):
    """A piece of the sense line; ``link`` makes it a link (the synset's page)."""

    text: str
    link: str | None


class SenseLine(TypedDict):
    """One sense of the lemma; ``sigma`` marks the item's own sense."""

    text: str
    sigma: bool


class Notice(TypedDict):
    kind: Literal["info", "warning", "error"]
    text: str


class Translation(TypedDict):
    """The machine translation an Evaluate row opened the item from; ``start``/``end`` mark its match (-1: none)."""

    label: str
    text: str
    start: int
    end: int
    outcome: str


class MtLine(TypedDict):
    label: str
    text: str


class Card(TypedDict):
    """The item card: sentence with the target marked (``start``/``end``), sense, senses, notices, translations."""

    title: str
    status: str
    status_label: str
    sentence: str
    start: int
    end: int
    sense: list[SensePart]
    gloss: str
    senses_title: str
    senses: list[SenseLine]
    notices: list[Notice]
    translation: Translation | None
    mt: list[MtLine]


class Action(TypedDict):
    """A button: whether it shows, whether it acts, and its tooltip (what it does, or why it cannot)."""

    shown: bool
    enabled: bool
    tip: str


class Actions(TypedDict):
    done: Action
    undo: Action
    discuss: Action
    discard: Action
    reopen: Action


class Row(TypedDict):
    """A candidate row: its key (what events name), the text shown, its provenance line and tooltip."""

    key: str
    text: str
    line: str
    title: str


class CandidateList(TypedDict):
    """One of GOOD / BAD; ``empty`` says why it is empty ("" when it is not, or nothing was recorded)."""

    heading: str
    side: str
    other: str
    rows: list[Row]
    removed: list[str]
    empty: str


class Lists(TypedDict):
    good: CandidateList
    bad: CandidateList


class SuggestionRow(TypedDict):
    """A suggestion: for GOOD, for BAD, or ``move`` (a BAD candidate proposed for GOOD); ``label`` names its source,
    ``reason`` why it is proposed."""

    key: str
    text: str
    side: Literal["good", "bad", "move"]
    label: str
    reason: str


class Suggestions(TypedDict):
    title: str
    rows: list[SuggestionRow]


class Placeholders(TypedDict):
    good: str
    bad: str


class ReasonChoice(TypedDict):
    value: str
    label: str


class Check(TypedDict):
    """What the text typed in an Add box would add (``scope``: the page it was typed on)."""

    scope: str
    side: str
    text: str
    kind: Literal["ok", "error"]
    message: str
    hint: str


class Clear(TypedDict):
    """Empty this box if it still holds this text (the text was saved)."""

    field: str
    text: str


class Feedback(TypedDict):
    """What the last event did, shown ``where`` the eyes are; the focus then goes to ``focus``."""

    id: str
    kind: Literal["info", "success", "error"]
    text: str
    where: str
    focus: str
    clear: NotRequired[Clear]
    close: NotRequired[str]
    scope: NotRequired[str]


class CommentRow(TypedDict):
    who: str
    when: str
    text: str


class Comments(TypedDict):
    title: str
    rows: list[CommentRow]
    may_post: bool
    shown: bool
    open: bool


class HistoryRow(TypedDict):
    when: str
    who: str
    action: str
    detail: str
    version: int


class History(TypedDict):
    title: str
    shown: bool
    rows: list[HistoryRow]


class AreaData(TypedDict):
    """Everything the element draws for one item-language or copy (text only: the script never parses markup)."""

    protocol: int
    item: str
    lang: str
    version: int
    editable: bool
    locked: str
    advance: bool
    nav: Nav
    card: Card
    actions: Actions
    lists: Lists
    suggestions: Suggestions
    placeholders: Placeholders
    reasons: list[ReasonChoice]
    scope: str
    login: str
    check: Check | None
    feedback: Feedback | None
    ack: str | None
    comments: Comments
    history: History


# --- what the script sends: one event at a time ----------------------------------------------------------------


@dataclass(frozen=True)
class AreaEvent:
    """The envelope every event carries: which item-language, at which version the element drew it, its id."""

    KIND: ClassVar[str] = ""
    item: str
    lang: str
    version: int
    seq: str


@dataclass(frozen=True)
class AddEvent(AreaEvent):
    """A candidate typed into ``side``'s Add box."""

    KIND: ClassVar[str] = "add"
    side: Side
    text: str


@dataclass(frozen=True)
class AddManyEvent(AreaEvent):
    """Several pasted lines added together (all or nothing)."""

    KIND: ClassVar[str] = "add_many"
    side: Side
    text: str


@dataclass(frozen=True)
class RemoveEvent(AreaEvent):
    """A row removed; ``side`` and ``text`` only name the candidate in the message, as the element showed it."""

    KIND: ClassVar[str] = "remove"
    key: str
    side: Side | None = None
    text: str = ""


@dataclass(frozen=True)
class MoveEvent(AreaEvent):
    """A row moved to the other list; ``side`` is the list it was in."""

    KIND: ClassVar[str] = "move"
    key: str
    side: Side | None = None
    text: str = ""


@dataclass(frozen=True)
class DoneEvent(AreaEvent):
    """The item-language marked done."""

    KIND: ClassVar[str] = "done"


@dataclass(frozen=True)
class DiscussEvent(AreaEvent):
    """The item-language sent to discussion with a note."""

    KIND: ClassVar[str] = "discuss"
    text: str


@dataclass(frozen=True)
class DiscardEvent(AreaEvent):
    """Discarded with a reason ("": none chosen, which the service refuses) and a note."""

    KIND: ClassVar[str] = "discard"
    reason: DiscardReason | Literal[""]
    text: str


@dataclass(frozen=True)
class ReopenEvent(AreaEvent):
    """A finished item-language opened again."""

    KIND: ClassVar[str] = "reopen"


@dataclass(frozen=True)
class UndoEvent(AreaEvent):
    """The last change of this item-language undone."""

    KIND: ClassVar[str] = "undo"


@dataclass(frozen=True)
class NextEvent(AreaEvent):
    """The next item of the queue."""

    KIND: ClassVar[str] = "next"


@dataclass(frozen=True)
class PreviousEvent(AreaEvent):
    """The previous item of the queue."""

    KIND: ClassVar[str] = "previous"


@dataclass(frozen=True)
class CommentEvent(AreaEvent):
    """A comment added to the item-language."""

    KIND: ClassVar[str] = "comment"
    text: str


@dataclass(frozen=True)
class CheckEvent(AreaEvent):
    """The text typed in an Add box, to check (nothing is saved)."""

    KIND: ClassVar[str] = "check"
    side: Side
    text: str


@dataclass(frozen=True)
class AdvanceEvent(AreaEvent):
    """The page's "Next item after Done" turned on or off."""

    KIND: ClassVar[str] = "advance"
    on: bool


@dataclass(frozen=True)
class AcceptEvent(AreaEvent):
    """A suggestion taken into ``side``."""

    KIND: ClassVar[str] = "accept"
    side: Side
    text: str


@dataclass(frozen=True)
class DismissEvent(AreaEvent):
    """A suggestion turned down (``side``: the list it was suggested for)."""

    KIND: ClassVar[str] = "dismiss"
    side: Side
    text: str


#: Every event the script may send, by its ``type``.
EVENTS: dict[str, type[AreaEvent]] = {
    kind.KIND: kind
    for kind in (
        AddEvent, AddManyEvent, RemoveEvent, MoveEvent, DoneEvent, DiscussEvent, DiscardEvent, ReopenEvent,
        UndoEvent, NextEvent, PreviousEvent, CommentEvent, CheckEvent, AdvanceEvent, AcceptEvent, DismissEvent,
    )
}  # fmt: skip


#: The field types of each event kind, resolved once per kind (not on every event).
_HINTS: dict[type[AreaEvent], dict[str, Any]] = {}


class EventRefused(ValueError):
    """A message that is not an event of this protocol (forged, malformed, or from a page of another version);
    the text says which field broke which rule."""


def _field_value(kind: str, name: str, hint: Any, raw: object) -> object:
    """``raw`` as the field's type, or ``EventRefused`` naming the rule it breaks."""
    where = f"event {kind!r}, field {name!r}"
    options = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    if raw is None and type(None) in options:
        return None
    allowed: list[object] = []  # the values of the field's enums and literals
    for option in options:
        if isinstance(option, type) and issubclass(option, enum.Enum):
            if raw in (values := [member.value for member in option]):
                return option(raw)
            allowed += values
        elif get_origin(option) is Literal:
            if raw in (values := list(get_args(option))):
                return raw
            allowed += values
    if allowed:
        raise EventRefused(f"{where}: must be one of {allowed}, not {raw!r}")
    for wanted, said in ((bool, "true or false"), (int, "a whole number")):  # (bool before int: True is an int)
        if wanted in options:
            if type(raw) is not wanted:
                raise EventRefused(f"{where}: must be {said}, not {raw!r}")
            return raw
    if not isinstance(raw, str):
        raise EventRefused(f"{where}: must be text, not {type(raw).__name__}")
    if len(raw) > MAX_EVENT_TEXT:
        raise EventRefused(f"{where}: longer than {MAX_EVENT_TEXT} characters")
    return raw[:MAX_SEQ] if name == "seq" else raw


def parse_event(value: object) -> AreaEvent:
    """The event in the element's trigger value, as its kind's dataclass; ``EventRefused`` (saying why) for
    anything the script of this protocol version does not send: an unknown kind, a missing, extra or ill-typed
    field."""
    if not isinstance(value, Mapping):
        raise EventRefused(f"an event is an object, not {type(value).__name__}")
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in EVENTS:
        raise EventRefused(f"unknown event type {kind!r}")
    cls = EVENTS[kind]
    if value.get("protocol") != VERSION:
        raise EventRefused(
            f"event {kind!r} is of protocol {value.get('protocol')!r}, this server speaks {VERSION}: reload the page"
        )
    hints = _HINTS.get(cls) or _HINTS.setdefault(cls, typing.get_type_hints(cls))
    fields = {f.name: f for f in dataclasses.fields(cls)}
    extra = set(value) - set(fields) - {"type", "protocol"}
    if extra:
        raise EventRefused(f"event {kind!r}: unknown fields {sorted(extra)}")
    parsed: dict[str, object] = {}
    for name, spec in fields.items():
        if name not in value:
            if spec.default is dataclasses.MISSING:
                raise EventRefused(f"event {kind!r}: field {name!r} is missing")
            continue
        parsed[name] = _field_value(kind, name, hints[name], value[name])
    return cls(**parsed)  # type: ignore[arg-type]  # every field checked against its type above
