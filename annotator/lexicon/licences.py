"""Which licence each lexicon source of a project has, as its provider states it.

BabelNet's data is under the BabelNet Non-Commercial License; each wordnet lexicon says its licence in its WN-LMF
``license`` attribute (kept by ``wn``, read from the current database file); a snapshot says it in its header's
``license`` key when it has one (a snapshot frozen from the BabelNet cache names BabelNet as its provider, so it
carries BabelNet's licence). The rules over these licences are data in ``annotator.domain.licences``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from annotator.domain.licences import (
    Licence,
    SourceLicence,
    SourceRecord,
    identify,
    identify_document,
    identify_statement,
    licence_by_id,
    unknown_licence,
)
from annotator.domain.settings import ProjectSettings
from annotator.lexicon.base import ENGLISH
from annotator.lexicon.snapshot_format import header_fields
from annotator.lexicon.wordnet_store import LexiconMetadata


def snapshot_header(path: Path) -> dict[str, Any]:
    """A snapshot's header (label, provider, version, licence) without building its index (it can be large)."""
    with open(path, encoding="utf-8-sig") as handle:
        first = handle.readline()
        try:
            header = json.loads(first)
        except json.JSONDecodeError:
            header = None
        if not (isinstance(header, dict) and header.get("type") == "header"):
            handle.seek(0)
            header = json.load(handle)
    if not isinstance(header, dict):
        return {}
    return header_fields(header)


def babelnet_source(version: str) -> SourceLicence:
    licence = licence_by_id("babelnet-nc") or identify("babelnet")
    return SourceLicence(
        source=f"BabelNet {version}".strip(),
        provided="synsets, glosses and candidates",
        licence=licence,
        stated=licence.name,
        url="https://babelnet.org/",
        citation="Roberto Navigli and Simone Paolo Ponzetto. 2012. BabelNet: The automatic construction, evaluation "
        "and application of a wide-coverage multilingual semantic network. Artificial Intelligence, 193, 217-250.",
    )


def snapshot_source(header: dict[str, Any], name: str) -> SourceLicence:
    """A snapshot's licence: its header's ``license``; else BabelNet's when its provider is BabelNet; else unknown."""
    stated = header.get("license") or header.get("licence")
    provider = str(header.get("provider") or "")
    label = f"snapshot {name}" + (f" ({provider}, version {header.get('version')})" if provider else "")
    if not stated and "babelnet" in provider.lower():
        babelnet = babelnet_source(str(header.get("version") or ""))
        return SourceLicence(label, babelnet.provided, babelnet.licence, provider, babelnet.url, babelnet.citation)
    text = str(stated) if stated else ""
    return SourceLicence(label, "synsets, glosses and candidates", identify(text), stated=text or "not stated")


def wordnet_sources(
    lexicons: Sequence[LexiconMetadata], languages: Sequence[str], settings: ProjectSettings
) -> list[SourceLicence]:
    """Every lexicon of the project's ``wn`` database whose data can reach the dataset: the English one and those
    of the project's languages (only the allowed ones when the project lists its sources for a language)."""
    from annotator.lexicon.wordnet import project_language

    wanted = {lang.upper() for lang in languages}
    found: list[SourceLicence] = []
    for lexicon in lexicons:
        lang = project_language(lexicon.language)
        if lang != ENGLISH and lang not in wanted:
            continue
        override = [source.upper() for source in settings.allowed_sources.get(lang, [])]
        if lang != ENGLISH and override and "*" not in override and lexicon.id.upper() not in override:
            continue
        provided = "English synsets, glosses and sense order" if lang == ENGLISH else f"{lang} candidates"
        stated = lexicon.license or ""
        found.append(
            SourceLicence(
                source=f"{lexicon.label} ({lexicon.specifier()})",
                provided=provided,
                licence=identify(stated),
                stated=stated or "not stated",
                url=lexicon.url or "",
                citation=lexicon.citation or "",
            )
        )
    return sorted(found, key=lambda s: (not s.provided.startswith("English"), s.source))


