"""Pre-population's related parts (``RelatedParts``) are exactly what the finder computes for each synset, language
and set of other senses, those it knows to be empty without computing them included: on a snapshot without
relations and on one with relations."""

from __future__ import annotations

import copy

import pytest
from prepopulate_data import SNAPSHOT

from annotator.domain.suggestions import encode_suggestions
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.suggestions import finder as finder_module
from annotator.services.suggestions.finder import Finder, RelatedParts

LANGUAGES = ("DE", "ES", "IT", "RU", "ZH")
SYNSETS = [record["id"] for record in SNAPSHOT["synsets"]]


def with_relations() -> dict:
    data = copy.deepcopy(SNAPSHOT)
    data["format_version"] = 2
    by_id = {record["id"]: record for record in data["synsets"]}
    by_id["bn:00000003n"]["edges"] = [["hypernym", "bn:00000002n"], ["derivation", "bn:00000005v"]]
    return data


def every_part(project: Project, lexicon: SnapshotLexicon) -> dict[tuple[str, str, tuple[str, ...]], tuple[str, str]]:
    """Each (σ, language, other senses) as ``RelatedParts`` answers it and as the finder computes it (encoded)."""
    parts, finder = RelatedParts(project, lexicon), Finder(project, lexicon)
    answers = {}
    for others in ((), ("bn:00000001n", "bn:00000002n")):
        for lang in (*LANGUAGES, "EN"):  # languages outer: the parts of one σ are not asked in a row
            for synset in SYNSETS:
                record = lexicon.synset(synset, LANGUAGES)
                answer = parts.part(synset, record, lang, others)
                assert answer is not None
                stamp, kept = answer
                assert stamp == finder.stamp(synset)
                computed = finder.compute_related(synset, lang, record, others)
                answers[(synset, lang, others)] = (kept, encode_suggestions(computed) if computed else "[]")
    return answers


def test_the_kept_parts_are_the_computed_ones_with_and_without_relations(project: Project) -> None:
    project.save_settings(
        ProjectSettings(name="s", lexicon=LexiconSettings("snapshot"), allowed_sources={"DE": ["WIKTLB"]})
    )
    plain = every_part(project, SnapshotLexicon.from_data(SNAPSHOT, origin="v1"))
    related = every_part(project, SnapshotLexicon.from_data(with_relations(), origin="v2"))
    for answers in (plain, related):
        assert all(kept == computed for kept, computed in answers.values())
    # what could go wrong is there: σ's own words from a lexicon not allowed for German (WIKT, but not the
    # machine-translated Italian one), and the words of its relations
    assert '"Schuss"' in plain[("bn:00000001n", "DE", ())][0]
    assert '"Schlückchen"' in plain[("bn:00000003n", "DE", ())][0]
    assert "sparo_mt" not in plain[("bn:00000001n", "IT", ())][0]
    assert plain[("bn:00000001n", "IT", ())][0] == plain[("bn:00000003n", "ES", ())][0] == "[]"
    assert '"iniezione"' in related[("bn:00000003n", "IT", ())][0]
    assert plain[("bn:00000003n", "IT", ())][0] == "[]"


def test_the_parts_are_the_same_when_the_kept_answers_are_dropped_at_every_step(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays bounded: past ``RELATED_KEPT`` answers (and stamps) the kept ones are dropped; the parts and
    their stamps are the same."""
    project.save_settings(
        ProjectSettings(name="s", lexicon=LexiconSettings("snapshot"), allowed_sources={"DE": ["WIKTLB"]})
    )
    lexicon = SnapshotLexicon.from_data(with_relations(), origin="v2")
    kept = every_part(project, lexicon)
    monkeypatch.setattr(finder_module, "RELATED_KEPT", 1)
    assert every_part(project, lexicon) == kept
    assert all(answer == computed for answer, computed in kept.values())
