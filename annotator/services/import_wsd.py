"""Importing WSD-framework XML (``FILE.data.xml`` + ``FILE.gold.key.txt``) as items, all or nothing.

Sense keys become synsets through the project's English wordnet, so the project's lexicon must be the wordnet
provider; the items then go through the ordinary import (staged, committed at once, re-import a no-op).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from annotator.context import ProjectContext
from annotator.data_import.wsd_xml import WsdParse, parse_wsd_xml
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.lexicon.wordnet import WordnetLexicon
from annotator.progress import ProgressCallback, no_progress
from annotator.services import administration
from annotator.services.importing import ImportReport, import_items

#: Multi-key instances named one by one in a summary; the rest are counted.
SHOWN_SKIPPED = 20


@dataclass
class WsdImportReport:
    report: ImportReport
    instances: int = 0
    multi_key: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def summary(self, list_skipped: bool = True) -> str:
        """One line; ``list_skipped`` False when the caller listed the skipped instances itself (the command line)."""
        text = f"{self.instances} instances: {self.report.summary()}"
        if self.multi_key and not list_skipped:
            text += (
                f"; {len(self.multi_key)} instance(s) with several gold keys skipped (listed above; "
                "--first-key keeps the first)"
            )
        elif self.multi_key:
            shown = ", ".join(ident for ident, _keys in self.multi_key[:SHOWN_SKIPPED])
            more = f" and {len(self.multi_key) - SHOWN_SKIPPED} more" if len(self.multi_key) > SHOWN_SKIPPED else ""
            text += (
                f"; {len(self.multi_key)} instance(s) with several gold keys skipped (a DiBiMT item has one synset; "
                f"--first-key keeps the first): {shown}{more}"
            )
        return text


def gold_file_for(xml_path: Path) -> Path:
    """The framework's naming: ``X.data.xml`` goes with ``X.gold.key.txt``."""
    name = xml_path.name
    stem = name[: -len(".data.xml")] if name.endswith(".data.xml") else xml_path.stem
    return xml_path.with_name(f"{stem}.gold.key.txt")


def wordnet_of(project: ProjectContext) -> WordnetLexicon:
    settings = project.settings()
    lexicon = project.lexicon(settings) if settings.lexicon.provider == "wordnet" else None
    if not isinstance(lexicon, WordnetLexicon):
        raise UserError(
            "Importing WSD-framework XML maps WordNet sense keys to synsets through the project's English wordnet: "
            "run 'annotator lexicon use-wordnet SOURCE…' first; nothing imported."
        )
    return lexicon


def check_wsd_xml(
    project: ProjectContext, xml_path: Path | str, gold_path: Path | str, first_key: bool = False
) -> WsdParse:
    """Validate an upload before its import job starts (the page lists every bad instance at once)."""
    with project.db.read() as conn:
        known_ids = list(project.repo.item_hashes(conn))
    lexicon = wordnet_of(project)
    return parse_wsd_xml(
        xml_path, gold_path, lexicon.synset_for_sense_key, administration.project_limits(project), known_ids, first_key
    )


def import_wsd_xml(
    project: ProjectContext,
    xml_path: Path | str,
    gold_path: Path | str | None = None,
    first_key: bool = False,
    force: bool = False,
    progress: ProgressCallback = no_progress,
    user: User | None = None,
    name: str | None = None,
    corpus_licence: str | None = None,
) -> WsdImportReport:
    """Import every single-key instance (or the first key of each with ``first_key``); refuse the whole file on
    any bad instance. ``name`` is the file name to report (an upload's, when ``xml_path`` is a scratch copy)."""
    administration.check_admin(user, "import items")
    xml_path = Path(xml_path)
    gold = Path(gold_path) if gold_path else gold_file_for(xml_path)
    if not gold.is_file():
        raise UserError(
            f"{name or xml_path.name}: no gold key file {gold.name} (give it with --gold); nothing imported."
        )
    lexicon = wordnet_of(project)
    limits = administration.project_limits(project)
    result: list[WsdParse] = []

    def parse(known_ids: Sequence[str]):  # type: ignore[no-untyped-def]
        parsed = parse_wsd_xml(xml_path, gold, lexicon.synset_for_sense_key, limits, known_ids, first_key, progress)
        result.append(parsed)
        return parsed.parsed

    report = import_items(
        project, xml_path, force=force, progress=progress, user=user, parse=parse, corpus_licence=corpus_licence
    )
    return WsdImportReport(report, result[0].instances, result[0].multi_key)
