"""Checking a WN-LMF file before anything is added: the whole file is read once, streamed, and refused by line and rule.

``wn`` loads a whole file into memory and then asserts, so a bad file used to end in a traceback with the lexicon
half-added. Here the file is read through expat with a byte budget (the project's ``max_snapshot_mb``, counted on
the decompressed text, so a plain file and a compression bomb are bounded alike), with no internal DTD subset, no
entity declarations and no undeclared entities (``&nbsp;`` is refused, not skipped), WN-LMF's elements in their
places with their required attributes, ids unique, and every sense, relation and frame pointing at something
declared. Memory holds one entry at a time plus one lexicon's id sets and look-up index, built in the same pass. What
``wn`` adds afterwards is the copy written here, so the bytes checked are the bytes added.
"""

from __future__ import annotations

import gzip
import lzma
import re
import xml.parsers.expat
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from annotator.data_import.limits import InputLimits, megabytes
from annotator.lexicon.base import LexiconError
from annotator.lexicon.wordnet_index import LexiconIndex, finish_index, sense_key_from_id, wn_id_of
from annotator.private_files import open_private

LMF_SUFFIXES = (".xml", ".xml.gz", ".xml.xz")
#: The two header lines ``wn`` requires (it reads them as bytes, single or double quotes).
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'
_DOCTYPE = re.compile(
    r'^<!DOCTYPE LexicalResource SYSTEM "https?://globalwordnet\.github\.io/schemas/WN-LMF-1\.[0-4]\.dtd">$'
)
#: English lexicons known not to be WordNet 3.0 (their offsets are another version's, or they have none).
NOT_WORDNET_30 = frozenset(
    {"oewn", "ewn", "omw-en31", "omw-en15", "omw-en16", "omw-en17", "omw-en171", "omw-en20", "omw-en21"}
)
#: Three-letter and regional language tags of OMW lexicons → the project's ISO 639-1 codes.
_LANGUAGE_ALIASES = {
    "cmn": "zh", "zho": "zh", "chi": "zh", "eng": "en", "ita": "it", "deu": "de", "ger": "de",
    "rus": "ru", "spa": "es", "fra": "fr", "fre": "fr", "por": "pt", "jpn": "ja", "nld": "nl",
}  # fmt: skip
#: A synset id ending in a WordNet 3.0 offset and synset type (``wn30en-13773250-n``, ``omw-it-00005839-s``).
OFFSET_ID = re.compile(r"-(\d{8})-([nvasr])$")
_DC = "https://globalwordnet.github.io/schemas/dc/ identifier"
_DC_1_0 = "http://purl.org/dc/elements/1.1/ identifier"
CHUNK = 1 << 16

#: Element → (its allowed parents, its required attributes). WN-LMF 1.0–1.4 without lexicon extensions. Required
#: attributes must not be blank, except ``ili``, which may be empty (a synset with no ILI yet).
GRAMMAR: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "LexicalResource": (frozenset({""}), ()),
    "Lexicon": (frozenset({"LexicalResource"}), ("id", "label", "language", "email", "license", "version")),
    "Requires": (frozenset({"Lexicon"}), ("version",)),
    "LexicalEntry": (frozenset({"Lexicon"}), ("id",)),
    "Lemma": (frozenset({"LexicalEntry"}), ("writtenForm", "partOfSpeech")),
    "Form": (frozenset({"LexicalEntry"}), ("writtenForm",)),
    "Pronunciation": (frozenset({"Lemma", "Form"}), ()),
    "Tag": (frozenset({"Lemma", "Form"}), ("category",)),
    "Sense": (frozenset({"LexicalEntry"}), ("id", "synset")),
    "SenseRelation": (frozenset({"Sense"}), ("target", "relType")),
    "Example": (frozenset({"Sense", "Synset"}), ()),
    "Count": (frozenset({"Sense"}), ()),
    "SyntacticBehaviour": (frozenset({"LexicalEntry", "Lexicon"}), ("subcategorizationFrame",)),
    "Synset": (frozenset({"Lexicon"}), ("id", "ili")),
    "Definition": (frozenset({"Synset"}), ()),
    "ILIDefinition": (frozenset({"Synset"}), ()),
    "SynsetRelation": (frozenset({"Synset"}), ("target", "relType")),
}
_EXTENSIONS = {"LexiconExtension", "Extends", "ExternalLexicalEntry", "ExternalLemma", "ExternalForm",
               "ExternalSense", "ExternalSynset"}  # fmt: skip
PARTS_OF_SPEECH = frozenset("nvarstcpxu")
_POS_LIST = " ".join(sorted(PARTS_OF_SPEECH))


