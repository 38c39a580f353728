"""The curation rules as tables, with no database and no Streamlit: ``workflow``'s predicates, ``rules.decide`` and
``capabilities`` over roles x statuses x commands. Each right is one predicate: ``decide`` accepts a command exactly
when ``capabilities`` offers it, and changing the predicate changes both."""

from __future__ import annotations

import dataclasses
import itertools
import typing
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from annotator.domain import commands, queue_navigation, rules, workflow
from annotator.domain.capabilities import Capabilities, capabilities
from annotator.domain.commands import Address
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    Item,
    ItemLanguage,
    Role,
    Side,
    Status,
    Target,
    User,
)
from annotator.domain.rules import Situation
from annotator.domain.unicode_rules import UnstorableTextError
from annotator.errors import PermissionDenied, UserError

LANG = "IT"
ITEM = Item("shot", "He drank a shot of whiskey.", Target("shot", 10, 14, "shot", "NOUN"), "bn:1n")
TRANSLATOR = User("tina", Role.TRANSLATOR, (LANG,))
OTHER_TRANSLATOR = User("otto", Role.TRANSLATOR, (LANG,))
FOREIGN = User("fred", Role.TRANSLATOR, ("DE",))
LEAD = User("lena", Role.LEAD)
DISABLED_LEAD = User("dora", Role.LEAD, disabled=True)
USERS = (TRANSLATOR, OTHER_TRANSLATOR, FOREIGN, LEAD, DISABLED_LEAD)


def state(status: Status, by: str | None = "tina") -> ItemLanguage:
    """An item-language in ``status`` last set by ``by``, with one GOOD and one BAD candidate."""
    return ItemLanguage(
        ITEM.id, LANG, status=status, version=3, good=(CandidateEntry("goccio"),), bad=(CandidateEntry("sparo"),),
        status_by=by, discuss_note="which?" if status is Status.DISCUSS else "",
        discard_reason=DiscardReason.IDIOM if status is Status.DISCARDED else None,
    )  # fmt: skip


#: Each offered action and a command that takes it (the capability's field -> the command).
ACTIONS: dict[str, commands.Command] = {
    "edit": commands.AddCandidate(Side.GOOD, "cicchetto"),
    "done": commands.MarkDone(),
    "discuss": commands.FlagDiscuss("which sense?"),
    "discard": commands.Discard(DiscardReason.IDIOM),
    "reopen": commands.Reopen(),
    "resolve": commands.Resolve(Status.DONE, "agreed"),
    "comment": commands.PostComment("a note"),
}
COPY_ACTIONS = ("edit", "done", "discuss", "discard", "reopen")


def accepted(user: User, il: ItemLanguage, command: Any, address: Address | None = None, **situation: Any) -> bool:
    try:
        rules.decide(Situation(user, ITEM, il, address or Address(ITEM.id, LANG), **situation), command)
    except UserError:
        return False
    return True


# --- the predicates, as SPEC §5 states them ------------------------------------------------------------------------

#: (status, set by the translator herself) -> who may reopen: T = the translator, O = another translator, L = a lead.
REOPEN = {
    (Status.DONE, True): "TL",
    (Status.DONE, False): "L",
    (Status.DISCARDED, True): "L",
    (Status.DISCARDED, False): "L",
    (Status.PENDING, True): "",
    (Status.IN_PROGRESS, True): "",
    (Status.DISCUSS, True): "",
}
#: status -> who may edit the lists when the translator flagged / set it.
EDIT_LISTS = {
    Status.PENDING: "TOL", Status.IN_PROGRESS: "TOL", Status.DISCUSS: "TL", Status.DONE: "", Status.DISCARDED: "",
}  # fmt: skip
WHO = {"T": TRANSLATOR, "O": OTHER_TRANSLATOR, "L": LEAD}


@pytest.mark.parametrize(("status", "own"), list(REOPEN))
def test_who_may_reopen(status: Status, own: bool) -> None:
    il = state(status, "tina" if own else "someone")
    for letter, user in WHO.items():
        assert workflow.may_reopen(user, il).allowed is (letter in REOPEN[(status, own)]), (letter, status, own)


