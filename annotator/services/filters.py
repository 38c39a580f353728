"""Run the selection filters (SPEC §4.4) over a project and record which items fail which rule.

Marking, not deleting: failures are stored on the item, and a lead excludes (or keeps) items explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.context import ProjectContext
from annotator.domain.model import Item, User
from annotator.domain.prepopulation import lexicalizations
from annotator.domain.selection_filters import (
    RULES,
    one_per_sense_failures,
    polysemy_failure,
    rule_of,
    target_language_failures,
)
from annotator.lexicon.base import ENGLISH, Lexicon
from annotator.lexicon.sources import allowed_sources
from annotator.lexicon.wordnet import default_sources
from annotator.progress import ProgressCallback, no_progress
from annotator.services import administration
from annotator.services.prepopulate import SenseInventory


@dataclass
class FilterReport:
    failures: dict[str, list[str]] = field(default_factory=dict)
    checked: int = 0

    def by_rule(self) -> dict[str, list[str]]:
        grouped: dict[str, list[str]] = {rule: [] for rule in RULES}
        for item_id, failures in self.failures.items():
            for rule in dict.fromkeys(rule_of(f) for f in failures):
                grouped[rule].append(item_id)
        return grouped


def run_filters(
    project: ProjectContext,
    lexicon: Lexicon | None = None,
    progress: ProgressCallback = no_progress,
    user: User | None = None,
) -> FilterReport:
    """``user`` is the lead acting in the app (checked and audited); None for the command line."""
    administration.check_admin(user, "run the selection filters")
    settings = project.settings()
    lexicon = lexicon or project.lexicon(settings)
    inventory = SenseInventory(lexicon, settings.languages)
    defaults = default_sources(lexicon)
    with project.db.read() as conn:
        items = project.repo.list_items(conn)
    report = FilterReport(checked=len(items))
    duplicates = one_per_sense_failures(items)
    english_cache: dict[str, set[str]] = {}
    other_cache: dict[tuple[str, str, str], list[str]] = {}

    def english_lemmas_of(synset: str) -> set[str]:
        if synset not in english_cache:
            english_cache[synset] = {
                s.lemma for s in inventory.record(synset).senses if s.lang == ENGLISH and s.source == "WN"
            }
        return english_cache[synset]

    for done, item in enumerate(items, start=1):
        senses = list(item.senses) or inventory.senses(item.target.lemma, item.target.pos)
        with_senses = Item(**{**item.__dict__, "senses": tuple(senses)})
        failures: list[str] = []
        if (failure := polysemy_failure(with_senses)) is not None:
            failures.append(failure)
        if item.id in duplicates:
            failures.append(duplicates[item.id])
        record = inventory.record(item.synset)
        by_lang = {
            lang: lexicalizations(record, lang, allowed_sources(lang, settings.allowed_sources, defaults).allows)
            for lang in settings.languages
        }

        def other_synsets_of(lemma: str, lang: str, pos: str = item.target.pos) -> list[str]:
            key = (lemma.casefold(), lang, pos)
            if key not in other_cache:
                other_cache[key] = lexicon.synset_ids_in(lemma, lang, pos)
            return other_cache[key]

        failures.extend(target_language_failures(with_senses, by_lang, other_synsets_of, english_lemmas_of))
        if failures:
            report.failures[item.id] = failures
        progress(done, len(items), item.id)

    with project.db.write() as conn:
        project.repo.set_filter_results(conn, {item.id: report.failures.get(item.id, []) for item in items})
        administration.record(
            project, conn, user, "filters", {"checked": report.checked, "failing": sorted(report.failures)}
        )
    return report