#: Licence files looked for beside a data file (``<stem>.LICENSE`` first: a folder may hold several data sets).
LICENCE_FILES = (
    "{stem}.LICENSE",
    "{stem}.LICENSE.txt",
    "LICENSE",
    "LICENSE.txt",
    "LICENSE.md",
    "LICENCE",
    "LICENCE.txt",
    "COPYING",
)
README_FILES = ("{stem}.README", "{stem}.README.md", "README.md", "README.txt", "README")
CITATION_FILES = ("{stem}.citation.bib", "CITATION.bib", "CITATION.cff")
#: Bytes read from any of these files: a licence or a README is text of a few pages.
TEXT_LIMIT = 1 << 20


@cache
def known_texts() -> dict[str, str]:
    """The full texts shipped with the annotator of the licences that ask for their notice in every copy, by id."""
    folder = resources.files("annotator") / "licence_texts"
    return {entry.name.removesuffix(".txt"): entry.read_text(encoding="utf-8") for entry in folder.iterdir()
            if entry.name.endswith(".txt")}  # fmt: skip


def licence_text(licence: Licence, shipped: str = "") -> str:
    """What ``LICENSES/<id>.txt`` holds: a licence that asks for its notice in every copy, its full text (as the
    source ships it, else the annotator's copy); a Creative Commons licence, its summary and the legal code's URL;
    any other, its name and URL."""
    if licence.notice:
        text = shipped.strip() or known_texts().get(licence.id, "").strip()
        if text:
            return text + "\n"
    if licence.id.startswith("cc0"):
        return (
            f"{licence.name} ({licence.id})\n\nLegal code: {licence.url}legalcode\n\n"
            "The person who associated a work with this deed has dedicated it to the public domain by waiving all of "
            "their rights to the work worldwide under copyright law, including all related and neighbouring rights, "
            "to the extent allowed by law. You can copy, modify, distribute and perform the work, even for commercial "
            "purposes, all without asking permission.\n\nThis summary is not the licence: the legal code is.\n"
        )
    if licence.id.startswith("cc-"):
        terms = ["- Attribution: give appropriate credit, provide a link to the licence, and indicate if changes "
                 "were made."]  # fmt: skip
        if not licence.commercial:
            terms.append("- NonCommercial: you may not use the material for commercial purposes.")
        if licence.share_alike:
            terms.append(
                "- ShareAlike: if you remix, transform or build upon the material, you must distribute your "
                "contributions under the same licence as the original."
            )
        terms.append(
            "- No additional restrictions: you may not apply legal terms or technological measures that "
            "legally restrict others from doing anything the licence permits."
        )
        purpose = "for any purpose, even commercially" if licence.commercial else "for non-commercial purposes"
        return (
            f"{licence.name} ({licence.id})\n\nLegal code: {licence.url}legalcode\nDeed: {licence.url}\n\n"
            f"You are free to share (copy and redistribute the material in any medium or format) and adapt (remix, "
            f"transform and build upon the material) {purpose}, under the following terms:\n\n"
            + "\n".join(terms)
            + "\n\nThis summary is not the licence: the legal code at the link above is.\n"
        )
    return f"{licence.name} ({licence.id})\n\nFull text: {licence.url}\n"


class FoundLicence(NamedTuple):
    """What the files beside a data file say about it: its licence, how it is stated, the licence text shipped
    (kept when the licence asks for its notice, or when it is not one publish knows), a citation, a title, a URL."""

    licence: Licence
    stated: str
    notice: str = ""
    citation: str = ""
    title: str = ""
    url: str = ""


def _read(folder: Path, names: Sequence[str], stem: str) -> tuple[str, str]:
    for pattern in names:
        path = folder / pattern.format(stem=stem)
        if path.is_file():
            with open(path, encoding="utf-8", errors="replace") as handle:
                return path.name, handle.read(TEXT_LIMIT)
    return "", ""


_CITE = re.compile(r"^\W*(?:cite|citation|please cite)\W*?[:：]\s*(?P<text>.*)$", re.I)
_LOCAL_REFERENCE = re.compile(r"\s*\(\s*`[^`]*`\s*\)")
_FIRST_URL = re.compile(r"https?://[^\s)>\]`'\"]+")


