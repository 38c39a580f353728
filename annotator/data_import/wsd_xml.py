"""Reading WSD-framework XML (Raganato et al. 2017: ``*.data.xml`` + ``*.gold.key.txt``) as items.

Real English sentences tagged with WordNet 3.0 sense keys become DiBiMT items: one per ``<instance>`` with one
gold key, the sentence rebuilt with a real detokeniser (the file keeps only tokens) and the target's offsets
computed on that text. Every item then goes through the item files' own row checks (``parse_row``), so the
same rules and limits hold; any refusal names the instance and nothing is imported.

The XML is streamed with ``defusedxml`` (no DTD, no entities: a hostile file cannot expand or fetch anything).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.data_import.items import ItemImportError, ParsedItems, RowProblem, row_columns
from annotator.data_import.limits import InputLimits, ProblemLog
from annotator.data_import.table_rows import Row
from annotator.errors import UserError
from annotator.progress import ProgressCallback, no_progress

#: The framework's universal tags that a DiBiMT target may have; other instance tags are refused.
POS_TAGS = {"NOUN": "NOUN", "VERB": "VERB", "ADJ": "ADJ", "ADV": "ADV"}
#: Instances between two progress reports.
PROGRESS_INSTANCES = 200


@dataclass
class WsdParse:
    """What a WSD-framework file gives: items, and the instances left out (listed, not refused)."""

    parsed: ParsedItems
    #: (instance id, its gold keys) of instances with several gold keys, left out (DiBiMT items have one synset).
    multi_key: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    instances: int = 0


@dataclass(frozen=True)
class _Token:
    text: str
    instance: dict[str, str] | None  # the <instance> attributes, None for a <wf>


def _problem(number: int, instance: str, rule: str, message: str, column: str = "instance") -> RowProblem:
    return RowProblem(number, column, rule, f"instance {instance}: {message}")


def read_gold_keys(path: Path, limits: InputLimits) -> dict[str, tuple[str, ...]]:
    """``id key [key…]`` per line; within the project's file limits, each malformed line refused by number."""
    if path.stat().st_size > limits.max_file_bytes:
        raise UserError(
            f"{path.name}: larger than {limits.max_file_mb} MB (input limit max_file_mb); nothing imported."
        )
    keys: dict[str, tuple[str, ...]] = {}
    problems = ProblemLog(limits.max_problems)
    with path.open(encoding="utf-8", errors="strict", newline="") as lines:
        try:
            for number, line in enumerate(lines, start=1):
                if number > limits.max_rows:
                    raise UserError(
                        f"{path.name}: more than {limits.max_rows:,} lines (input limit max_rows); nothing imported."
                    )
                if len(line) > limits.max_line_chars:
                    problems.append(RowProblem(number, "", "line_too_long", "the line is too long for a gold key line"))
                    continue
                parts = line.split()
                if not parts:
                    continue
                if len(parts) < 2:
                    problems.append(RowProblem(number, "", "no_sense_key", f"{parts[0]!r} has no sense key"))
                elif parts[0] in keys:
                    problems.append(RowProblem(number, "", "duplicate_id", f"{parts[0]!r} has a second gold line"))
                else:
                    keys[parts[0]] = tuple(dict.fromkeys(parts[1:]))
        except UnicodeDecodeError as error:
            raise UserError(f"{path.name}: not UTF-8 text ({error}); nothing imported.") from error
    if problems.total:
        raise ItemImportError(path, problems)
    return keys


def key_matches_lemma(key: str, lemma: str) -> bool:
    """A WordNet sense key names its lemma before ``%`` (lower case, ``_`` for spaces): ``ice_cream%1:13:00::``.

    A key of another lemma would make an item whose synset is not a sense of its target; an instance without a
    lemma is left to the row checks, which refuse it.
    """
    if not lemma.strip():
        return True
    key_lemma = key.partition("%")[0]
    return key_lemma.casefold() == "_".join(lemma.split()).casefold()


