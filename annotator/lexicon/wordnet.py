"""A lexicon provider over open wordnets (English WordNet 3.0 + Open Multilingual Wordnet) through the ``wn`` library.

Lets a project pre-populate without a BabelNet key: Ω(λ) comes from the English lexicon in WordNet sense order,
G0/B0 from each language's lexicons through the ILI (or the shared WordNet 3.0 offset). Synset ids are BabelNet's
notation for WordNet synsets (``wn:13773250n``) so items, exports and filters stay provider-neutral.

``wn`` keeps one global configuration (its data folder); every call here sets it to the project's own folder
under a lock, so the user's global ``wn`` database is never touched and two projects in one process do not mix.
``wn`` stores, validates and downloads the lexicons; look-ups read a per-lexicon index written from the same
WN-LMF file when it is added (``wordnet_index``), since ``wn``'s object-at-a-time queries cost milliseconds each.
"""

from __future__ import annotations

import contextlib
import gzip
import lzma
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.lexicon.base import ENGLISH, LexiconError, LexSense, SynsetRecord
from annotator.lexicon.wordnet_index import LexiconIndex, index_path, read_lmf
from annotator.lexicon.wordnet_relations import write_relations
from annotator.private_files import make_private, make_private_folder

#: The folder, inside the project's data folder, that holds the project's own ``wn`` database.
WORDNET_FOLDER = "wordnet"
#: Source names the English lexicon's senses carry: rank_senses reads WordNet sense numbers from source "WN".
ENGLISH_SOURCE = "WN"

#: ``wn:`` + WordNet 3.0 offset + n/v/a/r (BabelNet's notation for WordNet synsets; satellites are ``a``).
WN_ID = re.compile(r"^wn:(\d{8})([nvar])$")
#: A wordnet's own synset id ending in a WordNet offset and synset type (``wn30en-13773250-n``, ``omw-it-…-s``).
OFFSET_ID = re.compile(r"-(\d{8})-([nvasr])$")
UPOS_TO_WN = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
WN_TO_UPOS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}
#: English lexicons known not to be WordNet 3.0 (their offsets are another version's, or they have none).
NOT_WORDNET_30 = frozenset(
    {"oewn", "ewn", "omw-en31", "omw-en15", "omw-en16", "omw-en17", "omw-en171", "omw-en20", "omw-en21"}
)
#: Three-letter and regional language tags of OMW lexicons → the project's ISO 639-1 codes.
_LANGUAGE_ALIASES = {
    "cmn": "zh", "zho": "zh", "chi": "zh", "eng": "en", "ita": "it", "deu": "de", "ger": "de",
    "rus": "ru", "spa": "es", "fra": "fr", "fre": "fr", "por": "pt", "jpn": "ja", "nld": "nl",
}  # fmt: skip
LMF_SUFFIXES = (".xml", ".xml.gz", ".xml.xz")
#: The largest decompressed WN-LMF file accepted (the English WordNet 3.0 file is about 90 MB).
MAX_LMF_BYTES = 1 << 30
_PACKAGE_ID = re.compile(r"^[a-z][a-z0-9._-]*(:[A-Za-z0-9._+-]+)?$")

_lock = threading.RLock()


def project_language(tag: str) -> str:
    """A lexicon's language tag as a project language: ``cmn-Hans`` → ``ZH``, ``it`` → ``IT``."""
    primary = tag.split("-")[0].split("_")[0].lower()
    return _LANGUAGE_ALIASES.get(primary, primary).upper()


def wn_synset_id(offset: str, ss_type: str) -> str:
    return f"wn:{offset}{'a' if ss_type == 's' else ss_type}"


def _wn() -> Any:
    try:
        import wn
    except ImportError as error:
        raise LexiconError('The wordnet provider needs the wn library: pip install -e ".[wordnet]"') from error
    return wn


@contextlib.contextmanager
def using_folder(folder: Path) -> Iterator[Any]:
    """``wn`` pointed at ``folder`` (created 0700) for the duration; look-ups may come from the app's threads."""
    wn = _wn()
    with _lock:
        make_private_folder(folder)
        wn.config.data_directory = folder
        wn.config.allow_multithreading = True
        yield wn


def _privatise(folder: Path) -> None:
    if folder.exists():
        make_private(folder)


