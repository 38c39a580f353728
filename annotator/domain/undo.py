"""Undo: a user's last change on an item-language is reversed by a new change, never by deleting history.

Every change made through the curation service records in its history row, under ``"before"``, the fields it
altered as they were (candidate sets with their full provenance, status, notes, who set the status). Undo restores
those fields on the current state. That is exact only while the current state is still the one the change left,
so undo is refused as soon as anybody else (or any tool) has changed the item-language since; and it is itself a
change that records its own ``before``, so undoing an undo redoes.

What a role may undo follows the workflow: undo reverses one step, and that reverse step must be one the user may
take — leaving a done item is reopening it (its curator or a lead), leaving a discarded item is reopening it (a lead,
or the translator who discarded it while that discard is still the item's last change: a translator may take back
their own Discard on the item they just left, though reopening it later is for leads), changing a DISCUSS item is
for the translator who flagged it or a lead, and closing a DISCUSS item (undoing the undo of a resolution) is a lead's
resolution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from annotator.domain import workflow
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    HistoryEntry,
    ItemLanguage,
    Origin,
    Status,
    SuggestedFrom,
    User,
)
from annotator.errors import PermissionDenied

#: The history action of an undo, and the detail key that holds the state before a change.
UNDO_ACTION = "undo"
BEFORE_KEY = "before"

#: What undo restores: every field of the curation state except identity and bookkeeping (version, last writer).
RESTORED_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(ItemLanguage) if f.name not in ("item_id", "lang", "version", "updated_by", "updated_at")
)
_ENTRY_FIELDS = ("good", "bad", "initial_good", "initial_bad")

#: How the history's actions read in messages ("Undone: adding goccio"); ``{}`` is the candidate when recorded.
ACTION_LABEL = {
    "add": "adding {}",
    "remove": "removing {}",
    "move": "moving {}",
    "edit": "editing the sets",
    "done": "Done",
    "discuss": "DISCUSS flag",
    "discuss_note": "DISCUSS note change",
    "discard": "Discard",
    "reopen": "Reopen",
    "resolve": "resolution",
    "sheet_edit": "editing the sets (sheet import)",
    "accept_suggestion": "accepting the suggestion {}",
    "dismiss_suggestion": "dismissing the suggestion {}",
    "adjudicate": "adjudication",
    "prepopulate": "pre-population",
    UNDO_ACTION: "undo",
}


def action_words(action: str) -> str:
    """A history action in words (never its id: an action this module does not name reads as its words)."""
    return ACTION_LABEL.get(action, action.replace("_", " "))


class UndoRefused(workflow.WorkflowError):
    """Undo is not possible now; the message says why, and nothing was changed."""


# --- recording: the fields a change alters, as they were ----------------------------------------------------


def _entry_json(entry: CandidateEntry) -> dict[str, Any]:
    found = {"text": entry.text, "pos": entry.pos, "origin": entry.origin.value, "synsets": list(entry.synsets)}
    return found | ({"suggestion": entry.suggested.to_json()} if entry.suggested is not None else {})


def _entry_from_json(data: Mapping[str, Any]) -> CandidateEntry:
    return CandidateEntry(
        str(data["text"]), data.get("pos"), Origin(data.get("origin", "translator")), tuple(data.get("synsets", ())),
        SuggestedFrom.from_json(data.get("suggestion")),
    )  # fmt: skip


def _entries_json(old: Sequence[CandidateEntry], new: Sequence[CandidateEntry]) -> list[Any]:
    """``old`` as JSON, compactly: an entry that ``new`` still holds unchanged is its index there (an add records
    ``[0, 1]``, not two full entries); any other entry is written out with its origin and synsets."""
    index: dict[CandidateEntry, int] = {}
    for number, entry in enumerate(new):
        index.setdefault(entry, number)
    return [index[entry] if entry in index else _entry_json(entry) for entry in old]


def _entries_value(data: Sequence[Any], current: Sequence[CandidateEntry]) -> tuple[CandidateEntry, ...]:
    entries = []
    for element in data:
        if isinstance(element, int):
            if not 0 <= element < len(current):
                raise UndoRefused("The recorded state does not fit the current one; it cannot be restored.")
            entries.append(current[element])
        else:
            entries.append(_entry_from_json(element))
    return tuple(entries)


def _field_json(old: ItemLanguage, new: ItemLanguage, name: str) -> Any:
    value = getattr(old, name)
    if name in _ENTRY_FIELDS:
        return _entries_json(value, getattr(new, name))
    if name == "overlaps":
        return list(value)
    if name in ("status", "discard_reason"):
        return value.value if value is not None else None
    return value


def _field_value(current: ItemLanguage, name: str, data: Any) -> Any:
    if name in _ENTRY_FIELDS:
        return _entries_value(data, getattr(current, name))
    if name == "overlaps":
        return tuple(data)
    if name == "status":
        return Status(data)
    if name == "discard_reason":
        return DiscardReason(data) if data else None
    return data


def before_of(old: ItemLanguage, new: ItemLanguage) -> dict[str, Any]:
    """JSON-ready values, in ``old``, of the fields ``new`` changes: what undoing the change restores (candidate
    lists refer to the entries ``new`` kept by index, so only ``restore`` on ``new`` itself reads them right)."""
    return {name: _field_json(old, new, name) for name in RESTORED_FIELDS if getattr(old, name) != getattr(new, name)}


def restore(current: ItemLanguage, before: Mapping[str, Any]) -> ItemLanguage:
    """``current`` — the state the change left — with the recorded fields set back (a damaged record is refused)."""
    unknown = sorted(set(before) - set(RESTORED_FIELDS))
    if unknown:
        raise UndoRefused(f"The recorded state has unknown fields ({', '.join(unknown)}); it cannot be restored.")
    try:
        return replace(current, **{name: _field_value(current, name, data) for name, data in before.items()})
    except (KeyError, TypeError, ValueError) as error:
        raise UndoRefused(f"The recorded state is damaged ({error!r}); it cannot be restored.") from None


# --- deciding: whose change, whether it can be reversed, whether this user may -------------------------------


@dataclass(frozen=True)
class UndoPlan:
    """The change to undo and the state undoing it leaves."""

    undone: HistoryEntry
    restored: ItemLanguage

    @property
    def detail(self) -> dict[str, Any]:
        """The undo's own history detail (the service adds its ``before``, so an undo can be undone: a redo)."""
        return {"undid": self.undone.action, "undid_version": self.undone.version}