@pytest.mark.parametrize("status", list(Status))
def test_who_may_edit_the_lists_and_who_may_resolve(status: Status) -> None:
    il = state(status)
    for letter, user in WHO.items():
        assert workflow.may_edit_lists(user, il).allowed is (letter in EDIT_LISTS[status]), (letter, status)
        assert workflow.may_resolve(user, il).allowed is (letter == "L" and status is Status.DISCUSS)
    assert not workflow.may_resolve(DISABLED_LEAD, state(Status.DISCUSS)).allowed
    assert workflow.may_set_status(il).allowed is (status in workflow.OPEN)


def test_a_refusal_names_no_key() -> None:
    """Domain text says what is refused; the page adds the key that acts ("(o)")."""
    texts = [
        capabilities(user, state(status, by), statuses).locked
        for user, status, by, statuses in itertools.product(
            USERS, Status, ("tina", "someone"), (None, [Status.DONE, Status.PENDING], [Status.DONE, Status.DONE])
        )
    ]
    texts += [workflow.may_reopen(TRANSLATOR, state(s, "x")).reason for s in Status]
    assert texts and not [t for t in texts if "(o)" in t or "(u)" in t or "key" in t]


@pytest.mark.parametrize("status", list(Status))
def test_finished_means_closed_for_an_item_and_decided_for_a_copy(status: Status) -> None:
    assert (status in workflow.FINISHED) is (status in (Status.DONE, Status.DISCARDED))
    assert (status in workflow.COPY_FINISHED) is (status in (Status.DONE, Status.DISCUSS, Status.DISCARDED))


# --- decide and capabilities agree, over roles x statuses x commands ----------------------------------------------


@pytest.mark.parametrize(("status", "by"), list(itertools.product(Status, ("tina", "someone"))))
@pytest.mark.parametrize("user", USERS, ids=lambda u: u.name)
def test_capabilities_offer_exactly_what_decide_accepts(user: User, status: Status, by: str) -> None:
    il = state(status, by)
    may = capabilities(user, il)
    for action, command in ACTIONS.items():
        assert getattr(may, action) is accepted(user, il, command), (action, user.name, status, by)
    assert may.edit is accepted(user, il, commands.RemoveCandidate("goccio"))
    assert may.edit is accepted(user, il, commands.MoveCandidate("goccio", Side.BAD))
    assert (may.locked == "") is may.edit  # a locked list always says why


@pytest.mark.parametrize("status", list(Status))
@pytest.mark.parametrize("others", [[], [Status.PENDING], [Status.DONE], [Status.DISCUSS], [Status.DISCARDED]], ids=str)
@pytest.mark.parametrize("user", (TRANSLATOR, FOREIGN), ids=lambda u: u.name)
def test_a_copy_capabilities_offer_exactly_what_decide_accepts(
    user: User, status: Status, others: list[Status]
) -> None:
    copy = state(status, user.name)
    statuses = [status, *others]
    may = capabilities(user, copy, statuses)
    address = Address(ITEM.id, LANG, user.name)
    for action in COPY_ACTIONS:
        got = accepted(user, copy, ACTIONS[action], address, copy_statuses=statuses, assignment="open")
        assert getattr(may, action) is got, (action, status, others)
    for action in ("resolve", "comment"):  # a copy has no thread and no resolution
        assert not getattr(may, action)
        assert not accepted(user, copy, ACTIONS[action], address, copy_statuses=statuses, assignment="open")
    all_finished = all(s in workflow.COPY_FINISHED for s in statuses)
    expected_reopen = user is TRANSLATOR and status in workflow.COPY_FINISHED and not all_finished
    assert may.reopen is expected_reopen


def test_an_assigned_item_language_takes_no_ordinary_change_and_a_closed_copy_none() -> None:
    il = state(Status.PENDING)
    assert not accepted(LEAD, il, commands.AddCandidate(Side.GOOD, "x"), assignment="open")
    assert accepted(LEAD, il, commands.PostComment("how is it going?"), assignment="open")
    copy_at = Address(ITEM.id, LANG, "tina")
    assert not accepted(TRANSLATOR, il, commands.AddCandidate(Side.GOOD, "x"), copy_at, assignment="adjudicated")


