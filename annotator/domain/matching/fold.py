"""Folding for comparison (``fold``) and the surface step's text search (``surface_fold``, ``SurfacePiece``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from annotator.domain.candidates import WILDCARD, Candidate

_SAME_LENGTH_FOLD = str.maketrans({"ё": "е", "Ё": "Е", "’": "'", "ʼ": "'"})
_SAME_LENGTH_RE = re.compile("[ёЁ’ʼ]")


_FOLD_CACHE: dict[str, str] = {}
_FOLD_CACHE_LIMIT = 200_000


def fold(text: str) -> str:
    """Case-insensitive comparison key: casefold, Russian ё → е, typographic apostrophes → '.

    Memoised: the same few thousand words are folded for every translation and every candidate.
    """
    folded = _FOLD_CACHE.get(text)
    if folded is None:
        folded = text.translate(_SAME_LENGTH_FOLD).casefold()
        if len(_FOLD_CACHE) >= _FOLD_CACHE_LIMIT:
            _FOLD_CACHE.clear()
        _FOLD_CACHE[text] = folded
    return folded


#: Scripts written without spaces between words: a surface match there needs no word boundary.
_UNSPACED_RE = re.compile(
    "[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]"
)


def _spaced_word_char(ch: str) -> bool:
    """A letter or digit of a script written with spaces (Latin, Cyrillic...): it may not touch a surface match."""
    return ch.isalnum() and not _UNSPACED_RE.match(ch)


def surface_fold(text: str) -> str:
    """Fold for the surface step without changing the length, so spans found in it are spans of ``text``.

    Casefold with ё → е and typographic apostrophes → ', every whitespace character → one space. The rare characters
    whose case folding has another length (ß → ss, İ) keep a one-character form, so the step stays case-insensitive.
    A run of several spaces stays as it is, so a multiword piece will not match across it.
    """
    # not ``fold``: whole texts would flood its memo; ``translate`` only when needed, it is slow on non-ASCII text
    folded = (text.translate(_SAME_LENGTH_FOLD) if _SAME_LENGTH_RE.search(text) else text).casefold()
    if len(folded) != len(text):  # only the few characters that fold longer go one by one (a German ß, not the text)
        pieces = _longer_fold_re().split(text)
        folded = "".join(
            _fold_char(piece) if number % 2 else piece.translate(_SAME_LENGTH_FOLD).casefold()
            for number, piece in enumerate(pieces)
        )
    return _WHITESPACE_RE.sub(" ", folded) if _WHITESPACE_RE.search(folded) else folded


_WHITESPACE_RE = re.compile(r"[^\S ]")


@functools.cache
def _longer_fold_re() -> re.Pattern[str]:
    """The characters whose case folding is longer than one character (ß → ss, İ; about a hundred, all in the BMP),
    each captured so ``split`` keeps it between the runs around it.

    Found block by block: no character folds to nothing, so a block of 256 holds one only when it folds longer,
    and just those few blocks are read character by character."""
    return re.compile("(" + "|".join(map(re.escape, _longer_folding_chars())) + ")")


def _longer_folding_chars() -> list[str]:
    longer: list[str] = []
    for base in range(0, 0x10000, 256):
        block = "".join(map(chr, range(base, base + 256)))
        if len(block.translate(_SAME_LENGTH_FOLD).casefold()) != len(block):
            longer.extend(ch for ch in block if len(ch.translate(_SAME_LENGTH_FOLD).casefold()) != 1)
    return longer


def _fold_char(ch: str) -> str:
    for candidate in (fold(ch), ch.lower()):
        if len(candidate) == 1:
            return candidate
    return ch


class SurfacePiece(NamedTuple):
    """One wildcard-free piece of a candidate for the surface step, and whether each edge needs a word boundary."""

    text: str
    bounded_start: bool
    bounded_end: bool

    def find(self, text: str, position: int) -> tuple[int, int] | None:
        """Leftmost occurrence at or after ``position`` in ``surface_fold``-ed text, respecting the boundaries."""
        size = len(self.text)
        while True:
            start = text.find(self.text, position)
            if start < 0:
                return None
            end = start + size
            if not (self.bounded_start and start > 0 and _spaced_word_char(text[start - 1])) and not (
                self.bounded_end and end < len(text) and _spaced_word_char(text[end])
            ):
                return (start, end)
            position = start + 1


def surface_pieces(candidate: Candidate) -> tuple[SurfacePiece, ...]:
    """The candidate for the surface step (SPEC §8 step 3), ``*`` standing for any text between the pieces.

    In spaced scripts each piece must start and end on a word boundary, so ``casa`` does not match ``casale``;
    in Chinese (and other unspaced scripts) a plain substring is enough. Plain ``str.find``, no regex: thousands of
    candidates reach this step and compiling a regex for each costs more than all the matching.
    """
    return tuple(
        SurfacePiece(
            surface_fold(" ".join(segment)), _spaced_word_char(segment[0][0]), _spaced_word_char(segment[-1][-1])
        )
        for segment in segments_of(candidate.tokens)
    )


@functools.lru_cache(maxsize=65_536)
def surface_pieces_of(candidate: Candidate) -> tuple[SurfacePiece, ...]:
    """``surface_pieces`` memoised per candidate."""
    return surface_pieces(candidate)


def find_surface(pieces: Sequence[SurfacePiece], text: str, start: int = 0) -> tuple[int, int] | None:
    """Leftmost occurrence of the pieces in order (any text between them) in ``surface_fold``-ed text."""
    position, first = start, None
    for piece in pieces:
        found = piece.find(text, position)
        if found is None:
            return None  # a later start of an earlier piece can only push this one further right
        first = found[0] if first is None else first
        position = found[1]
    return (first, position) if first is not None else None


def segments_of(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    """A candidate's tokens cut at each ``*``: its wildcard-free segments (one when there is none)."""
    if WILDCARD not in tokens:
        return [tuple(tokens)]
    segments: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in tokens:
        if token == WILDCARD:
            segments.append(tuple(current))
            current = []
        else:
            current.append(token)
    segments.append(tuple(current))
    return segments
