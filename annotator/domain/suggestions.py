"""Why a pre-populated list is empty, and suggestions a translator accepts or dismisses (SPEC §5.2).

Pure functions over plain data. Pre-population keeps, per item-language, what each lexicon consulted returned
(``LexiconRecord``); ``empty_reasons`` turns it into a translator's sentence. Suggestions come from three sources
(the team's curation, related senses in the lexicons, machine translations scored MISS); ``final_suggestions``
ranks them against the item-language's current lists and the user's dismissals. Suggestions never enter a list by
themselves: accepting one is an ordinary add or move by the translator.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

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
    "close": "a sense two relations away from this one",
}
#: The relation label of a word of another sense of λ that also lexicalizes a synset two relations from σ: offered
#: only while it stands in BAD (as a move), where it is measured to be right often; elsewhere it is noise.
CLOSE = "close"


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
    """A proposed candidate: ``side`` GOOD, BAD or move-to-GOOD; ``source`` team, related or mt. ``routes``: the
    related synsets (or MT systems) that give the word; ``lexicons``: the lexicons that do (agreement)."""

    text: str
    side: str
    source: str
    relation: str
    synset: str
    reason: str
    routes: int = 1
    lexicons: int = 1

    @property
    def key(self) -> str:
        """The candidate identity (SPEC §3) the suggestion stands for: what a dismissal remembers."""
        return candidate_key(self.text)

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "text": self.text,
            "side": self.side,
            "source": self.source,
            "relation": self.relation,
            "synset": self.synset,
            "reason": self.reason,
        }
        if self.routes != 1:
            found["routes"] = self.routes
        if self.lexicons != 1:
            found["lexicons"] = self.lexicons
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Suggestion:
        text, side, source, relation, synset, reason = (
            str(data[name]) for name in ("text", "side", "source", "relation", "synset", "reason")
        )
        routes, lexicons = int(data.get("routes", 1)), int(data.get("lexicons", 1))
        return cls(text, side, source, relation, synset, reason, routes, lexicons)


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


def cross_pos_form(text: str, pos: str | None, target_pos: str | None) -> str | None:
    """``text`` as a candidate for a target of ``target_pos``: a word of another part of speech in the cross-PoS
    form ``[text]_POS`` (SPEC §3), so it is accepted and matched as that part of speech; None when not a candidate."""
    canonical = valid_candidate(text)
    if canonical is None or pos is None or target_pos is None or pos == target_pos or canonical.startswith("["):
        return canonical
    try:
        return parse_candidate(f"[{canonical}]_{pos}", target_pos).format()
    except CandidateError:
        return None


def related_suggestions(
    lang: str,
    target: SynsetRecord | None,
    related: Sequence[tuple[str, SynsetRecord]],
    allowed: Callable[[str], bool],
    excluded_sources: Callable[[str], bool] = lambda _source: False,
    target_pos: str | None = None,
    close: Sequence[tuple[str, SynsetRecord]] = (),
) -> list[Suggestion]:
    """Lexicalizations in allowed lexicons of synsets related to σ (``related``: (relation, record), in the order to
    rank), each labelled with the relation and the synset's gloss; then σ's own lexicalizations in lexicons not
    allowed for the language (``excluded_sources``: sources never offered, e.g. machine-translated ones). A word of a
    synset of another part of speech than σ (``target_pos``, else σ's record's) is offered in the cross-PoS form.
    Each word once, from its first relation; ``routes`` counts the related synsets giving it, ``lexicons`` the
    lexicons. ``close``: (word, record) of words of the other senses of λ that lexicalize a synset two relations from
    σ (the record), offered as ``CLOSE`` when no relation gave them (``final_suggestions`` keeps them only in BAD)."""
    found: dict[str, Suggestion] = {}
    synsets: dict[str, set[str]] = {}
    sources: dict[str, set[str]] = {}
    own_pos = target_pos or (target.pos if target is not None else None)
    if target is not None:
        for sense in target.senses:
            if sense.lang != lang or allowed(sense.source) or excluded_sources(sense.source):
                continue
            text = valid_candidate(sense.lemma)
            if text is None:
                continue
            key = candidate_key(text)
            sources.setdefault(key, set()).add(sense.source)
            if key in found:
                continue
            found[key] = Suggestion(
                text, GOOD, RELATED, OTHER_LEXICON, target.id,
                f"A word for this very sense in {sense.source}, a lexicon not allowed for {language_name(lang)}.",
            )  # fmt: skip
    for relation, record in related:
        gloss = record.gloss()
        for sense in record.senses:
            if sense.lang != lang or not allowed(sense.source):
                continue
            text = cross_pos_form(sense.lemma, record.pos, own_pos)
            if text is None:
                continue
            key = candidate_key(text)
            if key in found and found[key].relation == OTHER_LEXICON:
                continue
            synsets.setdefault(key, set()).add(record.id)
            sources.setdefault(key, set()).add(sense.source)
            if key in found:
                continue
            reason = f"{sense.source} gives it for {RELATION_WORDS.get(relation, relation)}"
            found[key] = Suggestion(text, GOOD, RELATED, relation, record.id, f"{reason}: {gloss}" if gloss else reason)
    for word, record in close:
        text = valid_candidate(word)
        if text is None or candidate_key(text) in found:
            continue
        gloss = record.gloss()
        reason = f"A word of another sense of the word, also given for {RELATION_WORDS[CLOSE]}"
        found[candidate_key(text)] = Suggestion(
            text, GOOD, RELATED, CLOSE, record.id, f"{reason}: {gloss}" if gloss else reason
        )
    return [
        replace(s, routes=max(1, len(synsets.get(key, ()))), lexicons=max(1, len(sources.get(key, ()))))
        for key, s in found.items()
    ]


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
    """The suggestions against the current lists, in source order: a word already in GOOD is not suggested; one in
    BAD is suggested as a move to GOOD when a GOOD was proposed (dropped otherwise) — a related word offered in the
    cross-PoS form too when its bare text stands in BAD (a translation of λ of the target's part of speech that a
    lexicon ties to σ); MT words already in a list are dropped; dismissed keys are dropped; each word once, from its
    first source."""
    good_keys = {entry.key for entry in state.good}
    bad_entries = {entry.key: entry for entry in state.bad}
    gone = set(dismissed)
    result: list[Suggestion] = []
    seen: set[str] = set()
    for suggestion in (*team_good, *related, *mt, *team_bad):
        key = suggestion.key
        if suggestion.source == RELATED and _tagged(suggestion.text):
            bare = candidate_key(suggestion.text.partition("]_")[0][1:])
            if bare in good_keys:
                continue
            if bare in bad_entries:
                key = bare
                suggestion = replace(suggestion, text=bad_entries[bare].candidate.format())
        if key in seen or key in gone or key in good_keys:
            continue
        if key in bad_entries:
            if suggestion.side != GOOD or suggestion.source == MT:
                continue
            suggestion = replace(suggestion, side=MOVE_TO_GOOD, reason=f"Now in BAD. {suggestion.reason}")
        elif suggestion.relation == CLOSE:
            continue
        seen.add(key)
        result.append(suggestion)
    return result


#: The precision of each kind of suggestion when nothing else is known about it: how often a suggestion of the kind
#: is a word of σ, measured by leave-one-out on the open wordnets (``benchmarks/bench_suggestion_precision.py``) for
#: the lexicon kinds; the team's and the machine translations' kinds, which that cannot measure, from what they are
#: (a word the team curated GOOD for σ; a content word of a translation no candidate matched).
KIND_PRECISION: dict[str, float] = {
    "team": 0.85,
    "team, other sense": 0.5,
    "mt": 0.25,
    OTHER_LEXICON: 0.6,
    "similar": 0.1,
    "also": 0.03,
    "verb_group": 0.28,
    "entails": 0.015,
    "hypernym": 0.055,
    "instance_hypernym": 0.005,
    "hyponym": 0.045,
    "derivation": 0.005,
    "similar, other PoS": 0.005,
    "derivation, other PoS": 0.005,
    # a word standing in BAD (a translation of another sense of λ) that a route ties to σ, offered as a move
    "similar, in BAD": 0.55,
    "also, in BAD": 0.28,
    "verb_group, in BAD": 0.35,
    "entails, in BAD": 0.2,
    "hypernym, in BAD": 0.32,
    "instance_hypernym, in BAD": 0.2,
    "hyponym, in BAD": 0.45,
    "derivation, in BAD": 0.5,
    "close, in BAD": 0.23,
}
#: A kind not in the table (a relation a lexicon adds later).
UNKNOWN_PRECISION = 0.03
#: Evidence beyond the kind, as multipliers of the odds of being right (measured like ``KIND_PRECISION``): each
#: further related synset (or MT system) giving the word, at most ``EVIDENCE_CAP`` counted; each further source
#: (team, related, MT) giving it. Agreement between lexicons is counted (``Suggestion.lexicons``) but not weighed:
#: measured, a word two lexicons give is no likelier to be right.
ROUTE_ODDS, AGREEMENT_ODDS = 2.0, 3.0
EVIDENCE_CAP = 3
#: Suggestions shown first; the rest wait behind one key.
SHOWN_FIRST = 5
#: The team's own decisions on a kind: the measured precision counts as this many decisions (the Beta prior's
#: strength), and the team's rate is used once the kind has at least ``TEAM_MIN_DECISIONS`` of them.
PRIOR_DECISIONS, TEAM_MIN_DECISIONS = 20, 10


def kind_of(suggestion: Suggestion) -> str:
    """What a suggestion's precision is measured by: its source, and for a related sense its relation (a word of
    another part of speech, and a word standing in BAD offered as a move, apart)."""
    if suggestion.source == TEAM:
        return "team" if suggestion.side != BAD else "team, other sense"
    if suggestion.source == MT:
        return "mt"
    if suggestion.relation == OTHER_LEXICON:
        return OTHER_LEXICON
    relation = suggestion.relation
    if relation == "similar" and suggestion.synset.endswith("v"):
        relation = "verb_group"  # the open wordnets write WordNet's verb groups as "similar" between verbs
    if suggestion.side == MOVE_TO_GOOD:
        return f"{relation}, in BAD"
    return f"{relation}, other PoS" if _tagged(suggestion.text) else relation


def _tagged(text: str) -> bool:
    """Whether ``text`` is a cross-PoS candidate (``[x]_POS``)."""
    try:
        return parse_candidate(text).pos is not None
    except CandidateError:
        return False


class KindRate(NamedTuple):
    """A kind's precision as the ranking uses it: the measured prior, the team's decisions, the rate used."""

    kind: str
    prior: float
    accepted: int
    dismissed: int
    rate: float
    from_team: bool


def kind_rates(decisions: Mapping[str, tuple[int, int]]) -> dict[str, KindRate]:
    """Per kind: the precision the ranking uses. ``decisions``: kind → (accepted, dismissed) by the project's team.
    Once a kind has ``TEAM_MIN_DECISIONS`` the rate is the Beta posterior mean, the measured precision counting as
    ``PRIOR_DECISIONS`` decisions (smoothed: a few decisions move it a little, many move it to the team's own rate)."""
    rates = {}
    for kind in dict.fromkeys([*KIND_PRECISION, *decisions]):
        prior = KIND_PRECISION.get(kind, UNKNOWN_PRECISION)
        accepted, dismissed = decisions.get(kind, (0, 0))
        used = accepted + dismissed >= TEAM_MIN_DECISIONS
        rate = (prior * PRIOR_DECISIONS + accepted) / (PRIOR_DECISIONS + accepted + dismissed) if used else prior
        rates[kind] = KindRate(kind, prior, accepted, dismissed, rate, used)
    return rates


def suggestion_score(suggestion: Suggestion, sources: int, precision: Mapping[str, float] | None = None) -> float:
    """The estimated chance that the suggestion is a word of σ: its kind's precision (``precision``, else
    ``KIND_PRECISION``), moved by the evidence (the routes giving it; ``sources``: how many sources give it)."""
    kind = kind_of(suggestion)
    p = (precision or {}).get(kind, KIND_PRECISION.get(kind, UNKNOWN_PRECISION))
    p = min(max(p, 0.001), 0.999)
    odds = p / (1 - p)
    odds *= ROUTE_ODDS ** (min(suggestion.routes, EVIDENCE_CAP) - 1)
    odds *= AGREEMENT_ODDS ** (min(sources, EVIDENCE_CAP) - 1)
    return odds / (1 + odds)


def rank_suggestions(
    state: ItemLanguage,
    target_pos: str,
    team_good: Sequence[Suggestion],
    related: Sequence[Suggestion],
    mt: Sequence[Suggestion],
    team_bad: Sequence[Suggestion],
    dismissed: Iterable[str] = (),
    precision: Mapping[str, float] | None = None,
) -> list[Suggestion]:
    """``final_suggestions`` ordered by ``suggestion_score`` (the GOOD side and moves first, then BAD-side ones;
    ties keep the source order). ``precision``: kind → rate, the team's own where it has decided enough
    (``kind_rates``). A word of another part of speech than ``target_pos`` is never offered bare among the first
    three (a related word kept before cross-PoS forms were made waits after them)."""
    found = final_suggestions(state, team_good, related, mt, team_bad, dismissed)
    sources: dict[str, set[str]] = {}
    for suggestion in (*team_good, *related, *mt):
        sources.setdefault(suggestion.key, set()).add(suggestion.source)
    scored = [
        (
            suggestion.side == BAD,
            -suggestion_score(suggestion, len(sources.get(suggestion.key, ())), precision),
            number,
            suggestion,
        )
        for number, suggestion in enumerate(found)
    ]
    ranked = [entry[-1] for entry in sorted(scored, key=lambda entry: entry[:3])]
    bare_other = [s for s in ranked[:3] if _bare_other_pos(s, target_pos)]
    if bare_other:  # a related part kept in an older form: its bare words of another PoS wait after the first three
        rest = [s for s in ranked if s not in bare_other]
        ranked = rest[:3] + bare_other + rest[3:]
    return ranked


def _bare_other_pos(suggestion: Suggestion, target_pos: str) -> bool:
    """A bare word whose own synset (a related sense) has another part of speech than the target."""
    if suggestion.source != RELATED or suggestion.side == MOVE_TO_GOOD or not suggestion.synset:
        return False  # a move: its word stands in BAD, a translation of λ of the target's part of speech
    if _tagged(suggestion.text):
        return False
    letter = suggestion.synset[-1:]
    return letter in _WN_POS and _WN_POS[letter] != target_pos


_WN_POS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}


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