@pytest.mark.parametrize("user", USERS, ids=lambda u: u.name)
@pytest.mark.parametrize("copies", [(Status.DONE, Status.DISCUSS), (Status.DONE, Status.IN_PROGRESS), ()], ids=str)
@pytest.mark.parametrize("assignment", ["open", "adjudicated", ""])
def test_who_may_adjudicate(user: User, copies: tuple[Status, ...], assignment: str) -> None:
    seen = tuple(state(s, name) for s, name in zip(copies, ("ana", "ben"), strict=False))
    command = commands.Adjudicate(("goccio",), ())
    situation = {"assignment": assignment, "copies": seen, "copy_statuses": copies}
    expected = (
        user is LEAD and assignment == "open" and bool(copies) and all(s in workflow.COPY_FINISHED for s in copies)
    )
    assert accepted(user, state(Status.PENDING, None), command, **situation) is expected
    if expected:
        change = rules.decide(Situation(user, ITEM, state(Status.PENDING, None), Address(ITEM.id, LANG),
                                           **situation), command)  # fmt: skip
        assert change.closes_assignment and change.new.status is Status.DONE
        assert change.detail["sources"]["goccio"] == ["ana", "ben"][: len(copies)]


# --- one predicate per right: change it, and decide and capabilities both change ----------------------------------


def allow(*_args: Any) -> workflow.Verdict:
    return workflow.ALLOWED


def refuse(*_args: Any) -> workflow.Verdict:
    return workflow.Verdict(False, "refused by the changed rule", PermissionDenied)


PREDICATES: list[tuple[str, Callable[..., workflow.Verdict], str, ItemLanguage, dict[str, Any]]] = [
    # predicate, its replacement, the capability, the state, the copy's statuses (None: the item-language)
    ("may_reopen", allow, "reopen", state(Status.DONE, "someone"), {}),
    ("may_reopen", refuse, "reopen", state(Status.DONE, "tina"), {}),
    ("may_edit_lists", refuse, "edit", state(Status.IN_PROGRESS), {}),
    ("may_edit_lists", allow, "edit", state(Status.DISCUSS, "someone"), {}),
    ("may_set_status", allow, "discuss", state(Status.DONE), {}),
    ("may_set_status", refuse, "done", state(Status.IN_PROGRESS), {}),
    ("may_reopen_copy", allow, "reopen", state(Status.DONE), {"copy_statuses": [Status.DONE, Status.DONE]}),
    ("may_edit_copy", refuse, "edit", state(Status.IN_PROGRESS), {"copy_statuses": [Status.IN_PROGRESS]}),
]


@pytest.mark.parametrize(("name", "replacement", "action", "il", "copy"), PREDICATES)
def test_changing_one_predicate_changes_decide_and_capabilities(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    replacement: Callable[..., workflow.Verdict],
    action: str,
    il: ItemLanguage,
    copy: dict[str, Any],
) -> None:
    statuses = copy.get("copy_statuses")
    address = Address(ITEM.id, LANG, "tina") if statuses is not None else None
    extra = {"copy_statuses": statuses, "assignment": "open"} if statuses is not None else {}

    def both() -> tuple[bool, bool]:
        offered: Capabilities = capabilities(TRANSLATOR, il, statuses)
        return getattr(offered, action), accepted(TRANSLATOR, il, ACTIONS[action], address, **extra)

    before = both()
    assert before[0] is before[1]
    monkeypatch.setattr(workflow, name, replacement)
    after = both()
    assert after[0] is after[1] and after != before, (name, before, after)


# --- the command union and its declarations -----------------------------------------------------------------------


def union_mismatch(union: Any, rules: dict[type, Any]) -> tuple[set[type], set[type]]:
    """Kinds of the union without a rule, and rules for no kind of the union."""
    kinds = set(typing.get_args(union))
    return kinds - set(rules), set(rules) - kinds


