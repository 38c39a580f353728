"""Choosing the lexicon provider and managing the project's open wordnets: lead-only, every change audited.

The provider decides where every later pre-population's candidates come from, so switching it is a project
decision like the languages: one transaction stores the setting and its audit row. Adding or removing a wordnet
lexicon changes ``DATA/wordnet`` all or nothing (``lexicon.wordnet_store``); its audit row follows once the new
database is in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from annotator.context import ProjectContext
from annotator.domain.model import User
from annotator.domain.settings import LexiconSettings, ProjectSettings
from annotator.lexicon.base import ENGLISH, LexiconError
from annotator.lexicon.licences import wordnet_file_records
from annotator.lexicon.wordnet import (
    LexiconInfo,
    WordnetLexicon,
    add_lexicons,
    find_lexicon,
    installed_lexicons,
    project_language,
    remove_lexicon,
)
from annotator.lexicon.wordnet_store import lexicon_metadata
from annotator.progress import ProgressCallback, no_progress
from annotator.services import administration

SETTINGS_KEY = "settings"


def _switch(
    project: ProjectContext,
    user: User | None,
    change: Callable[[LexiconSettings], LexiconSettings],
    detail: dict[str, Any],
    action: str = "lexicon",
) -> None:
    """Read, change and store the lexicon setting with its audit row in one write transaction."""
    with project.db.write() as conn:
        data = project.repo.get_meta(conn, SETTINGS_KEY)
        settings = ProjectSettings.from_json(data) if data else ProjectSettings()
        project.repo.set_meta(conn, SETTINGS_KEY, replace(settings, lexicon=change(settings.lexicon)).to_json())
        administration.record(project, conn, user, action, detail)


def use_snapshot(project: ProjectContext, path: Path, user: User | None = None) -> str:
    """Pre-populate from an offline snapshot file (read and checked first); returns its label."""
    from annotator.lexicon.snapshot import SnapshotLexicon

    administration.check_admin(user, "choose the lexicon")
    lexicon = SnapshotLexicon.load(path, administration.project_limits(project))  # refused before anything changes
    _switch(
        project,
        user,
        lambda current: replace(current, provider="snapshot", snapshot=str(path)),
        {"provider": "snapshot", "snapshot": str(path)},
    )
    return str(lexicon.label)


def use_babelnet(project: ProjectContext, url: str, user: User | None = None) -> None:
    """Pre-populate from the BabelNet HTTP API at ``url``."""
    administration.check_admin(user, "choose the lexicon")
    _switch(
        project,
        user,
        lambda current: replace(current, provider="babelnet", base_url=url),
        {"provider": "babelnet", "base_url": url},
    )


@dataclass
class WordnetUse:
    """What ``use_wordnet`` did: the lexicons named, and the provider it switched to (or why not)."""

    lexicons: list[LexiconInfo] = field(default_factory=list)
    lexicon: WordnetLexicon | None = None
    not_switched: str = ""


def use_wordnet(
    project: ProjectContext,
    sources: Sequence[str],
    user: User | None = None,
    progress: ProgressCallback = no_progress,
) -> WordnetUse:
    """Add WN-LMF files or ``wn`` package ids (all or nothing), then make the wordnet the provider once it has its
    English WordNet 3.0 lexicon. A refusal (file, line, rule) changes nothing and records nothing."""
    administration.check_admin(user, "add wordnet lexicons")
    folder = project.wordnet_folder
    infos = add_lexicons(folder, sources, progress, administration.project_limits(project))
    result = WordnetUse(infos)
    added = [info.specifier for info in infos if info.added]
    try:
        result.lexicon = WordnetLexicon(folder)
    except LexiconError as error:
        result.not_switched = str(error)
    detail: dict[str, Any] = {"added": added, "sources": [str(source) for source in sources]}
    if result.lexicon is not None:
        _record_licences(project, result.lexicon, sources)
        detail["provider"] = "wordnet"
        detail["version"] = result.lexicon.version
        _switch(project, user, lambda current: replace(current, provider="wordnet"), detail, "wordnet_add")
    elif added:
        with project.db.write() as conn:
            administration.record(project, conn, user, "wordnet_add", detail)
    return result


def _record_licences(project: ProjectContext, lexicon: WordnetLexicon, sources: Sequence[str]) -> None:
    """Record each added file's lexicons as sources with their licence (the LMF's, else the licence file beside
    the WN-LMF file): what a later pre-population's candidates owe them, whatever happens to the wordnet since."""
    files = [Path(source) for source in sources if Path(source).is_file()]
    records = wordnet_file_records(files, lexicon_metadata(lexicon.folder), lexicon.english_id)
    if records:
        with project.db.write() as conn:
            project.repo.put_sources(conn, records, replace=True)


def remove_wordnet(project: ProjectContext, name: str, user: User | None = None) -> LexiconInfo:
    """Remove one lexicon (``id`` or ``id:version``) the project no longer wants, all or nothing, audited.

    The English lexicon stays while the wordnet is the provider: pre-population cannot work without it (a second
    one, which older versions accepted and which stops pre-population, may go).
    """
    administration.check_admin(user, "remove wordnet lexicons")
    folder = project.wordnet_folder
    info = find_lexicon(folder, name)
    english = [lex for lex in installed_lexicons(folder) if project_language(lex.language) == ENGLISH]
    last_english = project_language(info.language) == ENGLISH and len(english) == 1
    if last_english and project.settings().lexicon.provider == "wordnet":
        raise LexiconError(
            f"{info.specifier} is the project's English lexicon and the project pre-populates from the wordnet, which "
            "needs it; nothing was removed. To replace it, choose another lexicon first ('annotator lexicon "
            "use-babelnet' or 'use-snapshot'), remove it, then add the new English WordNet 3.0 with 'annotator "
            "lexicon use-wordnet'."
        )
    removed = remove_lexicon(folder, info.specifier)
    with project.db.write() as conn:
        administration.record(project, conn, user, "wordnet_remove", {"lexicon": removed.specifier})
    return removed


__all__ = ["WordnetUse", "remove_wordnet", "use_babelnet", "use_snapshot", "use_wordnet"]
