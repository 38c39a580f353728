"""Why a pre-populated list is empty, and suggestions a translator accepts or dismisses (SPEC §5.2, issue 33).

Pure functions over plain data. Pre-population keeps, per item-language, what each lexicon consulted returned
(``LexiconRecord``); ``empty_reasons`` turns it into a translator's sentence. Suggestions come from three sources
(the team's curation, related senses in the lexicons, machine translations scored MISS); ``final_suggestions``
ranks them against the item-language's current lists and the user's dismissals. Suggestions never enter a list by
themselves: accepting one is an ordinary add or move by the translator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.domain.candidates import CandidateError, key_string, parse_candidate
from annotator.domain.lexicon_records import SynsetRecord
from annotator.domain.model import ItemLanguage, SenseEntry

RECORD_VERSION = 1
#: Lemmas of σ kept per lexicon in the record (enough to name them in a sentence; the count is kept whole).
RECORD_LEMMAS = 5

#: Sides a suggestion proposes: add to GOOD, add to BAD, or move from BAD to GOOD.
GOOD, BAD, MOVE_TO_GOOD = "GOOD", "BAD", "move-to-GOOD"
#: Sources of suggestions, in the order they are ranked (a team GOOD first; a team BAD last).
TEAM, RELATED, MT = "team", "related", "mt"
#: The relation label of σ's own lexicalization in a lexicon not allowed for the language.
OTHER_LEXICON = "not allowed lexicon"
#: Relation labels of the team's suggestions and of machine translations.
SAME_SENSE, OTHER_SENSE, TRANSLATION = "same sense", "other sense of the word", "MISS translation"

LANGUAGE_NAMES = {
    "DE": "German", "EN": "English", "ES": "Spanish", "FR": "French", "IT": "Italian", "JA": "Japanese",
    "NL": "Dutch", "PT": "Portuguese", "RU": "Russian", "ZH": "Chinese",
}  # fmt: skip

#: Relation labels in a translator's words.
RELATION_WORDS = {
    "hypernym": "a broader sense",
    "instance_hypernym": "the class it is an instance of",
    "hyponym": "a narrower sense",
    "similar": "a similar sense",
    "also": "a related sense (see also)",
    "verb_group": "a sense of the same verb group",
    "entails": "a sense it entails",
    "derivation": "a derivationally related sense",
}


def language_name(lang: str) -> str:
    return LANGUAGE_NAMES.get(lang.upper(), lang.upper())


# --- what pre-population consulted ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceAnswer:
    """What one lexicon (wordnet lexicon id, or BabelNet source) returned for an item-language."""

    source: str
    allowed: bool
    sigma_count: int  # lemmas it has for σ in the language
    sigma_lemmas: tuple[str, ...]  # the first few of them
    other_count: int  # lemmas it has for the other senses of λ


@dataclass(frozen=True)
class LexiconRecord:
    """Which lexicons pre-population consulted for one item-language and what each returned."""

    lang: str
    provider: str
    lemma: str
    synset: str  # σ when it was recorded (an import that changes σ makes the record stale)
    sources: tuple[SourceAnswer, ...]
    good: int
    bad: int
    senses: int  # |Ω(λ)|

    def to_json(self) -> str:
        return json.dumps(
            {
                "v": RECORD_VERSION,
                "lang": self.lang,
                "provider": self.provider,
                "lemma": self.lemma,
                "synset": self.synset,
                "sources": [
                    [s.source, s.allowed, s.sigma_count, list(s.sigma_lemmas), s.other_count] for s in self.sources
                ],
                "good": self.good,
                "bad": self.bad,
                "senses": self.senses,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> LexiconRecord | None:
        """The stored record, or None when there is none or it is not one this version reads."""
        try:
            data = json.loads(text)
            if data.get("v") != RECORD_VERSION:
                return None
            sources = tuple(
                SourceAnswer(str(name), bool(allowed), int(count), tuple(map(str, lemmas)), int(other))
                for name, allowed, count, lemmas, other in data["sources"]
            )
            return cls(
                str(data["lang"]), str(data["provider"]), str(data["lemma"]), str(data["synset"]), sources,
                int(data["good"]), int(data["bad"]), int(data["senses"]),
            )  # fmt: skip
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def lexicon_record(
    provider: str,
    lemma: str,
    lang: str,
    target_synset: str,
    senses: Sequence[SenseEntry],
    records: Mapping[str, SynsetRecord],
    allowed: Callable[[str], bool],
    consulted: Sequence[str],
    good: int,
    bad: int,
) -> LexiconRecord:
    """What each lexicon returned for (σ, λ, language): ``consulted`` are the allowed lexicons of the language
    (each named, even when it returned nothing); a lexicon not allowed that has words for σ is kept too, so the
    reason can say where the word is."""
    sigma: dict[str, dict[str, str]] = {}
    other: dict[str, set[str]] = {}
    for synset_id, record in records.items():
        is_sigma = synset_id == target_synset
        if not is_sigma and synset_id not in {s.synset for s in senses}:
            continue
        for sense in record.senses:
            if sense.lang != lang:
                continue
            word = " ".join(sense.lemma.replace("_", " ").split())
            if is_sigma:
                sigma.setdefault(sense.source, {}).setdefault(word.casefold(), word)
            elif allowed(sense.source):
                other.setdefault(sense.source, set()).add(word.casefold())
    names = list(dict.fromkeys(consulted))
    names += [name for name in sorted(sigma) if allowed(name) and name not in names]
    names += [name for name in sorted(other) if name not in names]
    answers = [
        SourceAnswer(
            name,
            True,
            len(sigma.get(name, {})),
            tuple(list(sigma.get(name, {}).values())[:RECORD_LEMMAS]),
            len(other.get(name, ())),
        )
        for name in names
    ]
    answers += [
        SourceAnswer(name, False, len(words), tuple(list(words.values())[:RECORD_LEMMAS]), 0)
        for name, words in sorted(sigma.items())
        if not allowed(name) and name not in names
    ]
    return LexiconRecord(lang, provider, lemma, target_synset, tuple(answers), good, bad, len(senses))


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "none"


def _quoted(words: Sequence[str]) -> str:
    return ", ".join(f"“{word}”" for word in words)


def empty_reasons(record: LexiconRecord | None, good_empty: bool, bad_empty: bool) -> tuple[str, str]:
    """(why G0 is empty, why B0 is empty) in a translator's words; "" for a list that is not empty or has no
    record (pre-populated before records were kept)."""
    if record is None:
        return "", ""
    language = language_name(record.lang)
    consulted = [s for s in record.sources if s.allowed]
    names = [s.source for s in consulted]
    good_reason = bad_reason = ""
    if good_empty:
        if not consulted:
            good_reason = f"No {language} lexicon is installed or allowed for this project, so nothing was filled in."
        elif any(s.sigma_count for s in consulted):
            found = [w for s in consulted for w in s.sigma_lemmas]
            good_reason = (
                f"The lexicons consulted ({_listed(names)}) have {_quoted(found)} for this sense, "
                "but not as a valid candidate, so it was left out."
            )
        else:
            good_reason = f"None of the {language} lexicons consulted ({_listed(names)}) has a word for this sense."
        elsewhere = [s for s in record.sources if not s.allowed and s.sigma_count]
        for source in elsewhere:
            good_reason += (
                f" {source.source}, not allowed for {language}, has {source.sigma_count}: "
                f"{_quoted(source.sigma_lemmas)}."
            )
        if record.bad:
            per = [f"{s.source} {s.other_count}" for s in consulted if s.other_count]
            good_reason += (
                f" BAD holds {record.bad} word{'s' if record.bad != 1 else ''} of the other senses of "
                f"“{record.lemma}” instead ({', '.join(per)})."
            )
        elif record.senses > 1:
            good_reason += f" The other senses of “{record.lemma}” have no {language} word there either."
    if bad_empty:
        others = record.senses - 1
        if others <= 0:
            bad_reason = f"“{record.lemma}” has no other sense in the lexicon, so there is nothing to put in BAD."
        elif not consulted:  # said as for GOOD, not as "the lexicons consulted (none)"
            bad_reason = f"No {language} lexicon is installed or allowed for this project, so nothing was filled in."
        elif any(s.other_count for s in consulted):
            bad_reason = (
                f"The {language} words of the other senses of “{record.lemma}” are all words of this sense too, "
                "so they stand in GOOD."
            )
        else:
            plural = "s" if others != 1 else ""
            bad_reason = (
                f"None of the {others} other sense{plural} of “{record.lemma}” has a word in {language} in the "
                f"lexicons consulted ({_listed(names)})."
            )
        if record.good:
            bad_reason += f" GOOD holds {record.good} word{'s' if record.good != 1 else ''} of this sense."
    return good_reason, bad_reason


# --- suggestions ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """A proposed candidate: ``side`` GOOD, BAD or move-to-GOOD; ``source`` team, related or mt."""

    text: str
    side: str
    source: str
    relation: str
    synset: str
    reason: str

    @property
    def key(self) -> str:
        """The candidate identity (SPEC §3) the suggestion stands for: what a dismissal remembers."""
        return candidate_key(self.text)

    def to_dict(self) -> dict[str, str]:
        return {
            "text": self.text,
            "side": self.side,
            "source": self.source,
            "relation": self.relation,
            "synset": self.synset,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Suggestion:
        return cls(*(str(data[name]) for name in ("text", "side", "source", "relation", "synset", "reason")))


def candidate_key(text: str) -> str:
    try:
        candidate = parse_candidate(text)
    except CandidateError:
        return key_string(" ".join(text.split()), None)
    return key_string(candidate.text, candidate.pos)


def valid_candidate(text: str) -> str | None:
    """The canonical text of a word as a candidate, or None when it is not one (SPEC §3)."""
    try:
        return parse_candidate(" ".join(text.replace("_", " ").split())).format()
    except CandidateError:
        return None


def encode_suggestions(suggestions: Iterable[Suggestion]) -> str:
    return json.dumps([s.to_dict() for s in suggestions], ensure_ascii=False, separators=(",", ":"))


def decode_suggestions(text: str | None) -> list[Suggestion]:
    if not text:
        return []
    try:
        return [Suggestion.from_dict(entry) for entry in json.loads(text)]
    except (ValueError, TypeError, KeyError):
        return []


def related_suggestions(
    lang: str,
    target: SynsetRecord | None,
    related: Sequence[tuple[str, SynsetRecord]],
    allowed: Callable[[str], bool],
    excluded_sources: Callable[[str], bool] = lambda _source: False,
) -> list[Suggestion]:
    """Lexicalizations in allowed lexicons of synsets related to σ (``related``: (relation, record), in the order to
    rank), each labelled with the relation and the synset's gloss; then σ's own lexicalizations in lexicons not
    allowed for the language (``excluded_sources``: sources never offered, e.g. machine-translated ones)."""
    found: list[Suggestion] = []
    seen: set[str] = set()
    if target is not None:
        for sense in target.senses:
            if sense.lang != lang or allowed(sense.source) or excluded_sources(sense.source):
                continue
            text = valid_candidate(sense.lemma)
            if text is None or candidate_key(text) in seen:
                continue
            seen.add(candidate_key(text))
            found.append(
                Suggestion(
                    text, GOOD, RELATED, OTHER_LEXICON, target.id,
                    f"A word for this very sense in {sense.source}, a lexicon not allowed for {language_name(lang)}.",
                )
            )  # fmt: skip
    for relation, record in related:
        gloss = record.gloss()
        for sense in record.senses:
            if sense.lang != lang or not allowed(sense.source):
                continue
            text = valid_candidate(sense.lemma)
            if text is None or candidate_key(text) in seen:
                continue
            seen.add(candidate_key(text))
            reason = f"{sense.source} gives it for {RELATION_WORDS.get(relation, relation)}"
            found.append(
                Suggestion(text, GOOD, RELATED, relation, record.id, f"{reason}: {gloss}" if gloss else reason)
            )
    return found


@dataclass(frozen=True)
class TeamCandidate:
    """A candidate curated GOOD on another item-language of the same language: whose, on which item, which σ."""

    text: str
    item_id: str
    synset: str
    user: str


def team_suggestions(
    target_synset: str, lemma: str, curated: Iterable[TeamCandidate], rank_of: Mapping[str, int]
) -> tuple[list[Suggestion], list[Suggestion]]:
    """(GOOD, BAD): candidates the team curated GOOD on other items of σ → GOOD (most items first), and on items of
    another sense of λ (``rank_of``: Ω(λ)'s synsets and ranks) → BAD."""
    groups: dict[tuple[bool, str], dict[str, Any]] = {}
    for entry in curated:
        same = entry.synset == target_synset
        if not same and entry.synset not in rank_of:
            continue
        key = candidate_key(entry.text)
        group = groups.setdefault((same, key), {"text": entry.text, "items": set(), "users": set(), "synsets": []})
        group["items"].add(entry.item_id)
        if entry.user:
            group["users"].add(entry.user)
        if entry.synset not in group["synsets"]:
            group["synsets"].append(entry.synset)
    good, bad = [], []
    for (same, _key), group in groups.items():
        count = len(group["items"])
        users = sorted(group["users"])
        by = f" by {', '.join(users[:3])}{' and others' if len(users) > 3 else ''}" if users else ""
        items = f"{count} other item{'s' if count != 1 else ''}"
        if same:
            reason = f"Curated GOOD for this sense on {items}{by}."
            good.append((-count, group["text"].casefold(), Suggestion(group["text"], GOOD, TEAM, SAME_SENSE,
                                                                      target_synset, reason)))  # fmt: skip
        else:
            synset = min(group["synsets"], key=lambda s: rank_of.get(s, 1 << 30))
            reason = f"Curated GOOD for sense {rank_of.get(synset, '?')} of “{lemma}” on {items}{by}."
            bad.append((-count, group["text"].casefold(), Suggestion(group["text"], BAD, TEAM, OTHER_SENSE,
                                                                     synset, reason)))  # fmt: skip
    return [s for *_order, s in sorted(good, key=lambda e: e[:2])], [s for *_o, s in sorted(bad, key=lambda e: e[:2])]


def final_suggestions(
    state: ItemLanguage,
    team_good: Sequence[Suggestion],
    related: Sequence[Suggestion],
    mt: Sequence[Suggestion],
    team_bad: Sequence[Suggestion],
    dismissed: Iterable[str] = (),
) -> list[Suggestion]:
    """The ranked suggestions against the current lists: a word already in GOOD is not suggested; one in BAD is
    suggested as a move to GOOD when a GOOD was proposed (dropped otherwise); MT words already in a list are
    dropped; dismissed keys are dropped; each word once, from its best-ranked source."""
    good_keys = {entry.key for entry in state.good}
    bad_keys = {entry.key for entry in state.bad}
    gone = set(dismissed)
    result: list[Suggestion] = []
    seen: set[str] = set()
    for suggestion in (*team_good, *related, *mt, *team_bad):
        key = suggestion.key
        if key in seen or key in gone or key in good_keys:
            continue
        if key in bad_keys:
            if suggestion.side != GOOD or suggestion.source == MT:
                continue
            suggestion = Suggestion(
                suggestion.text, MOVE_TO_GOOD, suggestion.source, suggestion.relation, suggestion.synset,
                f"Now in BAD. {suggestion.reason}",
            )  # fmt: skip
        seen.add(key)
        result.append(suggestion)
    return result


#: Parts of speech of content words (a translation word of another tag is not suggested when the analyser tags).
CONTENT_POS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
#: Machine-translation words suggested per item-language at most.
MT_SHOWN = 8


@dataclass(frozen=True)
class MissTranslation:
    """A translation scored MISS on the item-language: its system and its words as (form, lemma, UPOS or None)."""

    system: str
    text: str
    words: tuple[tuple[str, str, str | None], ...]


def mt_suggestions(
    missed: Sequence[MissTranslation],
    target_pos: str,
    explained: Callable[[str], bool] = lambda _lemma: False,
    common: Callable[[str], bool] = lambda _lemma: False,
) -> list[Suggestion]:
    """Lemmas of the MISS translations' content words, each labelled with the systems that used it: words of the
    target's part of speech first (when the analyser tags), then in order of appearance. ``explained``: lemmas
    that translate another content word of the sentence (left out); ``common``: lemmas too frequent across the
    language's translations to be a content word (left out when the analyser gives no parts of speech)."""
    order: dict[str, tuple[int, int, str]] = {}
    systems: dict[str, list[str]] = {}
    position = 0
    for translation in missed:
        for form, lemma, upos in translation.words:
            word = lemma or form
            if not any(ch.isalpha() for ch in word):
                continue
            if upos is not None and upos not in CONTENT_POS:
                continue
            if upos is None and common(word.casefold()):
                continue
            if explained(word.casefold()):
                continue
            text = valid_candidate(word)
            if text is None:
                continue
            key = candidate_key(text)
            position += 1
            order.setdefault(key, (0 if upos == target_pos else 1, position, text))
            names = systems.setdefault(key, [])
            if translation.system not in names:
                names.append(translation.system)
    ranked = sorted(order.items(), key=lambda entry: entry[1][:2])[:MT_SHOWN]
    result = []
    for key, (_pos, _at, text) in ranked:
        names = systems[key]
        plural = "s" if len(names) > 1 else ""
        reason = f"In the translation{plural} by {', '.join(names)}, scored MISS (no candidate matched)."
        result.append(Suggestion(text, GOOD, MT, TRANSLATION + ": " + ", ".join(names), "", reason))
    return result