def test_rules_cover_the_command_union_exactly() -> None:
    assert union_mismatch(commands.Command, rules.RULES) == (set(), set())
    # the check fails both ways on a synthetic violation
    missing = {kind: rule for kind, rule in rules.RULES.items() if kind is not commands.Reopen}
    assert union_mismatch(commands.Command, missing) == ({commands.Reopen}, set())
    extra = {**rules.RULES, int: None}
    assert union_mismatch(commands.Command, extra) == (set(), {int})


#: Fields that are no user text (a fixed history action name).
NOT_TEXT = {("ReplaceCandidates", "action")}


def sample(kind: type, bad_field: str | None) -> Any:
    """An instance of ``kind`` with benign values, ``bad_field`` holding text no database can store."""
    values: dict[str, Any] = {}
    hints = typing.get_type_hints(kind)
    for field in dataclasses.fields(kind):
        hint = str(hints[field.name])
        text = "a\x00b" if field.name == bad_field else "ok"
        if "tuple" in hint:
            values[field.name] = ("ok", text)
        elif "Side" in hint:
            values[field.name] = Side.GOOD
        elif "Status" in hint:
            values[field.name] = Status.DONE
        elif "DiscardReason" in hint:
            values[field.name] = None
        else:
            values[field.name] = text
    return kind(**values)


@pytest.mark.parametrize("kind", typing.get_args(commands.Command), ids=lambda k: k.__name__)
def test_every_command_declares_its_text_fields(kind: type) -> None:
    address = Address(ITEM.id, LANG)
    rules.check_storable(address, sample(kind, None))
    for field in dataclasses.fields(kind):
        hint = str(typing.get_type_hints(kind)[field.name])
        if (kind.__name__, field.name) in NOT_TEXT or not ("str" in hint and "Status" not in hint):
            continue
        with pytest.raises(UnstorableTextError):
            rules.check_storable(address, sample(kind, field.name))


def test_a_change_says_what_is_written() -> None:
    """Side effects come from the decided change: a comment records no state, a dismissal is the user's own."""
    il = state(Status.IN_PROGRESS)
    situation = Situation(TRANSLATOR, ITEM, il, Address(ITEM.id, LANG))
    comment = rules.decide(situation, commands.PostComment("hello"))
    assert not comment.records and comment.comment == "hello" and comment.personal is None
    dismissal = rules.decide(situation, commands.DismissSuggestion(Side.GOOD, "Cicchetto"))
    assert dismissal.personal is not None and dismissal.personal.key == "cicchetto" and not dismissal.records
    restore = rules.decide(situation, commands.RestoreSuggestion("cicchetto"))
    assert restore.personal is not None and restore.personal.restore
    done = rules.decide(situation, commands.MarkDone())
    assert done.records and done.personal is None and not done.closes_assignment
    assert done.new == replace(il, status=Status.DONE, status_by="tina")


# --- the queue navigator (Curate, Review, Double curation) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "current", "delta", "expected"),
    [
        (["a", "b", "c"], "b", 1, "c"),
        (["a", "b", "c"], "b", -1, "a"),
        (["a", "b", "c"], "c", 1, "c"),  # held at the ends
        (["a", "b", "c"], "a", -1, "a"),
        (["a", "b", "c"], "z", 1, "a"),  # not in the queue (opened by a link): the first
        ([], "a", 1, None),
    ],
)
def test_queue_step(keys: list[str], current: str, delta: int, expected: str | None) -> None:
    assert queue_navigation.step(keys, current, delta) == expected


def test_queue_position_following_and_leaving() -> None:
    keys = ["a", "b", "c"]
    assert queue_navigation.position(keys, "a") == (0, 3)
    assert not queue_navigation.position(keys, "a").has_previous and queue_navigation.position(keys, "a").has_next
    assert queue_navigation.position(keys, "c").has_previous and not queue_navigation.position(keys, "c").has_next
    assert queue_navigation.position(keys, "z") == (-1, 3) and queue_navigation.position(keys, "z").has_next
    assert not queue_navigation.position([], None).has_next
    assert queue_navigation.following(keys, "b") == "c" and queue_navigation.following(keys, "c") is None
    assert queue_navigation.without(keys, "b") == ["a", "c"]