def _citation(readme: str) -> str:
    """The paragraph a README begins with "Cite:" (Markdown marks and references to local files left out)."""
    lines = readme.splitlines()
    for index, line in enumerate(lines):
        match = _CITE.match(line.replace("*", ""))
        if match:
            paragraph = [match.group("text")]
            for more in lines[index + 1 :]:
                if not more.strip():
                    break
                paragraph.append(more)
            text = _LOCAL_REFERENCE.sub("", " ".join(" ".join(paragraph).split()))
            return text.replace("*", "").strip()
    return ""


def licence_beside(path: Path) -> FoundLicence:
    """The licence of a data file as the files beside it state it: a LICENSE file (``<stem>.LICENSE`` or
    ``LICENSE``…) identified by ``identify_document``, a README's "Licence:" line (``identify_statement``). Two that
    disagree make it unknown; none, unknown ("not stated"). The README also gives the citation and title."""
    folder, stem = path.parent, path.name.split(".")[0]
    licence_name, licence_file = _read(folder, LICENCE_FILES, stem)
    readme_name, readme = _read(folder, README_FILES, stem)
    _bib_name, bib = _read(folder, CITATION_FILES, stem)
    from_file = identify_document(licence_file, known_texts()) if licence_file else None
    from_readme = identify_statement(readme) if readme else None
    stated_parts = []
    if from_file is not None:
        stated_parts.append(f"{licence_name}: {from_file.name}")
    if from_readme is not None:
        stated_parts.append(f"{readme_name}: {from_readme.name}")
    stated = "; ".join(stated_parts) or "not stated"
    if from_file is not None:  # the LICENSE file is the licence; a README naming another one makes it unknown
        agrees = from_readme is None or not from_readme.known or from_readme.id == from_file.id
        licence = from_file if from_file.known and agrees else unknown_licence(stated)
    elif from_readme is not None and from_readme.known:
        licence = from_readme
    else:
        licence = unknown_licence(stated)
    notice = licence_file if licence_file and (licence.notice or not licence.known) else ""
    title = next((line.lstrip("#").strip() for line in readme.splitlines() if line.startswith("# ")), "")
    urls = [url.rstrip(".,;") for url in _FIRST_URL.findall(readme)]
    url = next((u for u in urls if not identify(u).known), "")
    citation = _citation(readme) or " ".join(line for line in bib.splitlines() if not line.startswith("Citation for"))
    return FoundLicence(licence, stated, notice, citation.strip(), title, url)


class LexiconProvenance(NamedTuple):
    """The sources a lexicon's answers come from, as pre-population records them: the records, the key of the
    English side (Ω(λ), glosses), and each sense source's key (upper case; any other source: ``default``)."""

    records: tuple[SourceRecord, ...]
    english: str
    by_source: dict[str, str]
    default: str

    def key_of(self, sense_source: str) -> str:
        return self.by_source.get(sense_source.upper(), self.default)


def _record(key: str, source: SourceLicence) -> SourceRecord:
    licence = source.licence.id if source.licence.known else "unknown"
    return SourceRecord(key, "lexicon", source.source, source.provided, licence, source.stated, source.url,
                        source.citation, source.notice)  # fmt: skip


def wordnet_record(meta: LexiconMetadata, english: bool, found: FoundLicence | None = None) -> SourceRecord:
    """A wordnet lexicon as a source: its licence as its LMF ``license`` states it, else as the licence file beside
    its WN-LMF file states it (``found``: ``licence_beside``), else unknown."""
    from annotator.lexicon.wordnet import project_language

    stated = meta.license or ""
    licence = identify(stated)
    notice = ""
    if found is not None and (not licence.known or licence.id == found.licence.id):
        if not licence.known:
            licence, stated = found.licence, f"{stated or 'not stated'} (LMF); {found.stated}"
        notice = found.notice
    lang = project_language(meta.language)
    provided = "English synsets, glosses and sense order" if english else f"{lang} candidates"
    source = SourceLicence(f"{meta.label} ({meta.specifier()})", provided, licence, stated or "not stated", meta.url,
                           meta.citation or (found.citation if found else ""), notice)  # fmt: skip
    return _record(f"lexicon:wordnet:{meta.specifier()}", source)