_MARKUP = re.compile(r"<[^<>]*>|&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);")


_WORD = re.compile(r"[^\W\d_]+")


class PlainText(NamedTuple):
    """A translation without its markup (tags, character references), case-folded, and its words."""

    folded: str
    words: frozenset[str]


def plain_text(translation: str) -> PlainText:
    folded = _MARKUP.sub(" ", translation).casefold()
    return PlainText(folded, frozenset(_WORD.findall(folded)))


def is_word(form: str, lemma: str, plain: PlainText) -> bool:
    """Whether a translation word is a word a translator could take: letters only (inner spaces, hyphens and
    apostrophes allowed; no digit, punctuation or symbol), more than one letter unless ideographic, and standing in
    the translation's plain text (not a fragment of its markup: an ASCII word as whole words of it)."""
    for text in (form, lemma):
        stripped = text.strip()
        if not stripped or not all(ch.isalpha() or unicodedata.category(ch).startswith("M") or ch in " -'’"
                                   for ch in stripped):  # fmt: skip
            return False
        if not stripped[0].isalpha() or not stripped[-1].isalpha():
            return False
    if len(form.strip()) < 2 and not any(unicodedata.east_asian_width(ch) == "W" for ch in form):
        return False
    if form.isascii():
        return all(part in plain.words for part in _WORD.findall(form.casefold()))
    return form.casefold() in plain.folded