def project_language(tag: str) -> str:
    """A lexicon's language tag as a project language: ``cmn-Hans`` → ``ZH``, ``it`` → ``IT``."""
    primary = tag.split("-")[0].split("_")[0].lower()
    return _LANGUAGE_ALIASES.get(primary, primary).upper()


class WordnetFileError(LexiconError):
    """A wordnet file refused before anything was added: the file, the line where it applies, and the rule."""

    def __init__(self, file: str, line: int | None, rule: str, message: str) -> None:
        where = f"line {line}" if line else "the whole file"
        super().__init__(f"{file}, {where}: {message} [rule {rule}]. Nothing was added.")
        self.file, self.line, self.rule = file, line, rule


@dataclass
class CheckedLexicon:
    """What the check learned about one ``<Lexicon>``: enough to decide the English rule and to index it."""

    id: str
    version: str
    language: str
    line: int
    synsets: int = 0
    senses: int = 0
    #: The first synset id without a WordNet 3.0 offset (``lexid-NNNNNNNN-p``), and its line.
    unaligned: tuple[str, int] | None = None
    #: Its look-up index, written beside the checked copy as soon as the lexicon ends (memory holds one at a time).
    index_file: Path | None = None

    @property
    def specifier(self) -> str:
        return f"{self.id}:{self.version}"

    @property
    def is_english(self) -> bool:
        return project_language(self.language) == "EN"

    def wordnet_30_problem(self) -> str | None:
        """Why this English lexicon cannot give WordNet 3.0 ``wn:`` ids, or None when it can."""
        if self.id in NOT_WORDNET_30:
            return f"the English lexicon {self.specifier} is not WordNet 3.0 (its synsets are another version's)"
        if self.unaligned is not None or not self.synsets:
            example = self.unaligned[0] if self.unaligned else "none"
            return (
                f"the English lexicon {self.specifier} is not aligned with WordNet 3.0: its synset ids (e.g. "
                f"{example}) do not carry WordNet 3.0 offsets ({self.id}-NNNNNNNN-n)"
            )
        return None


@dataclass
class CheckedFile:
    label: str  # what the user typed
    copy: Path  # the checked, uncompressed bytes: what ``wn`` adds
    lexicons: list[CheckedLexicon] = field(default_factory=list)


class _BoundedReader:
    """The file's decompressed bytes, counted against the budget, copied to ``copy``, with progress by raw bytes."""

    def __init__(self, path: Path, label: str, budget: int, copy: IO[bytes], progress: Callable[[int, int], None]):
        name = path.name.lower()
        try:
            self.raw = path.open("rb")
        except OSError as error:
            raise WordnetFileError(label, None, "unreadable", f"cannot read it ({error.strerror or error})") from error
        self.stream: IO[bytes] | gzip.GzipFile | lzma.LZMAFile = self.raw
        if name.endswith(".gz"):
            self.stream = gzip.GzipFile(fileobj=self.raw, mode="rb")
        elif name.endswith(".xz"):
            self.stream = lzma.LZMAFile(self.raw, mode="rb")  # noqa: SIM115 - closed by close()
        self.label, self.budget, self.copy, self.progress = label, budget, copy, progress
        self.size = path.stat().st_size
        self.read_bytes = 0

    def read(self) -> bytes:
        try:
            chunk = self.stream.read(CHUNK)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
            if self.stream is self.raw:
                raise WordnetFileError(self.label, None, "unreadable", f"cannot read it ({error})") from error
            raise WordnetFileError(self.label, None, "not_compressed_lmf", f"cannot decompress it ({error})") from error
        self.read_bytes += len(chunk)
        if self.read_bytes > self.budget:
            raise WordnetFileError(
                self.label,
                None,
                "too_large",
                f"its text is larger than {megabytes(self.budget)} (input limit max_snapshot_mb; English WordNet 3.0 "
                "is about 106 MB); ask a lead to raise the limit if the file is genuine",
            )
        self.copy.write(chunk)
        self.progress(self.raw.tell(), self.size)
        return chunk

    def close(self) -> None:
        self.stream.close()
        self.raw.close()


