"""A kind of change the app does not have, added by the tests to show one place adds a command."""

from __future__ import annotations

from dataclasses import dataclass, replace

from annotator.domain import workflow
from annotator.domain.model import Side
from annotator.domain.rules import Change, Situation
from annotator.errors import UserError


@dataclass(frozen=True)
class PutFirst:
    """A kind of change the app does not have: put a candidate first in its list."""

    key: str


def put_first(s: Situation, c: PutFirst) -> Change:
    """Its rule, written as the app's own are: the rights and the state from ``workflow``, a refusal in words."""
    workflow.check_can_edit(s.user, s.current.lang)
    workflow.check_editable(s.current, s.user)
    found = s.current.find(c.key)
    if found is None:
        raise UserError(f"{c.key} is in neither list.")
    side, entry = found
    first = (entry, *(e for e in s.current.side(side) if e.key != c.key))
    moved = replace(s.current, good=first) if side is Side.GOOD else replace(s.current, bad=first)
    new = replace(moved, status=workflow.status_after_edit(s.current))
    return Change(new, "put_first", {"candidate": c.key})