def mt_suggestions(
    missed: Sequence[MissTranslation],
    target_pos: str,
    explained: Callable[[str], bool] = lambda _lemma: False,
    common: Callable[[str], bool] = lambda _lemma: False,
    function_word: Callable[[str], bool] = lambda _lemma: False,
) -> list[Suggestion]:
    """Lemmas of the MISS translations' content words, each labelled with the systems that used it: words of the
    target's part of speech first (when the analyser tags; one of another content part of speech in the cross-PoS
    form), then by how many systems used it, then in order of appearance. Left out: what is not a word
    (``is_word``: markup, punctuation, digits), ``function_word`` lemmas or forms (the language's stop-word list),
    ``explained`` lemmas (they translate another content word of the sentence), and ``common`` lemmas (too frequent
    across the language's translations to be a content word, when the analyser gives no parts of speech)."""
    order: dict[str, tuple[int, int, str]] = {}
    systems: dict[str, list[str]] = {}
    position = 0
    for translation in missed:
        plain = plain_text(translation.text)
        for form, lemma, upos in translation.words:
            word = lemma or form
            if not is_word(form, word, plain):
                continue
            if upos is not None and upos not in CONTENT_POS:
                continue
            if function_word(word) or function_word(form):
                continue
            if upos is None and common(word.casefold()):
                continue
            if explained(word.casefold()):
                continue
            text = cross_pos_form(word, upos, target_pos)
            if text is None:
                continue
            key = candidate_key(text)
            position += 1
            order.setdefault(key, (0 if upos in (None, target_pos) else 1, position, text))
            names = systems.setdefault(key, [])
            if translation.system not in names:
                names.append(translation.system)
    ranked = sorted(order.items(), key=lambda entry: (entry[1][0], -len(systems[entry[0]]), entry[1][1]))[:MT_SHOWN]
    result = []
    for key, (_pos, _at, text) in ranked:
        names = systems[key]
        plural = "s" if len(names) > 1 else ""
        reason = f"In the translation{plural} by {', '.join(names)}, scored MISS (no candidate matched)."
        result.append(Suggestion(text, GOOD, MT, TRANSLATION + ": " + ", ".join(names), "", reason, routes=len(names)))
    return result