@dataclass(frozen=True)
class LexiconInfo:
    """One lexicon in a project's ``wn`` database, as ``use-wordnet`` prints it."""

    id: str
    version: str
    language: str
    synsets: int
    senses: int
    added: bool = True

    @property
    def specifier(self) -> str:
        return f"{self.id}:{self.version}"

    def describe(self) -> str:
        what = "added" if self.added else "already there"
        return (
            f"{self.specifier} ({self.language}, project language {project_language(self.language)}): "
            f"{self.synsets:,} synsets, {self.senses:,} senses — {what}"
        )


@dataclass(frozen=True)
class _Source:
    label: str  # what the user typed
    path: Path  # an uncompressed WN-LMF file
    lexicons: tuple[tuple[str, str], ...]  # (id, version)


def _decompressed(path: Path, scratch: Path) -> Path:
    name = path.name.lower()
    if name.endswith(".xml"):
        return path
    opener: Callable[..., Any] = gzip.open if name.endswith(".gz") else lzma.open
    target = scratch / (path.name.rsplit(".", 1)[0])
    written = 0
    try:
        with opener(path, "rb") as source, open(target, "wb") as out:
            while chunk := source.read(1 << 20):
                written += len(chunk)
                if written > MAX_LMF_BYTES:  # a decompression bomb, not a wordnet (WordNet 3.0 is ~90 MB)
                    raise LexiconError(f"{path}: decompresses to more than {MAX_LMF_BYTES >> 20:,} MB; refused.")
                out.write(chunk)
    except (OSError, EOFError, lzma.LZMAError) as error:
        raise LexiconError(f"{path}: not a WN-LMF file: cannot decompress it ({error}).") from error
    return target


def _check_file(wn: Any, label: str, path: Path, scratch: Path) -> _Source:
    if not path.is_file():
        raise LexiconError(f"{label}: no such file (and not a wn package id).")
    if not path.name.lower().endswith(LMF_SUFFIXES):
        raise LexiconError(f"{label}: not a WN-LMF file: the name must end in .xml, .xml.gz or .xml.xz.")
    plain = _decompressed(path, scratch)
    if not wn.lmf.is_xml(plain):
        raise LexiconError(
            f'{label}: not a WN-LMF file: it has no XML declaration (<?xml version="1.0" encoding="UTF-8"?>).'
        )
    if not wn.lmf.is_lmf(plain):
        raise LexiconError(
            f"{label}: not a WN-LMF file: it lacks the UTF-8 XML declaration and the WN-LMF DOCTYPE "
            '(<!DOCTYPE LexicalResource SYSTEM "…/WN-LMF-1.x.dtd">) on its first two lines.'
        )
    infos = wn.lmf.scan_lexicons(plain)
    if not infos:
        raise LexiconError(f"{label}: not a WN-LMF file: it holds no <Lexicon>.")
    return _Source(label, plain, tuple((info["id"], info["version"]) for info in infos))


def _downloaded(wn: Any, package: str, scratch: Path) -> list[_Source]:
    """A ``wn`` package id, downloaded into the project's folder; its WN-LMF file(s) checked like any file."""
    try:
        archive = Path(wn.download(package, add=False, progress_handler=None))
    except Exception as error:  # wn raises its own errors and the network's
        raise LexiconError(f"{package}: cannot download this wn package ({error}).") from error
    from wn.project import iterpackages

    sources = []
    for number, found in enumerate(iterpackages(archive)):
        copy = scratch / f"package-{number}.xml"
        shutil.copyfile(found.resource_file(), copy)
        sources.append(_check_file(wn, f"{package} ({found.resource_file().name})", copy, scratch))
    if not sources:
        raise LexiconError(f"{package}: the downloaded package holds no WN-LMF file.")
    return sources


def _lexicon_info(wn: Any, lexicon: Any, added: bool) -> LexiconInfo:
    spec = lexicon.specifier()
    net = wn.Wordnet(spec, expand="")
    return LexiconInfo(lexicon.id, lexicon.version, lexicon.language, len(net.synsets()), len(net.senses()), added)


