"""Candidate syntax (SPEC §3): parse, validate and format GOOD/BAD translation candidates.

Pure functions over strings, so the browser, the importers, the spreadsheet round trip and the
matcher all agree on one definition of what a candidate is and when two candidates are the same.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass, field

from annotator.domain.unicode_rules import INVISIBLE_RULE, describe, find_invisible

WILDCARD = "*"
MAX_LENGTH = 100

#: Cross-PoS tags accepted silently.
CORE_TAGS = ("NOUN", "VERB", "ADJ", "ADV")
#: Cross-PoS tags accepted with a warning: legal UPOS, but rarely what a translator means.
WARNED_TAGS = ("PROPN", "NUM", "ADP", "PRON", "DET", "AUX")
#: WordNet letters accepted as input, stored as UPOS.
WORDNET_LETTERS = {"N": "NOUN", "V": "VERB", "A": "ADJ", "S": "ADJ", "R": "ADV"}

_BRACKETED = re.compile(r"^\[(?P<text>[^\[\]]*)\]_(?P<tag>[^\s\[\]_]*)$")


class CandidateError(ValueError):
    """A candidate broke a rule of SPEC §3; ``rule`` is a stable identifier, ``text`` the offending input."""

    def __init__(self, rule: str, text: str, message: str) -> None:
        self.rule = rule
        self.text = text
        self.message = message
        super().__init__(f"{message} (rule: {rule}; text: {text!r})")


@dataclass(frozen=True)
class Candidate:
    """A validated candidate. ``text`` keeps the translator's case; ``pos`` is a cross-PoS UPOS tag or None."""

    text: str
    pos: str | None = None
    warnings: tuple[str, ...] = field(default=(), compare=False, hash=False)

    @functools.cached_property
    def tokens(self) -> tuple[str, ...]:
        """Split once per candidate: the matcher asks for the tokens many times (not a field: no effect on ==)."""
        return tuple(self.text.split(" "))

    @property
    def has_wildcard(self) -> bool:
        return WILDCARD in self.tokens

    @property
    def key(self) -> tuple[str, str | None]:
        """Identity (SPEC §3): case-folded text plus tag, so `Quelle` and `quelle` are one candidate."""
        return candidate_key(self.text, self.pos)

    def format(self) -> str:
        """Canonical form: ``text`` or ``[text]_UPOS``."""
        return f"[{self.text}]_{self.pos}" if self.pos else self.text

    def __str__(self) -> str:
        return self.format()


def candidate_key(text: str, pos: str | None) -> tuple[str, str | None]:
    """Identity of a candidate given its stored text and tag."""
    return (unicodedata.normalize("NFC", text).casefold(), pos)


def key_string(text: str, pos: str | None) -> str:
    """The identity as one string (for database unique keys and lookups)."""
    folded, tag = candidate_key(text, pos)
    return f"[{folded}]_{tag}" if tag else folded


def normalize_pos(raw: str) -> str | None:
    """Map ``n v a r`` and any-case UPOS to canonical UPOS; None when the tag is unknown."""
    tag = raw.strip().upper()
    if tag in WORDNET_LETTERS:
        return WORDNET_LETTERS[tag]
    if tag in CORE_TAGS or tag in WARNED_TAGS:
        return tag
    return None


#: Unicode categories Cc (C0, DEL, C1), Zl and Zp: tabs, newlines and other invisible line breakers.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _normalize_text(raw: str) -> str:
    found = _CONTROL.search(raw)
    if found:
        raise CandidateError(
            "control_character", raw, f"Control characters, tabs and newlines are not allowed ({found.group()!r})."
        )
    invisible = find_invisible(raw)
    if invisible:  # zero-width, soft hyphen, BOM, bidi and tag characters: a look-alike that never matches
        index, char = invisible
        raise CandidateError(
            INVISIBLE_RULE,
            raw,
            f"Invisible and bidirectional control characters are not allowed: {describe(char)} at character "
            f"{index + 1}.",
        )
    text = unicodedata.normalize("NFC", raw)
    return " ".join(text.split())


def _check_text(text: str, raw: str) -> None:
    if not text:
        raise CandidateError("empty", raw, "The candidate is empty.")
    if "[" in text or "]" in text:
        raise CandidateError(
            "brackets",
            raw,
            "Brackets are only allowed around a whole cross-PoS candidate, as in [sparare]_VERB.",
        )
    if WILDCARD not in text:  # the wildcard rules below are about '*' only
        return
    tokens = text.split(" ")
    for token in tokens:
        if WILDCARD in token and token != WILDCARD:
            raise CandidateError(
                "wildcard_token",
                raw,
                f"'*' must be a token of its own, separated by spaces (found {token!r}).",
            )
    if WILDCARD in tokens:
        if tokens[0] == WILDCARD or tokens[-1] == WILDCARD:
            raise CandidateError("wildcard_edge", raw, "'*' may not be the first or the last token.")
        if any(a == b == WILDCARD for a, b in itertools.pairwise(tokens)):
            raise CandidateError("wildcard_adjacent", raw, "Two '*' may not be adjacent.")


def parse_candidate(raw: str, target_pos: str | None = None) -> Candidate:
    """Parse one line typed by a translator; raise CandidateError naming the rule it breaks.

    ``target_pos`` is the target word's UPOS: a cross-PoS tag equal to it is refused.
    """
    if not isinstance(raw, str):
        raise CandidateError("empty", str(raw), "The candidate must be text.")
    normalized = _normalize_text(raw)
    if len(normalized) > MAX_LENGTH:
        raise CandidateError("too_long", raw, f"A candidate has at most {MAX_LENGTH} characters.")
    if not normalized:
        raise CandidateError("empty", raw, "The candidate is empty.")
    if not (normalized.startswith("[") or "[" in normalized or "]" in normalized):
        _check_text(normalized, raw)
        return Candidate(normalized)

    match = _BRACKETED.match(normalized)
    if not match:
        if normalized.count("[") != normalized.count("]") or normalized.count("[") > 1:
            reason = "Unbalanced or nested brackets."
        else:
            reason = "A cross-PoS candidate is written [text]_TAG, for example [sparare]_VERB."
        raise CandidateError("brackets", raw, reason)
    inner = " ".join(match.group("text").split())
    _check_text(inner, raw)
    raw_tag = match.group("tag")
    if not raw_tag:
        raise CandidateError("pos_tag", raw, "A cross-PoS candidate needs a tag after '_': NOUN, VERB, ADJ or ADV.")
    tag = normalize_pos(raw_tag)
    if tag is None:
        raise CandidateError(
            "pos_tag",
            raw,
            f"Unknown PoS tag {raw_tag!r}: use NOUN, VERB, ADJ, ADV (or n, v, a, r).",
        )
    target = normalize_pos(target_pos) if target_pos else None
    if target is not None and tag == target:
        raise CandidateError(
            "not_cross_pos", raw, f"Not cross-PoS: the target word is a {target} too, so drop the brackets."
        )
    warnings: tuple[str, ...] = ()
    if tag in WARNED_TAGS:
        warnings = (f"{tag} is an unusual cross-PoS tag; check that it is intended.",)
    return Candidate(inner, tag, warnings)