_LEXICON_ID = re.compile(rb"<Lexicon\b[^>]*?\bid=[\"']([^\"']+)[\"']", re.S)


def lexicon_ids_in(path: Path, limit: int = 1 << 16) -> list[str]:
    """The ids of the lexicons a WN-LMF file opens with (its first ``limit`` bytes, decompressed)."""
    import gzip
    import lzma

    opener: Any = {".gz": gzip.open, ".xz": lzma.open}.get(path.suffix, open)
    try:
        with opener(path, "rb") as handle:
            head = handle.read(limit)
    except (OSError, EOFError, lzma.LZMAError):
        return []
    return [found.decode("utf-8", "replace") for found in _LEXICON_ID.findall(head)]


def wordnet_file_records(
    files: Sequence[Path], metas: Sequence[LexiconMetadata], english_id: str
) -> list[SourceRecord]:
    """The sources of the lexicons in these WN-LMF files, each with the licence its LMF states or, when that is not
    one publish knows, the licence file beside the WN-LMF file states (``licence_beside``)."""
    by_id = {meta.id: meta for meta in metas}
    records = []
    for path in files:
        found = licence_beside(path)
        for lex_id in lexicon_ids_in(path):
            meta = by_id.get(lex_id)
            if meta is not None:
                records.append(wordnet_record(meta, lex_id == english_id, found))
    return records


def _header_of(lexicon: object, snapshot: Path) -> dict[str, Any]:
    """The snapshot's header: the one ``lexicon`` kept when it was read from that very file (a JSON snapshot is one
    document, so reading its header again means parsing it whole), else read from the file."""
    from annotator.lexicon.snapshot import SnapshotLexicon

    if isinstance(lexicon, SnapshotLexicon) and lexicon.header and _same_file(lexicon.origin, snapshot):
        return lexicon.header
    return snapshot_header(snapshot)


def _same_file(origin: str, path: Path) -> bool:
    try:
        return Path(origin).resolve() == path.resolve()
    except (OSError, RuntimeError):  # an origin that names no file ("<memory>") or a symlink loop
        return False


def lexicon_provenance(lexicon: object, snapshot: Path | None = None, snapshot_name: str = "") -> LexiconProvenance:
    """The sources ``lexicon`` (the project's provider) answers from: each wordnet lexicon (licence from its LMF
    file as ``wn`` keeps it), BabelNet, or a snapshot (its header's licence)."""
    from annotator.lexicon.wordnet import WordnetLexicon
    from annotator.lexicon.wordnet_store import lexicon_metadata

    if isinstance(lexicon, WordnetLexicon):
        metas = {meta.id: meta for meta in lexicon_metadata(lexicon.folder)}
        records, by_source = [], {}
        for lex_id, spec in lexicon.specifiers.items():
            meta = metas.get(lex_id) or LexiconMetadata(lex_id, spec.split(":", 1)[-1], "", lex_id, "", "", "")
            record = wordnet_record(meta, lex_id == lexicon.english_id)
            records.append(record)
            by_source[lex_id.upper()] = record.key
        english = by_source[lexicon.english_id.upper()]
        by_source["WN"] = english
        return LexiconProvenance(tuple(records), english, by_source, english)
    name = str(getattr(lexicon, "name", "lexicon"))
    version = str(getattr(lexicon, "version", ""))
    if name == "babelnet":
        record = _record(f"lexicon:babelnet:{version}", babelnet_source(version))
    elif name == "snapshot" and snapshot is not None:
        header = _header_of(lexicon, snapshot)
        # two snapshots of one file name and version stating different licences are two sources
        stated = json.dumps([header.get("provider"), header.get("license") or header.get("licence")], default=str)
        digest = hashlib.sha256(stated.encode()).hexdigest()[:12]
        record = _record(f"lexicon:snapshot:{snapshot_name}:{header.get('version', version)}:{digest}",
                         snapshot_source(header, snapshot_name))  # fmt: skip
    else:
        record = SourceRecord(f"lexicon:{name}:{version}", "lexicon", f"{name} {version}".strip(),
                              "synsets, glosses and candidates", "unknown", "not stated")  # fmt: skip
    return LexiconProvenance((record,), record.key, {}, record.key)