def english_alignment_problem(wn: Any, lexicon: Any) -> str | None:
    """Why an English lexicon cannot give WordNet 3.0 ``wn:`` ids, or None when it can."""
    if lexicon.id in NOT_WORDNET_30:
        return (
            f"the English lexicon {lexicon.specifier()} is not WordNet 3.0 (its synsets are another WordNet "
            "version's); add English WordNet 3.0 instead (package omw-en:1.4, or a wn30en WN-LMF file)"
        )
    synsets = wn.Wordnet(lexicon.specifier(), expand="").synsets()
    prefix = f"{lexicon.id}-"
    odd = [s.id for s in synsets if not (s.id.startswith(prefix) and OFFSET_ID.search(s.id))]
    if odd or not synsets:
        return (
            f"the English lexicon {lexicon.specifier()} is not aligned with WordNet 3.0: its synset ids "
            f"(e.g. {odd[0] if odd else 'none'}) do not carry WordNet 3.0 offsets ({lexicon.id}-NNNNNNNN-n); "
            "add English WordNet 3.0 instead (package omw-en:1.4, or a wn30en WN-LMF file)"
        )
    return None


def add_lexicons(
    folder: Path, sources: Sequence[str], progress: Callable[[int, int, str], None] | None = None
) -> list[LexiconInfo]:
    """Add WN-LMF files or ``wn`` package ids to the project's ``wn`` database in ``folder``.

    Every source is checked before anything is added, so a bad file changes nothing; a lexicon already there
    (same id and version) is left as it is. An English lexicon that is not WordNet 3.0-aligned is removed
    again and refused.
    """
    if not sources:
        raise LexiconError("Give at least one WN-LMF file or wn package id.")
    with using_folder(folder) as wn, tempfile.TemporaryDirectory(dir=folder, prefix="unpack-") as scratch_dir:
        scratch = Path(scratch_dir)
        checked: list[_Source] = []
        for label in sources:
            path = Path(label).expanduser()
            remote = label.startswith(("https://", "http://"))
            if remote or (not path.exists() and _PACKAGE_ID.match(label) and not label.lower().endswith(LMF_SUFFIXES)):
                checked.extend(_downloaded(wn, label, scratch))
                continue
            checked.append(_check_file(wn, label, path, scratch))
        results: list[LexiconInfo] = []
        total = len(checked)
        for done, source in enumerate(checked, start=1):
            present = {lex.specifier() for lex in wn.lexicons()}
            new = [(i, v) for i, v in source.lexicons if f"{i}:{v}" not in present]
            if new:
                wn.add(source.path, progress_handler=None)
            if new or any(not index_path(folder, i, v).exists() for i, v in source.lexicons):
                for index in read_lmf(source.path):
                    index.write(folder)
                write_relations(source.path, folder)  # issue 33: relations for suggestions
            for lex_id, version in source.lexicons:
                lexicon = wn.lexicons(lexicon=f"{lex_id}:{version}")[0]
                if (lex_id, version) in new and project_language(lexicon.language) == ENGLISH:
                    problem = english_alignment_problem(wn, lexicon)
                    if problem:
                        wn.remove(lexicon.specifier(), progress_handler=None)
                        index_path(folder, lex_id, version).unlink(missing_ok=True)
                        raise LexiconError(f"{source.label}: {problem}.")
                results.append(_lexicon_info(wn, lexicon, (lex_id, version) in new))
            if progress:
                progress(done, total, source.label)
    _privatise(folder)
    return results


def installed_lexicons(folder: Path) -> list[LexiconInfo]:
    """The lexicons in the project's ``wn`` database (for status lines and the benchmark)."""
    if not folder.exists():
        return []
    with using_folder(folder) as wn:
        return [_lexicon_info(wn, lexicon, False) for lexicon in wn.lexicons()]


def lexicon_specifiers(folder: Path) -> list[str]:
    """``id:version`` of every lexicon in the project's ``wn`` database (cheap: for manifests)."""
    if not (folder / "wn.db").exists():
        return []
    with using_folder(folder) as wn:
        return sorted(lexicon.specifier() for lexicon in wn.lexicons())


