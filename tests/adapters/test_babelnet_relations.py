"""Related-sense suggestions on BabelNet and snapshot projects (both engines): the client asks the local fake
BabelNet server for σ's outgoing edges (``getOutgoingEdges``), follows the kinds the wordnet path follows (a
meronym or Wikipedia's "semantically related" edge is not), keeps the answer in its cache, and a snapshot frozen
from that cache (format version 2) holds the edges, so a snapshot project gets the same suggestions with no server;
a version 1 snapshot is still read."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from fake_babelnet import DEFAULT_KEY, FakeBabelNet
from prepopulate_data import ROWS, SNAPSHOT

from annotator.lexicon.babelnet import BabelNetLexicon
from annotator.lexicon.http_cache import HttpCache
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.lexicon.snapshot_export import export_cache_as_snapshot
from annotator.lexicon.snapshot_format import FORMAT_VERSION
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate
from annotator.services.suggestions.card import CardSuggestions, card_view

pytestmark = pytest.mark.both_engines

DRINK, BEVERAGE, WHISKY, SIP = "bn:00000003n", "bn:00000010n", "bn:00000012n", "bn:00000013v"


def sense(lemma: str, lang: str, source: str, number: int | None = None) -> dict:
    found = {"lemma": lemma, "lang": lang, "source": source}
    return found | ({"wordnet_sense_number": number} if number else {})


def served_data() -> dict:
    """The shared snapshot data, with σ = "a small drink of liquor" related to a hypernym and a derivation (words
    in Italian), and to a part (a meronym: not followed)."""
    data = copy.deepcopy(SNAPSHOT)
    data["synsets"] += [
        {"id": BEVERAGE, "pos": "NOUN", "glosses": {"EN": "a single serving of a beverage"},
         "senses": [sense("drink", "EN", "WN", 1), sense("bevanda", "IT", "OMWN_IT")]},
        {"id": WHISKY, "pos": "NOUN", "glosses": {"EN": "liquor made from grain"},
         "senses": [sense("whiskey", "EN", "WN", 1), sense("whisky", "IT", "OMWN_IT")]},
        {"id": SIP, "pos": "VERB", "glosses": {"EN": "drink in small sips"},
         "senses": [sense("sip", "EN", "WN", 1), sense("sorseggiare", "IT", "OMWN_IT")]},
    ]  # fmt: skip
    drink = next(record for record in data["synsets"] if record["id"] == DRINK)
    drink["edges"] = [["meronym", WHISKY], ["derivation", SIP], ["hypernym", BEVERAGE]]
    return data


def related(view: CardSuggestions) -> dict[str, tuple[str, str]]:
    return {s.text: (s.relation, s.synset) for s in view.suggestions if s.source == "related"}


def test_babelnet_edges_give_related_suggestions_and_survive_a_snapshot_round_trip(
    project: Project, write_jsonl, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BABELNET_API_KEY", DEFAULT_KEY)
    import_items(project, write_jsonl("items.jsonl", ROWS))
    with FakeBabelNet(served_data()) as server:
        project.save_settings(ProjectSettings(name="b", lexicon=LexiconSettings("babelnet", base_url=server.base_url)))
        prepopulate(project)  # computes each item-language's related part, asking for σ's edges
        asked = [request.value("id") for request in server.requests if request.endpoint == "getOutgoingEdges"]
        assert DRINK in asked and all(request.key_ok for request in server.requests)
        found = related(card_view(project, "drink", "IT"))
        # no meronym; the derivation (a verb for a noun) in the cross-PoS form
        assert found == {"bevanda": ("hypernym", BEVERAGE), "[sorseggiare]_VERB": ("derivation", SIP)}
        order = [s.text for s in card_view(project, "drink", "IT").suggestions if s.source == "related"]
        assert order == ["bevanda", "[sorseggiare]_VERB"]  # ranked as on the wordnet path: hypernym first
        before = server.count("getOutgoingEdges")
        client = BabelNetLexicon(DEFAULT_KEY, HttpCache(tmp_path / "copy-check.sqlite"), server.base_url)
        assert client.related(DRINK) == [("hypernym", BEVERAGE), ("derivation", SIP)]
        client.close()
        cache = HttpCache(project.babelnet_cache_path)
        kept = BabelNetLexicon(DEFAULT_KEY, cache, server.base_url)
        assert kept.related(DRINK) == [("hypernym", BEVERAGE), ("derivation", SIP)]
        assert server.count("getOutgoingEdges") == before + 1  # the project's cache answered; only the new one asked
        frozen = export_cache_as_snapshot(cache, tmp_path / "frozen.jsonl", "frozen")
        kept.close()
    header = json.loads((tmp_path / "frozen.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["format_version"] == FORMAT_VERSION == 2
    snapshot = SnapshotLexicon.load(frozen.path)
    assert snapshot.related(DRINK) == [("hypernym", BEVERAGE), ("derivation", SIP)]
    assert SnapshotLexicon.from_data(snapshot.to_data()).related(DRINK) == snapshot.related(DRINK)  # JSON form too
    # the server is gone: a snapshot project built on the frozen file gets the same related suggestions
    project.save_settings(ProjectSettings(name="s", lexicon=LexiconSettings("snapshot", snapshot=str(frozen.path))))
    assert related(card_view(project, "drink", "IT")) == found


def test_a_version_1_snapshot_is_still_read_and_has_no_edges() -> None:
    old = SnapshotLexicon.from_data(SNAPSHOT, origin="v1")
    assert SNAPSHOT["format_version"] == 1 and old.related(DRINK) == []
    assert old.synset(DRINK, ["IT"]).senses  # everything else as before
    with pytest.raises(Exception, match="unknown relation 'meronym'"):
        SnapshotLexicon.from_data({**served_data(), "format_version": 2}, origin="bad")
