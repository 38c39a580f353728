"""Which licence each lexicon source of a project has, as its provider states it (issue 35).

BabelNet's data is under the BabelNet Non-Commercial License; each wordnet lexicon says its licence in its WN-LMF
``license`` attribute (kept by ``wn``, read from the current database file); a snapshot says it in its header's
``license`` key when it has one (a snapshot frozen from the BabelNet cache names BabelNet as its provider, so it
carries BabelNet's licence). The rules over these licences are data in ``annotator.domain.licences``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from annotator.domain.licences import SourceLicence, identify, licence_by_id
from annotator.domain.settings import ProjectSettings
from annotator.lexicon.base import ENGLISH
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
    return {key: value for key, value in header.items() if key not in ("lemmas", "synsets")}


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