class WordnetLexicon:
    """The ``Lexicon`` interface over a project's wordnet: one English WordNet 3.0 lexicon plus other languages.

    The lexicons are the ones in the project's ``wn`` database; look-ups read each lexicon's index (written from
    its WN-LMF file by ``add_lexicons``), loaded once: pre-populating 100,000 items stays within seconds.
    """

    name = "wordnet"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if not (folder / "wn.db").exists():
            raise LexiconError(
                f"No wordnet in {folder}: run 'annotator lexicon use-wordnet SOURCE…' (WN-LMF files or wn package ids)."
            )
        with using_folder(folder) as wn:
            lexicons = [(lex.id, lex.version, lex.language, lex.specifier()) for lex in wn.lexicons()]
        english = [lex for lex in lexicons if project_language(lex[2]) == ENGLISH]
        if len(english) != 1:
            found = ", ".join(lex[3] for lex in english) or "none"
            raise LexiconError(
                f"The project's wordnet needs exactly one English WordNet 3.0 lexicon (found: {found}); "
                "add omw-en:1.4 or a wn30en WN-LMF file."
            )
        self.version = "+".join(sorted(lex[3] for lex in lexicons))
        self._english_spec = english[0][3]
        en = self._load_index(*english[0][:2])  # one index in memory at a time: the peak stays low
        self._info = en.synsets  # wn: id → [ILI, synset POS, definition, own id]
        self._keys = en.keys
        self._by_ili = {info[0]: wn_id for wn_id, info in en.synsets.items() if info[0]}
        ranked: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self._members: dict[str, list[tuple[str, int]]] = {}
        for lemma, pos, senses in en.entries:
            bucket = ranked.setdefault((lemma.casefold(), pos), [])
            for ref, number in senses:
                wn_id = ref if ref.startswith("wn:") else self._by_ili.get(ref)
                if wn_id:
                    bucket.append((number, wn_id))
                    self._members.setdefault(wn_id, []).append((lemma, number))
        self._english_ranks = {
            key: list(dict.fromkeys(wn_id for _n, wn_id in sorted(bucket, key=lambda e: e[0])))
            for key, bucket in ranked.items()
        }
        del en, ranked
        # other languages: lexicon id → wn: id → lemmas (the reverse, for the filters, is built when first asked)
        self._by_lang: dict[str, list[tuple[str, dict[str, list[str]]]]] = {}
        self._lemma_synsets: dict[tuple[str, str, str], list[str]] | None = None
        for lex_id, version, language, _spec in lexicons:
            lang = project_language(language)
            if lang == ENGLISH:
                continue
            index = self._load_index(lex_id, version)
            lemmas: dict[str, list[str]] = {}
            for lemma, _pos, senses in index.entries:
                for ref, _number in senses:
                    wn_id = ref if ref.startswith("wn:") else self._by_ili.get(ref)
                    if wn_id is not None:
                        lemmas.setdefault(wn_id, []).append(lemma)
            self._by_lang.setdefault(lang, []).append((lex_id, lemmas))
            del index

    def _load_index(self, lexicon_id: str, version: str) -> LexiconIndex:
        path = index_path(self.folder, lexicon_id, version)
        try:
            return LexiconIndex.read(path)
        except (OSError, ValueError, KeyError, EOFError) as error:
            raise LexiconError(
                f"The wordnet lexicon {lexicon_id}:{version} has no readable index in {self.folder} ({error}): "
                "add its WN-LMF file again with 'annotator lexicon use-wordnet'."
            ) from error

    # --- what the project's source policy needs --------------------------------------------------------

    @property
    def default_sources(self) -> Mapping[str, frozenset[str]]:
        """By default every lexicon of a language is allowed (its id is the sense's source); English is "WN"."""
        defaults = {lang: frozenset(lex_id.upper() for lex_id, _l in nets) for lang, nets in self._by_lang.items()}
        defaults[ENGLISH] = frozenset({ENGLISH_SOURCE})
        return defaults

    def languages(self) -> dict[str, list[str]]:
        """Project language → lexicon ids (for status lines)."""
        return {lang: [lex_id for lex_id, _l in nets] for lang, nets in sorted(self._by_lang.items())}

    # --- the Lexicon interface -------------------------------------------------------------------------

    def synset_ids(self, lemma: str, pos: str) -> list[str]:
        wn_pos = UPOS_TO_WN.get(pos)
        if wn_pos is None:
            return []
        return list(self._english_ranks.get((" ".join(lemma.replace("_", " ").split()).casefold(), wn_pos), ()))

    def _english_synset(self, synset_id: str) -> str:
        match = WN_ID.match(synset_id)
        if not match:
            if synset_id.startswith("bn:"):
                raise LexiconError(
                    f"{synset_id} is a BabelNet synset id, but this project's lexicon is a wordnet (ids like "
                    "wn:13773250n): use a BabelNet lexicon for this item or give it its WordNet 3.0 synset"
                )
            raise LexiconError(f"{synset_id} is not a WordNet 3.0 synset id (wn: + 8 digits + n, v, a or r)")
        if synset_id not in self._info:
            raise LexiconError(f"{synset_id} is not in the English wordnet {self._english_spec}")
        return synset_id

    def synset(self, synset_id: str, langs: Sequence[str]) -> SynsetRecord:
        self._english_synset(synset_id)
        _ili, ss_type, definition, _own = self._info[synset_id]
        senses = [LexSense(lemma, ENGLISH, ENGLISH_SOURCE, n) for lemma, n in self._members.get(synset_id, ())]
        for lang in dict.fromkeys(lang.upper() for lang in langs):
            for lex_id, lemmas in self._by_lang.get(lang, ()):
                senses.extend(LexSense(lemma, lang, lex_id) for lemma in lemmas.get(synset_id, ()))
        return SynsetRecord(synset_id, WN_TO_UPOS[ss_type], {ENGLISH: definition}, tuple(senses))

    def english_senses(self) -> Iterator[tuple[str, str, str]]:
        """Every (lemma, UPOS, ``wn:`` id) of the English lexicon (for benchmarks and samples)."""
        for (lemma, wn_pos), wn_ids in self._english_ranks.items():
            for wn_id in wn_ids:
                yield lemma, WN_TO_UPOS[wn_pos], wn_id

    def synset_for_sense_key(self, key: str) -> str | None:
        """The ``wn:`` synset of an English WordNet sense key (``shot%1:23:00::``), or None when it has none."""
        return self._keys.get(key.strip())

    def synset_ids_in(self, lemma: str, lang: str, pos: str) -> list[str]:
        lang = lang.upper()
        wn_pos = UPOS_TO_WN.get(pos)
        if wn_pos is None:
            return []
        if lang == ENGLISH:
            return self.synset_ids(lemma, pos)
        if self._lemma_synsets is None:
            reverse: dict[tuple[str, str, str], list[str]] = {}
            for other, nets in self._by_lang.items():
                for _lex_id, lemmas in nets:
                    for wn_id, words in lemmas.items():
                        for word in words:
                            found = reverse.setdefault((other, word.casefold(), wn_id[-1]), [])
                            if wn_id not in found:
                                found.append(wn_id)
            self._lemma_synsets = reverse
        return list(self._lemma_synsets.get((lang, " ".join(lemma.split()).casefold(), wn_pos), ()))