def rebuild_sentence(tokens: list[str], detokenize: Callable[[list[str]], str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence text and each token's (start, end) in it; tokens the detokeniser changed fall back to spaces."""
    text = detokenize(tokens)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for token in tokens:
        while cursor < len(text) and text[cursor] == " ":
            cursor += 1
        if not text.startswith(token, cursor):
            break
        spans.append((cursor, cursor + len(token)))
        cursor += len(token)
    if len(spans) == len(tokens) and text[cursor:].strip() == "":
        return text, spans
    text, spans, cursor = "", [], 0
    for token in tokens:  # the detokeniser rewrote a token: keep the file's tokens, space-joined
        start = len(text) + (1 if text else 0)
        text = f"{text} {token}" if text else token
        spans.append((start, start + len(token)))
    return text, spans


def _events(path: Path) -> Iterator[tuple[str, Any]]:
    try:
        import defusedxml
        from defusedxml.ElementTree import iterparse
    except ImportError as error:
        raise UserError('Reading WSD-framework XML needs defusedxml: pip install -e ".[wordnet]"') from error
    try:
        yield from iterparse(str(path), events=("start", "end"), forbid_dtd=True)
    except defusedxml.DTDForbidden as error:
        raise UserError(
            f"{path.name}: declares a DTD (<!DOCTYPE …>), which a WSD-framework file never needs; "
            "refused, nothing imported."
        ) from error
    except (defusedxml.EntitiesForbidden, defusedxml.ExternalReferenceForbidden) as error:
        raise UserError(f"{path.name}: declares XML entities ({error}); refused, nothing imported.") from error
    except SyntaxError as error:  # ElementTree.ParseError
        raise UserError(f"{path.name}: not well-formed XML ({error}); nothing imported.") from error


def parse_wsd_xml(
    xml_path: Path | str,
    gold_path: Path | str,
    synset_of_key: Callable[[str], str | None],
    limits: InputLimits | None = None,
    known_ids: Iterable[str] = (),
    first_key: bool = False,
    progress: ProgressCallback = no_progress,
) -> WsdParse:
    """Validate the whole file pair; raise ``ItemImportError`` (every bad instance, by id and rule) or return items.

    ``synset_of_key`` maps a WordNet sense key to the project's synset id (the English lexicon's sense keys).
    """
    xml_path, gold_path = Path(xml_path), Path(gold_path)
    limits = limits or InputLimits()
    if xml_path.stat().st_size > limits.max_file_bytes:
        raise UserError(
            f"{xml_path.name}: larger than {limits.max_file_mb} MB (input limit max_file_mb); nothing imported."
        )
    try:
        from sacremoses import MosesDetokenizer
    except ImportError as error:
        raise UserError('Reading WSD-framework XML needs sacremoses: pip install -e ".[wordnet]"') from error
    detokenizer = MosesDetokenizer(lang="en")
    progress(0, 0, "reading the gold keys")
    gold = read_gold_keys(gold_path, limits)
    problems = ProblemLog(limits.max_problems)
    warnings: list[RowProblem] = []
    result = WsdParse(ParsedItems([], warnings))
    existing = {known.casefold(): known for known in known_ids}
    seen: set[str] = set()
    corpus = xml_path.name.removesuffix(".data.xml").removesuffix(".xml")
    text_id, domain = "", ""
    tokens: list[_Token] = []
    in_token = False

    def finish_sentence() -> None:
        surfaces = [" ".join(token.text.split()) for token in tokens]
        sentence, spans = rebuild_sentence(surfaces, lambda words: detokenizer.detokenize(words, unescape=False))
        for token, (start, end) in zip(tokens, spans, strict=True):
            if token.instance is not None:
                _instance(token.instance, sentence, start, end)

    def _instance(attrs: dict[str, str], sentence: str, start: int, end: int) -> None:
        result.instances += 1
        number = result.instances
        if number > limits.max_rows:
            raise UserError(
                f"{xml_path.name}: more than {limits.max_rows:,} instances (input limit max_rows); nothing imported."
            )
        if number % PROGRESS_INSTANCES == 0:
            progress(number, 0, "reading instances")
        ident = attrs.get("id", "").strip()
        if not ident:
            problems.append(RowProblem(number, "instance", "missing_value", f"instance {number} has no id"))
            return
        raw_pos = attrs.get("pos", "").strip()
        pos = POS_TAGS.get(raw_pos.upper())
        if pos is None:
            problems.append(
                _problem(number, ident, "bad_pos", f"part of speech {raw_pos!r} is not NOUN, VERB, ADJ or ADV", "pos")
            )
            return
        keys = gold.get(ident)
        if not keys:
            problems.append(_problem(number, ident, "no_gold_key", f"no line in {gold_path.name}", "synset"))
            return
        lemma = attrs.get("lemma", "")
        other = next((key for key in keys if not key_matches_lemma(key, lemma)), None)
        if other is not None:
            problems.append(
                _problem(
                    number,
                    ident,
                    "key_of_another_lemma",
                    f"gold key {other!r} is a sense of {other.partition('%')[0]!r}, not of the instance's lemma "
                    f"{lemma!r}",
                    "synset",
                )
            )
            return
        if len(keys) > 1 and not first_key:
            result.multi_key.append((ident, keys))
            return
        synset = synset_of_key(keys[0])
        if synset is None:
            problems.append(
                _problem(
                    number,
                    ident,
                    "unknown_sense_key",
                    f"sense key {keys[0]!r} is not in the project's English wordnet",
                    "synset",
                )
            )
            return
        values = {
            "id": ident,
            "sentence": sentence,
            "start": start,
            "end": end,
            "target": sentence[start:end],
            "lemma": " ".join(attrs.get("lemma", "").replace("_", " ").split()),
            "pos": pos,
            "synset": synset,
            "source": f"{corpus} {text_id}".strip(),
            "domain": domain,
        }
        mine: list[RowProblem] = []
        item = row_columns(Row(number, values), mine, warnings, limits)
        for problem in mine:
            problems.append(_problem(problem.row, ident, problem.rule, problem.message, problem.column))
        if item is None:
            return
        folded = item.id.casefold()
        other = existing.get(folded)
        if folded in seen or (other is not None and other != item.id):
            problems.append(_problem(number, ident, "duplicate_id", "the id is used twice (ids ignore case)", "id"))
            return
        seen.add(folded)
        result.parsed.records.append(item)

    for event, element in _events(xml_path):
        tag = element.tag
        if event == "start":
            if tag == "corpus":
                corpus = element.get("source") or corpus
            elif tag == "text":
                text_id, domain = element.get("id", ""), " ".join((element.get("domain") or "").split())
            elif tag == "sentence":
                tokens = []
            elif tag in ("wf", "instance"):
                in_token = True
            continue
        if tag in ("wf", "instance") and in_token:
            in_token = False
            surface = "".join(element.itertext())
            if surface.strip():
                tokens.append(_Token(surface, dict(element.attrib) if tag == "instance" else None))
            element.clear()
        elif tag == "sentence":
            finish_sentence()
            tokens = []
            element.clear()
        elif tag == "text":
            element.clear()
    if result.instances == 0:
        problems.append(RowProblem(1, "", "no_instances", f"{xml_path.name} holds no <instance>"))
    if problems.total:
        raise ItemImportError(xml_path, problems)
    progress(result.instances, result.instances, "read")
    return result
