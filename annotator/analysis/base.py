"""The analyser interface (SPEC §8 step 1): what the matcher needs to know about a translation.

Backends (the offline default, Stanza) turn texts into ``Analysis`` records in batches, because Stanza is only
fast when it sees many texts at once; everything downstream reads plain tuples and never knows the backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

from annotator.errors import UserError

#: The analysers a run can use, by name (``evaluation.run.create_analyser`` makes them).
ANALYSERS = ("default", "stanza")


class AnalyserUnavailable(UserError):
    """The chosen backend can't run (package or model missing); the message says how to install it."""


class Analysis(NamedTuple):
    """One analysed text.

    ``tokens`` are surface tokens with their character spans in ``text``; ``words`` are syntactic words (a multi-word
    token such as Italian ``della`` becomes ``di`` + ``la``), each with its lemma, its UPOS (None when the backend
    has no tagger) and the index of the token it belongs to, so a match on words can be highlighted in the text.
    The per-word sequences have one entry per word (``check`` says so; an analyser builds them that way, and
    ``from_dict`` checks what it reads). A typed row, built once per translation.
    """

    text: str
    tokens: tuple[str, ...] = ()
    token_spans: tuple[tuple[int, int], ...] = ()
    words: tuple[str, ...] = ()
    lemmas: tuple[str, ...] = ()
    upos: tuple[str | None, ...] = ()
    word_token: tuple[int, ...] = ()
    #: further lemma readings of each word besides ``lemmas`` (``были`` → быть, быль), empty when the backend gives
    #: one reading per word; a candidate matches a word when it is any of its readings.
    readings: tuple[tuple[str, ...], ...] = ()
    #: a Snowball stem per word (empty when the backend gives none): the matcher's last, separately reported step
    stems: tuple[str, ...] = ()
    #: per word, whether the backend's dictionary knows it and so settles its lemmas (empty when it cannot tell).
    #: The stem step lets a settled word match only a candidate that shares one of its forms or lemmas: with another
    #: lemma it is another word (docs/MATCHING.md).
    settled: tuple[bool, ...] = ()

    def check(self) -> Analysis:
        """The analysis itself when its sequences agree in length; else ValueError naming the one that does not."""
        n_words = len(self.words)
        if not (len(self.lemmas) == len(self.upos) == len(self.word_token) == n_words):
            raise ValueError("words, lemmas, upos and word_token must have the same length")
        if len(self.token_spans) != len(self.tokens):
            raise ValueError("tokens and token_spans must have the same length")
        if self.readings and len(self.readings) != n_words:
            raise ValueError("readings must be empty or have one entry per word")
        if self.stems and len(self.stems) != n_words:
            raise ValueError("stems must be empty or have one entry per word")
        if self.settled and len(self.settled) != n_words:
            raise ValueError("settled must be empty or have one entry per word")
        return self

    @property
    def has_pos(self) -> bool:
        return any(tag is not None for tag in self.upos)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (lists, not tuples) for the analysed-items file."""
        return {
            "tokens": list(self.tokens),
            "token_spans": [list(span) for span in self.token_spans],
            "words": list(self.words),
            "lemmas": list(self.lemmas),
            "upos": list(self.upos),
            "word_token": list(self.word_token),
            "readings": [list(extra) for extra in self.readings],
            "stems": list(self.stems),
            "settled": list(self.settled),
        }

    @classmethod
    def from_dict(cls, text: str, data: dict[str, Any]) -> Analysis:
        return cls(
            text=text,
            tokens=tuple(data["tokens"]),
            token_spans=tuple((int(a), int(b)) for a, b in data["token_spans"]),
            words=tuple(data["words"]),
            lemmas=tuple(data["lemmas"]),
            upos=tuple(data["upos"]),
            word_token=tuple(int(i) for i in data["word_token"]),
            readings=tuple(tuple(extra) for extra in data.get("readings") or ()),
            stems=tuple(data.get("stems") or ()),
            settled=tuple(bool(flag) for flag in data.get("settled") or ()),
        ).check()


@runtime_checkable
class Analyser(Protocol):
    """A translation analyser: ``analyse`` returns one Analysis per text, in order.

    ``lang`` is the project's upper-case code (``IT``, ``ZH``); ``name`` identifies the backend in outputs.
    """

    name: str

    def prepare(self, langs: Sequence[str]) -> None:
        """Load what these languages need before any work, so a missing model stops a run before it starts (a
        backend that loads nothing ahead does nothing)."""
        ...

    def analyse(self, texts: Sequence[str], lang: str) -> list[Analysis]: ...

    def with_stems(self, analyses: Sequence[Analysis], lang: str) -> list[Analysis]:
        """The analyses with a stem per word for the matcher's last step; a backend without stems returns them
        unchanged (the stem step then finds nothing)."""
        ...


def empty_analysis(text: str) -> Analysis:
    """The analysis of a text with no tokens (an empty translation is a MISS, not an error)."""
    return Analysis(text=text)