class _Checker:
    """expat handlers that check WN-LMF as it streams by and build each lexicon's look-up index."""

    def __init__(self, label: str, index_folder: Path) -> None:
        self.label, self.index_folder = label, index_folder
        self.parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
        self.parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.parser.StartDoctypeDeclHandler = self._doctype
        self.parser.EntityDeclHandler = self._entity
        self.parser.SkippedEntityHandler = self._skipped
        self.parser.ExternalEntityRefHandler = self._external
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._text
        self.on_start: dict[str, Callable[[dict[str, str], int], None]] = {
            "Lexicon": self._start_lexicon, "LexicalEntry": self._start_entry, "Lemma": self._start_lemma,
            "Form": self._start_form_element, "Sense": self._start_sense, "SenseRelation": self._start_sense_relation,
            "SyntacticBehaviour": self._start_frame, "Synset": self._start_synset,
            "SynsetRelation": self._start_synset_relation,
        }  # fmt: skip
        self.on_end: dict[str, Callable[[], None]] = {
            "Definition": self._end_definition, "Count": self._end_count, "Synset": self._end_synset,
            "LexicalEntry": self._end_entry, "Lexicon": self._end_lexicon,
        }  # fmt: skip
        self.stack: list[str] = [""]
        self.lexicons: list[CheckedLexicon] = []
        self.current: CheckedLexicon | None = None
        self.text: list[str] | None = None
        self._reset_lexicon()

    def _reset_lexicon(self) -> None:
        self.ids: dict[str, int] = {}  # every id in the lexicon → its line (entries, senses, synsets, frames…)
        self.synset_ids: set[str] = set()
        self.sense_ids: set[str] = set()
        self.frame_ids: set[str] = set()
        #: references checked when the lexicon ends: (kind, target, line)
        self.refs: list[tuple[str, str, int]] = []
        self.entry: dict[str, Any] | None = None
        self.synset: list[str] | None = None
        self.raw_entries: list[list[Any]] = []
        self.raw_keys: dict[str, str] = {}
        self.pending_synsets: dict[str, list[str]] = {}  # own synset id → [ILI, POS, definition]

    # --- refusals --------------------------------------------------------------------------------------

    def refuse(self, rule: str, message: str, line: int | None = None) -> WordnetFileError:
        return WordnetFileError(self.label, line or self.parser.CurrentLineNumber, rule, message)

    def _doctype(self, name: str, _system_id: str | None, _public_id: str | None, has_internal_subset: int) -> None:
        if has_internal_subset:
            raise self.refuse("dtd", "the DOCTYPE has an internal subset; WN-LMF files declare none")

    def _entity(self, name: str, *_args: Any) -> None:
        raise self.refuse("entity", f"it declares the XML entity {name!r}; WN-LMF files declare none")

    def _skipped(self, name: str, _is_parameter: int) -> None:
        raise self.refuse("entity", f"undeclared entity &{name}; (write the character itself)")

    def _external(self, *_args: Any) -> int:
        raise self.refuse("entity", "it refers to an external entity; WN-LMF files refer to none")

    # --- elements --------------------------------------------------------------------------------------

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        line = self.parser.CurrentLineNumber
        parent = self.stack[-1]
        if tag in _EXTENSIONS:
            raise self.refuse("lmf_extension", f"<{tag}>: lexicon extensions are not supported; add the full lexicon")
        rule = GRAMMAR.get(tag)
        if rule is None:
            raise self.refuse("lmf_element", f"<{tag}> is not a WN-LMF element")
        parents, required = rule
        if parent not in parents:
            where = f"inside <{parent}>" if parent else "as the root element"
            raise self.refuse("lmf_element", f"<{tag}> cannot stand {where}")
        missing = [name for name in required if name not in attrs or (name != "ili" and not attrs[name].strip())]
        if missing:
            raise self.refuse("lmf_attribute", f"<{tag}> lacks the attribute(s) {', '.join(missing)}")
        self.stack.append(tag)
        opening = self.on_start.get(tag)
        if opening is not None:
            opening(attrs, line)
        if tag in ("Definition", "Count"):
            self.text = []

    def _text(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)
        elif data.strip() and self.stack[-1] not in ("Example", "ILIDefinition", "Pronunciation", "Tag"):
            raise self.refuse("lmf_text", f"text {data.strip()[:40]!r} inside <{self.stack[-1]}>")

    def _end(self, tag: str) -> None:
        self.stack.pop()
        closing = self.on_end.get(tag)
        if closing is not None:
            closing()

    def _declare(self, kind: str, ident: str, line: int) -> None:
        if ident in self.ids:
            raise self.refuse("duplicate_id", f"the id {ident!r} is used twice (first on line {self.ids[ident]})")
        self.ids[ident] = line

    def _start_lexicon(self, attrs: dict[str, str], line: int) -> None:
        self._reset_lexicon()
        self.current = CheckedLexicon(attrs["id"], attrs["version"], attrs["language"], line)
        if any(lex.specifier == self.current.specifier for lex in self.lexicons):
            raise self.refuse("duplicate_lexicon", f"the lexicon {self.current.specifier} appears twice in the file")

    def _start_entry(self, attrs: dict[str, str], line: int) -> None:
        self._declare("entry", attrs["id"], line)
        self.entry = {"line": line, "lemma": None, "forms": set(), "senses": [], "count": 0}

    def _form(self, attrs: dict[str, str]) -> None:
        assert self.entry is not None
        form = (attrs["writtenForm"], attrs.get("script", ""))
        if form in self.entry["forms"]:
            raise self.refuse("duplicate_form", f"the written form {form[0]!r} is given twice in this entry")
        self.entry["forms"].add(form)

    def _start_lemma(self, attrs: dict[str, str], line: int) -> None:
        assert self.entry is not None
        if self.entry["lemma"] is not None or self.entry["senses"]:
            raise self.refuse("lmf_element", "<Lemma> must come once, first in its <LexicalEntry>")
        pos = attrs["partOfSpeech"]
        if pos not in PARTS_OF_SPEECH:
            raise self.refuse("lmf_attribute", f"partOfSpeech {pos!r} is not one of {_POS_LIST}")
        self.entry["lemma"] = (attrs["writtenForm"], pos)
        self._form(attrs)

    def _start_form_element(self, attrs: dict[str, str], line: int) -> None:
        if attrs.get("id"):
            self._declare("form", attrs["id"], line)
        self._form(attrs)

    def _start_sense(self, attrs: dict[str, str], line: int) -> None:
        assert self.entry is not None and self.current is not None
        if self.entry["lemma"] is None:
            raise self.refuse("lmf_element", "<Sense> before the entry's <Lemma>")
        self._declare("sense", attrs["id"], line)
        self.sense_ids.add(attrs["id"])
        self.current.senses += 1
        self.entry["count"] += 1
        synset = attrs["synset"]
        self.refs.append(("synset", synset, line))
        for frame in attrs.get("subcat", "").split():
            self.refs.append(("frame", frame, line))
        number = attrs.get("n", "")
        if number and not number.strip().isdigit():
            raise self.refuse("lmf_attribute", f"<Sense> n={number!r} is not a whole number")
        lexicalized = attrs.get("lexicalized", "true").strip().lower()
        if lexicalized not in ("true", "false"):
            raise self.refuse("lmf_attribute", f"lexicalized={lexicalized!r} is neither true nor false")
        key = attrs.get(_DC) or attrs.get(_DC_1_0) or sense_key_from_id(attrs["id"], self.current.id)
        if key:
            self.raw_keys.setdefault(key, synset)
        if lexicalized == "true":
            self.entry["senses"].append([synset, int(number or self.entry["count"])])

    def _start_sense_relation(self, attrs: dict[str, str], line: int) -> None:
        self.refs.append(("sense or synset", attrs["target"], line))

    def _start_frame(self, attrs: dict[str, str], line: int) -> None:
        if attrs.get("id"):
            self._declare("frame", attrs["id"], line)
            self.frame_ids.add(attrs["id"])
        for sense in attrs.get("senses", "").split():
            self.refs.append(("sense", sense, line))

    def _start_synset(self, attrs: dict[str, str], line: int) -> None:
        assert self.current is not None
        own = attrs["id"]
        self._declare("synset", own, line)
        self.synset_ids.add(own)
        self.current.synsets += 1
        if self.current.unaligned is None and not (own.startswith(f"{self.current.id}-") and OFFSET_ID.search(own)):
            self.current.unaligned = (own, line)
        pos = attrs.get("partOfSpeech", "")
        if pos and pos not in PARTS_OF_SPEECH:
            raise self.refuse("lmf_attribute", f"partOfSpeech {pos!r} is not one of {_POS_LIST}")
        ili = attrs["ili"].strip()
        self.synset = [own, "" if ili in ("", "in") else ili, pos, ""]
        for member in attrs.get("members", "").split():
            self.refs.append(("sense", member, line))

    def _start_synset_relation(self, attrs: dict[str, str], line: int) -> None:
        self.refs.append(("synset", attrs["target"], line))

    def _end_definition(self) -> None:
        if self.synset is not None and not self.synset[3] and self.text is not None:
            self.synset[3] = " ".join("".join(self.text).split())
        self.text = None

    def _end_count(self) -> None:
        value = "".join(self.text or []).strip()
        self.text = None
        if not value.isdigit():
            raise self.refuse("lmf_text", f"<Count> holds {value[:40]!r}, not a whole number")

    def _end_synset(self) -> None:
        assert self.synset is not None and self.current is not None
        own, ili, pos, definition = self.synset
        self.pending_synsets[own] = [ili, pos, definition]
        self.synset = None

    def _end_entry(self) -> None:
        assert self.entry is not None
        if self.entry["lemma"] is None:
            raise self.refuse("lmf_element", "<LexicalEntry> without a <Lemma>", self.entry["line"])
        lemma, pos = self.entry["lemma"]
        if self.entry["senses"]:
            self.raw_entries.append([lemma, pos, self.entry["senses"]])
        self.entry = None

    def _end_lexicon(self) -> None:
        assert self.current is not None
        known = {"synset": self.synset_ids, "sense": self.sense_ids, "frame": self.frame_ids}
        for kind, target, line in self.refs:
            found = (
                (target in self.sense_ids or target in self.synset_ids)
                if kind == "sense or synset"
                else (target in known[kind])
            )
            if not found:
                raise self.refuse("unknown_reference", f"it refers to the {kind} {target!r}, not in this lexicon", line)
        index = LexiconIndex(self.current.id, self.current.version, self.current.language, self.pending_synsets)
        self.current.index_file = finish_index(index, self.raw_entries, self.raw_keys).write(self.index_folder)
        self.lexicons.append(self.current)
        self.current = None
        self._reset_lexicon()

    def feed(self, chunk: bytes, final: bool) -> None:
        try:
            self.parser.Parse(chunk, final)
        except xml.parsers.expat.ExpatError as error:
            reason = xml.parsers.expat.ErrorString(error.code)
            message = f"not well-formed XML ({reason})"
            raise WordnetFileError(self.label, error.lineno, "not_well_formed", message) from error


