"""Pre-population's work lists over ``items`` and ``item_languages``: bounded memory, ids first and rows a page
at a time. Its results are written as ordinary saves (``item_languages``) and lexicon updates (``items``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring as encode_string
from typing import NamedTuple

from sqlalchemy import Connection, func, select

from annotator.domain.model import Status
from annotator.domain.prepopulation import LexiconCandidate
from annotator.store import schema
from annotator.store.item_languages import SHORT_LEXICON, candidates_from_json, candidates_to_json
from annotator.store.rows import IN_CHUNK, dumps, visible


@dataclass(frozen=True)
class PrepopulationTodo:
    item_ids: list[str]
    already_done: int
    excluded: list[str]


class PendingState(NamedTuple):
    """An item-language not pre-populated yet, as a first run needs it: a save of its lists alone
    (``prepare_list_saves``) keeps its status and notes as they are, so only these columns are read."""

    item_id: str
    lang: str
    #: The version it was read at (the save checks nobody saved it meanwhile).
    version: int
    status: Status
    #: Its current GOOD and BAD as a save writes them back (``candidates_to_json``).
    good: str
    bad: str

    @property
    def untouched(self) -> bool:
        """Pending with empty GOOD and BAD: its lists start as G0/B0."""
        return self.status is Status.PENDING and self.good == "[]" and self.bad == "[]"


def _as_saved(stored: str) -> str:
    """A stored list as a save writes it again: decoded and encoded (a list in the older full form comes out in the
    short one); the empty list, nearly every row a first run reads, as it is."""
    return stored if stored == "[]" else candidates_to_json(candidates_from_json(stored))


class PrepopulationRecords:
    """What is left to pre-populate; part of ``Repository``."""

    def prepopulation_todo(self, conn: Connection, langs: Sequence[str]) -> PrepopulationTodo:
        """Which items still have item-languages of ``langs`` to pre-populate, in import order."""
        il, it = schema.item_languages, schema.items
        pending = set(
            conn.execute(
                select(il.c.item_id).where(il.c.prepopulated.is_(False), il.c.lang.in_(list(langs)), visible(il))
            )
            .scalars()
            .all()
        )
        done = conn.execute(
            select(func.count())
            .select_from(il)
            .where(il.c.prepopulated.is_(True), il.c.lang.in_(list(langs)), visible(il))
        ).scalar_one()
        todo: list[str] = []
        excluded: list[str] = []
        for item_id, is_excluded in conn.execute(
            select(it.c.id, it.c.excluded).where(visible(it)).order_by(it.c.position)
        ).all():
            if item_id in pending:
                (excluded if is_excluded else todo).append(item_id)
        return PrepopulationTodo(todo, int(done), excluded)

    def to_prepopulate(
        self, conn: Connection, item_ids: Sequence[str], langs: Sequence[str]
    ) -> dict[str, list[PendingState]]:
        """The not yet pre-populated item-languages of ``langs`` of these items, in language order."""
        il = schema.item_languages
        columns = (
            il.c.item_id, il.c.lang, il.c.version, il.c.status,
            func.coalesce(il.c.good, il.c.initial_good), func.coalesce(il.c.bad, il.c.initial_bad),
        )  # fmt: skip
        found: dict[str, list[PendingState]] = {}
        for start in range(0, len(item_ids), IN_CHUNK):
            chunk = list(item_ids[start : start + IN_CHUNK])
            query = select(*columns).where(
                il.c.item_id.in_(chunk), il.c.prepopulated.is_(False), il.c.lang.in_(list(langs)), visible(il)
            )
            rows = conn.execute(query.order_by(il.c.item_id, il.c.lang)).all()  # one fetch, not one call per row
            for item_id, lang, version, status, good, bad in rows:
                state = PendingState(item_id, lang, version, Status(status), _as_saved(good), _as_saved(bad))
                found.setdefault(item_id, []).append(state)
        return found


def lexicon_list_json(candidates: Sequence[LexiconCandidate], fragments: dict[LexiconCandidate, str]) -> str:
    """A G0/B0 list exactly as ``candidates_to_json`` stores it (lexicon origin, no tag, no suggestion: the short
    form), each candidate's JSON written once and kept in ``fragments``: a lexicon candidate recurs in the lists of
    its lemma's items."""
    parts = []
    for candidate in candidates:
        part = fragments.get(candidate)
        if part is None:
            synsets = ",".join(map(dumps, candidate.synsets))
            part = fragments[candidate] = f'{SHORT_LEXICON}[{synsets}],"text":{dumps(candidate.text)}}}'
        parts.append(part)
    return "[" + ",".join(parts) + "]"


def one_synset_candidates_json(synset: str, texts: Sequence[str]) -> str:
    """The candidates ``texts``, each standing for ``synset`` alone, as ``lexicon_list_json`` writes them inside a
    list, joined by commas without the brackets: lists whose candidates each stand for one synset are built by
    joining these parts."""
    head = f'{SHORT_LEXICON}[{encode_string(synset)}],"text":'
    return ",".join([f"{head}{encode_string(text)}}}" for text in texts])