def describe(entry: HistoryEntry) -> str:
    """A change as a translator would name it: "adding goccio", "Done", "undo of Done"."""
    label = action_words(entry.action)
    subject = entry.detail.get("candidate")
    if subject is None and isinstance(entry.detail.get("candidates"), list):
        subject = ", ".join(map(str, entry.detail["candidates"]))
    if entry.action == UNDO_ACTION:
        undid = str(entry.detail.get("undid") or "")
        return f"undo of {action_words(undid).replace('{}', '').strip()}" if undid else label
    words = label.replace("{}", str(subject or "")).strip()
    if entry.action == "accept_suggestion" and entry.detail.get("side") in ("good", "bad"):
        words += f" into {str(entry.detail['side']).upper()}"
    return words


def outcome(plan: UndoPlan, history: Sequence[HistoryEntry]) -> str:
    """What an undo did, in words: "Undone: adding sorso." — or, when it undid an undo, "Redone: adding sorso."."""
    if plan.undone.action != UNDO_ACTION:
        return f"Undone: {describe(plan.undone)}."
    undid_version = plan.undone.detail.get("undid_version")
    original = next((h for h in reversed(history) if h.version == undid_version and h.action != UNDO_ACTION), None)
    return f"Redone: {describe(original)}." if original is not None else f"Undone: {describe(plan.undone)}."


def plan_undo(user: User, current: ItemLanguage, history: Sequence[HistoryEntry]) -> UndoPlan:
    """What undoing ``user``'s last change on ``current`` restores; ``history`` is oldest first.

    Refused (``UndoRefused`` / ``PermissionDenied``, nothing to change) when the user has no change there, when
    anyone changed it after them, when their change recorded no ``before`` (it predates undo, or came from a tool
    that does not record it), or when the reverse step is one their role may not take.
    """
    where = f"{current.item_id} [{current.lang}]"
    if not any(h.user == user.name for h in history):
        raise UndoRefused(f"Nothing to undo: you have not changed {where}.")
    last = history[-1]
    if last.user != user.name or last.version != current.version:
        who = last.user if last.user != user.name else (current.updated_by or "someone")
        raise UndoRefused(
            f"{who} changed {where} after you ({describe(last)}, {last.at[:16].replace('T', ' ')} UTC); "
            "undo would overwrite their change."
        )
    before = last.detail.get(BEFORE_KEY)
    if not isinstance(before, dict):
        raise UndoRefused(
            f"Your last change on {where} ({describe(last)}) cannot be undone: it was saved without the state "
            "before it (before undo existed, or by a tool that does not record it). Change it by hand instead."
        )
    restored = restore(current, before)
    if restored == current:
        raise UndoRefused(f"Nothing to undo: your last change on {where} ({describe(last)}) left its state as it was.")
    check_may_reverse(user, current, restored)
    return UndoPlan(last, restored)


def check_may_reverse(user: User, current: ItemLanguage, restored: ItemLanguage) -> None:
    """The reverse step ``current`` → ``restored`` must be one the workflow lets ``user`` take (module docstring)."""
    workflow.check_can_edit(user, current.lang)
    where = f"{current.item_id} [{current.lang}]"
    if current.status is Status.DONE:
        workflow.may_reopen(user, current).check()  # undoing a Done reopens the item: the same right
    if current.status is Status.DISCARDED and not user.is_lead and current.status_by != user.name:
        raise PermissionDenied(
            f"Undoing the discard would reopen the discarded {where}, and only a lead (or who discarded it) may "
            "reopen a discarded item: ask a lead (Review page)."
        )
    if current.status is Status.DISCUSS:
        workflow.may_edit_lists(user, current).check()  # a DISCUSS item is changed by its flagger and the leads
    closing = restored.status in (Status.DONE, Status.DISCARDED)
    if current.status is Status.DISCUSS and closing and not user.is_lead:
        raise PermissionDenied(f"Only a lead may resolve the DISCUSS item {where}.")
