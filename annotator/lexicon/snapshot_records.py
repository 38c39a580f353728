"""What a checked lexicon snapshot holds (``ParsedSnapshot``) and the rules its header and senses follow, shared by
the checked reader (``snapshot_read``) and the compiled one (``snapshot_fast``), so both answer alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from annotator.domain.lexicon_forms import FormRule, resolve, rules_for
from annotator.lexicon.base import ENGLISH, LexiconError
from annotator.lexicon.snapshot_format import FORMAT, FORMAT_VERSION, Edges, LemmaEntry, StoredSense, StoredSynset


class ParsedSnapshot(NamedTuple):
    """A snapshot file's contents, checked: its header, lemma entries, synsets and their relations."""

    origin: str
    label: str
    version: str
    provider: str
    lemmas: list[LemmaEntry]
    synsets: list[StoredSynset]
    edges: dict[str, Edges]
    #: The header's fields as written (its licence among them), without the lemmas and synsets.
    header: dict[str, Any]


def problem(origin: str, where: str, what: str) -> LexiconError:
    return LexiconError(f"{origin}: {where}: {what}")


def check_header(header: Any, origin: str, where: str) -> tuple[str, str, str]:
    if not isinstance(header, dict):
        raise problem(origin, where, "expected a JSON object with the snapshot header")
    marker = header.get("format")
    if marker != FORMAT:
        raise problem(origin, where, f"format is {marker!r}, expected {FORMAT!r} (is this a lexicon snapshot?)")
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise problem(origin, where, "missing or non-integer field 'format_version'")
    if version > FORMAT_VERSION:
        raise problem(origin, where, f"format_version {version} is newer than this annotator reads ({FORMAT_VERSION})")
    if version < 1:
        raise problem(origin, where, f"format_version {version} is not a valid version")
    label = required_str(header, "label", origin, where)
    snapshot_version = required_str(header, "version", origin, where)
    provider = header.get("provider", "")
    if not isinstance(provider, str):
        raise problem(origin, where, "field 'provider' must be a string")
    return label, snapshot_version, provider


def required_str(record: Mapping[str, Any], name: str, origin: str, where: str) -> str:
    if name not in record:
        raise problem(origin, where, f"missing field '{name}'")
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise problem(origin, where, f"field '{name}' must be a non-empty string, got {value!r}")
    return value.strip()


@lru_cache(maxsize=1_000)
def _rules(source: str) -> tuple[FormRule, ...]:
    return rules_for(source)


@lru_cache(maxsize=1_000)
def _rule_functions(source: str) -> tuple[Callable[[str], tuple[str, ...]], ...]:
    return tuple(rule.apply for rule in _rules(source))


@lru_cache(maxsize=10_000)
def _resolved(source: str, lemma: str) -> tuple[str, ...]:
    return resolve(lemma, _rules(source))


def forms(source: str, lemma: str) -> tuple[str, ...]:
    """``resolve`` of the lemma under its source's rules. A lemma each rule leaves as written (nearly all of a
    lexicon's) is known to stand for itself after one call per rule, without building the chain of forms."""
    unchanged = (lemma,)
    if lemma.replace(" ", "").isalnum():
        return unchanged  # every rule's marker is a punctuation sign: words of letters and digits need no call
    for apply in _rule_functions(source):
        if apply(lemma) != unchanged:
            return _resolved(source, lemma)
    return unchanged


def as_meant(sense: StoredSense) -> tuple[StoredSense, ...]:
    """A non-English sense with its lemma as its lexicon means it (``domain.lexicon_forms``, by the sense's
    source): one sense per form; English lemmas and lemmas no rule concerns are kept as written."""
    lemma, lang, source, number = sense
    if lang == ENGLISH:
        return (sense,)
    meant = forms(source, lemma)
    if meant == (lemma,):
        return (sense,)
    return tuple((form, lang, source, number) for form in meant)