def _check_header(label: str, head: bytes) -> None:
    lines = head.split(b"\n", 2)
    if len(lines) < 2:
        raise WordnetFileError(label, 1, "lmf_header", "not a WN-LMF file: it has no XML declaration and DOCTYPE")
    declaration, doctype = (line.rstrip().replace(b"'", b'"').decode("utf-8", "replace") for line in lines[:2])
    if declaration != XML_DECLARATION:
        message = f"not a WN-LMF file: it has no XML declaration (line 1 must be {XML_DECLARATION})"
        raise WordnetFileError(label, 1, "lmf_header", message)
    if not _DOCTYPE.match(doctype):
        raise WordnetFileError(
            label,
            2,
            "lmf_header",
            "not a WN-LMF file: it lacks the WN-LMF DOCTYPE on line 2 (<!DOCTYPE LexicalResource SYSTEM "
            '"https://globalwordnet.github.io/schemas/WN-LMF-1.x.dtd">)',
        )


def check_file(
    label: str,
    path: Path,
    copy: Path,
    limits: InputLimits,
    progress: Callable[[int, int], None] = lambda _done, _total: None,
) -> CheckedFile:
    """Read ``path`` (.xml, .xml.gz, .xml.xz) whole, checking it; write its text to ``copy`` (0600) for ``wn`` and
    each lexicon's index beside it."""
    if not path.exists():
        raise WordnetFileError(label, None, "no_such_file", "no such file (and not a wn package id)")
    if not path.is_file():
        raise WordnetFileError(label, None, "file_type", "not a regular file (a folder, a device or a pipe)")
    if not path.name.lower().endswith(LMF_SUFFIXES):
        message = "not a WN-LMF file: the name must end in .xml, .xml.gz or .xml.xz"
        raise WordnetFileError(label, None, "file_type", message)
    if path.stat().st_size > limits.max_snapshot_bytes:
        raise WordnetFileError(
            label, None, "too_large", f"the file is larger than {megabytes(limits.max_snapshot_bytes)} "
            "(input limit max_snapshot_mb); ask a lead to raise the limit if the file is genuine"
        )  # fmt: skip
    checker = _Checker(label, copy.parent)
    with open_private(copy, "wb") as out:
        reader = _BoundedReader(path, label, limits.max_snapshot_bytes, out, progress)
        try:
            head = b""
            while len(head) < 4096 and (chunk := reader.read()):
                head += chunk
            _check_header(label, head)
            checker.feed(head, False)
            while chunk := reader.read():
                checker.feed(chunk, False)
            checker.feed(b"", True)
        finally:
            reader.close()
    if not checker.lexicons:
        raise WordnetFileError(label, None, "no_lexicon", "it holds no <Lexicon>")
    return CheckedFile(label, copy, checker.lexicons)


__all__ = ["LMF_SUFFIXES", "CheckedFile", "CheckedLexicon", "WordnetFileError", "check_file", "project_language",
           "wn_id_of"]  # fmt: skip
