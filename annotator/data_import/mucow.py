"""Reading a MuCoW test suite (Raganato et al., LREC 2020): ``<pair>.key.txt`` + ``.text.txt`` (+ ``.ref.txt``).

MuCoW keys are *surface words*, not synsets: each line names the English ambiguous word, its positive (correct-sense)
target words and its negative (other-sense) ones. They become items with GOOD/BAD candidate sets and no synsets,
marked ``source = "mucow:<pair>"`` so nobody mistakes them for lexicon-backed items. All file reading of the suite
happens here, so input limits can be added in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.errors import UserError

#: Marks imported MuCoW items (``source`` field) and their synset placeholder (MuCoW has no synsets).
MUCOW_SOURCE_PREFIX = "mucow:"
MUCOW_SYNSET = "mucow:no-synset"


@dataclass(frozen=True)
class MucowLine:
    """One line of a MuCoW suite: ids, the English word, its sentence, positive/negative words, the reference."""

    line: int
    corpus_id: str
    corpus: str
    word: str
    sentence: str
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    reference: str | None = None
    #: the suite's language pair as in its file names, letters and digits only (``ende`` for ``en-de.key.txt``)
    pair: str = ""

    @property
    def item_id(self) -> str:
        """``mucow-ende-00001-accelerator``: unique across the pairs of one project (line numbers repeat)."""
        pair = f"{self.pair}-" if self.pair else ""
        return f"mucow-{pair}{self.line:05d}-{self.word.replace(' ', '_')}"

    @property
    def legacy_item_id(self) -> str:
        """The id earlier versions gave the line, without its pair: two pairs' lines could share it."""
        return f"mucow-{self.line:05d}-{self.word.replace(' ', '_')}"


class MucowFormatError(UserError):
    """A MuCoW file is malformed: the message names the file, the line and the rule."""


def _read_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as error:
        raise MucowFormatError(f"{path}: file not found") from error
    except UnicodeDecodeError as error:
        raise MucowFormatError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    except OSError as error:
        raise MucowFormatError(f"{path}: cannot read ({error.strerror})") from error
    lines = text.replace("\r\n", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def suite_prefix(path: str | Path) -> Path:
    """``data/en-de.key.txt`` or ``data/en-de`` → ``data/en-de`` (the files share this prefix)."""
    path = Path(path)
    name = path.name
    for suffix in (".key.txt", ".text.txt", ".ref.txt", ".domain.txt"):
        if name.endswith(suffix):
            return path.with_name(name[: -len(suffix)])
    return path


def read_mucow(path: str | Path, *, with_reference: bool = True) -> list[MucowLine]:
    """Read ``<prefix>.key.txt`` and ``<prefix>.text.txt`` (and ``.ref.txt`` when present and asked for)."""
    prefix = suite_prefix(path)
    key_path = prefix.with_name(prefix.name + ".key.txt")
    text_path = prefix.with_name(prefix.name + ".text.txt")
    ref_path = prefix.with_name(prefix.name + ".ref.txt")
    keys = _read_lines(key_path)
    texts = _read_lines(text_path)
    refs = _read_lines(ref_path) if with_reference and ref_path.exists() else None
    if len(texts) != len(keys):
        raise MucowFormatError(
            f"{text_path}: {len(texts)} lines but {key_path.name} has {len(keys)} (rule: same_length)"
        )
    if refs is not None and len(refs) != len(keys):
        raise MucowFormatError(f"{ref_path}: {len(refs)} lines but {key_path.name} has {len(keys)} (rule: same_length)")
    pair = re.sub(r"[^a-z0-9]", "", prefix.name.casefold()) or "suite"
    out = []
    for number, raw in enumerate(keys, start=1):
        cells = raw.rstrip("\r").split("\t")
        if len(cells) != 5:
            raise MucowFormatError(
                f"{key_path}, line {number}: {len(cells)} tab-separated fields, expected 5 "
                "(corpus id, corpus, word, positive words, negative words) (rule: key_columns)"
            )
        positive = tuple(w for w in cells[3].split(" ") if w)
        negative = tuple(w for w in cells[4].split(" ") if w)
        if not cells[2].strip() or not positive:
            raise MucowFormatError(
                f"{key_path}, line {number}: no ambiguous word or no positive word (rule: key_words)"
            )
        out.append(
            MucowLine(
                number,
                cells[0],
                cells[1],
                cells[2].strip(),
                texts[number - 1].strip(),
                positive,
                negative,
                refs[number - 1].strip() if refs is not None else None,
                pair,
            )
        )
    return out


def mucow_dataset_records(lines: list[MucowLine], lang: str) -> Iterator[dict[str, Any]]:
    """The suite as ``dataset.jsonl`` records (SPEC §7) for the evaluator: GOOD = positive, BAD = negative words.

    The target offsets point at the first occurrence of the English word (0 when it is not found verbatim); there
    are no synsets (placeholder ``mucow:no-synset``) and no sense ranks, so MFS/SFII/SPDI are left out for them.
    """
    for line in lines:
        start = max(line.sentence.casefold().find(line.word.casefold()), 0)
        yield {
            "id": line.item_id,
            "sentence": line.sentence or line.word,
            "target": {
                "text": line.word,
                "start": start,
                "end": start + len(line.word),
                "lemma": line.word,
                "pos": "NOUN",
            },
            "synset": MUCOW_SYNSET,
            "gloss": "",
            "source": f"{MUCOW_SOURCE_PREFIX}{line.corpus}:{line.corpus_id}",
            "polysemy_degree": None,
            "sense_rank": None,
            "senses": [],
            "languages": {
                lang: {
                    "good": [_candidate(w) for w in line.positive],
                    "bad": [_candidate(w) for w in line.negative if w.casefold() not in _folded(line.positive)],
                }
            },
        }


def _folded(words: tuple[str, ...]) -> set[str]:
    return {w.casefold() for w in words}


def _candidate(word: str) -> dict[str, Any]:
    return {"text": word, "pos": None, "origin": "translator", "synsets": []}