def foreign_synset_reason(synset_id: str, lexicon: object) -> str | None:
    """Why an item's synset id belongs to the other id scheme than the project's lexicon (skip, don't ask)."""
    if isinstance(lexicon, WordnetLexicon):
        if synset_id.startswith("bn:"):
            return (
                f"{synset_id} is a BabelNet synset id but this project's lexicon is a wordnet (wn: ids); "
                "switch to BabelNet ('annotator lexicon use-babelnet') or give the item its WordNet 3.0 synset"
            )
        return None
    if synset_id.startswith("wn:") and getattr(lexicon, "name", "") == "babelnet":
        return (
            f"{synset_id} is a WordNet 3.0 synset id but this project's lexicon is BabelNet (bn: ids); "
            "switch to a wordnet ('annotator lexicon use-wordnet') or give the item its BabelNet synset"
        )
    return None


def default_sources(lexicon: object) -> Mapping[str, frozenset[str]] | None:
    """A provider's own default allowed sources per language (wordnet: its lexicon ids), or None for SPEC §4.3's."""
    found = getattr(lexicon, "default_sources", None)
    return found if isinstance(found, Mapping) else None


__all__ = [
    "WORDNET_FOLDER",
    "LexiconInfo",
    "WordnetLexicon",
    "add_lexicons",
    "default_sources",
    "foreign_synset_reason",
    "installed_lexicons",
    "lexicon_specifiers",
    "project_language",
]
