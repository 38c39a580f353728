"""The snapshot provider: loading and validating files, and freezing the BabelNet cache into one."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_babelnet import FakeBabelNet, sample_snapshot_data

from annotator.lexicon.babelnet import BabelNetLexicon
from annotator.lexicon.base import Lexicon, LexiconError
from annotator.lexicon.http_cache import HttpCache
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.lexicon.snapshot_export import export_cache_as_snapshot
from annotator.lexicon.snapshot_format import LemmaEntry, write_snapshot

FIVE_LANGUAGES = ["DE", "ES", "IT", "RU", "ZH"]


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def write_jsonl(path: Path, data: dict[str, Any]) -> Path:
    header = {"type": "header", **{k: v for k, v in data.items() if k not in ("lemmas", "synsets")}}
    lines = (
        [header] + [{"type": "lemma", **r} for r in data["lemmas"]] + [{"type": "synset", **r} for r in data["synsets"]]
    )
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "sample.json", sample_snapshot_data())


# --- answering --------------------------------------------------------------------------------------------


def test_a_json_snapshot_answers_like_a_lexicon(sample_file: Path) -> None:
    lexicon = SnapshotLexicon.load(sample_file)
    assert isinstance(lexicon, Lexicon)
    assert (lexicon.name, lexicon.version) == ("snapshot", "test-1")
    assert lexicon.label.startswith("Hand-built test data")

    ids = lexicon.synset_ids("Shot", "noun")
    assert ids == ["bn:00057755n", "bn:00070983n", "bn:00070966n", "bn:00070986n", "bn:00070978n"]
    drink = lexicon.synset("bn:00057755n", ["IT"])
    assert drink.wordnet_sense_number("shot") == 3
    assert {sense.lang for sense in drink.senses} == {"EN", "IT"}
    assert drink.glosses == {"EN": "A small drink of liquor."}  # the German gloss was not asked for
    assert lexicon.synset_ids("shot", "VERB") == []
    assert lexicon.synset_ids("unknown", "NOUN") == []


def test_synset_ids_in_other_languages_come_from_a_reverse_index(sample_file: Path) -> None:
    lexicon = SnapshotLexicon.load(sample_file)
    assert lexicon.synset_ids_in("COLPO_di  pistola", "it", "NOUN") == ["bn:00070966n"]
    assert lexicon.synset_ids_in("tiro", "IT", "NOUN") == ["bn:00070966n"]
    assert lexicon.synset_ids_in("tiro", "ES", "NOUN") == ["bn:00070966n"]
    assert lexicon.synset_ids_in("schnaps", "DE", "NOUN") == ["bn:00057755n"]
    assert lexicon.synset_ids_in("Schnaps", "DE", "VERB") == []
    assert lexicon.synset_ids_in("shot", "EN", "NOUN") == lexicon.synset_ids("shot", "NOUN")


def test_an_unknown_synset_is_an_error_naming_the_snapshot(sample_file: Path) -> None:
    with pytest.raises(LexiconError, match=r"bn:00000000n is not in the lexicon snapshot .*sample\.json"):
        SnapshotLexicon.load(sample_file).synset("bn:00000000n", ["IT"])


@pytest.mark.parametrize("name", ["written.jsonl", "written.json", "written.snapshot"])
def test_write_snapshot_round_trips_in_both_forms(tmp_path: Path, sample_file: Path, name: str) -> None:
    original = SnapshotLexicon.load(sample_file)
    fmt = "jsonl" if name.endswith(".snapshot") else None
    path = write_snapshot(
        tmp_path / name,
        label=original.label,
        version=original.version,
        provider=original.provider,
        lemmas=original.lemma_entries(),
        synsets=original.synset_records(),
        fmt=fmt,
    )
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert ('"type": "header"' in first_line) == (name != "written.json")
    reloaded = SnapshotLexicon.load(path)  # the form is detected from the extension or the content
    assert reloaded.to_data() == original.to_data()
    assert SnapshotLexicon.from_data(sample_snapshot_data()).to_data() == original.to_data()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_snapshot_built_in_memory_checks_its_references() -> None:
    with pytest.raises(LexiconError, match="unknown synset bn:1n"):
        SnapshotLexicon(label="x", version="1", lemmas=[LemmaEntry("a", "EN", "NOUN", ("bn:1n",))], synsets=[])


# --- validation -------------------------------------------------------------------------------------------


def test_bad_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "annotator-lexicon-snapshot",\n  "lemmas": [,]\n}\n', encoding="utf-8")
    with pytest.raises(LexiconError, match=r"broken\.json: line 3, column \d+: not valid JSON"):
        SnapshotLexicon.load(path)


def test_bad_jsonl_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "broken.jsonl", sample_snapshot_data())
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3][:-1]  # line 4 loses its closing brace
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=r"broken\.jsonl: line 4: not valid JSON"):
        SnapshotLexicon.load(path)


def test_a_missing_field_names_the_record(tmp_path: Path) -> None:
    data = sample_snapshot_data()
    del data["synsets"][1]["senses"][0]["source"]
    with pytest.raises(
        LexiconError, match=r"m\.json: synsets\[1\] \(synset bn:00070978n\), senses\[0\]: missing field 'source'"
    ):
        SnapshotLexicon.load(write_json(tmp_path / "m.json", data))
    with pytest.raises(
        LexiconError, match=r"m\.jsonl: line 4 \(synset bn:00070978n\), senses\[0\]: missing field 'source'"
    ):
        SnapshotLexicon.load(write_jsonl(tmp_path / "m.jsonl", data))


def test_an_unknown_synset_in_a_lemma_entry_is_refused(tmp_path: Path) -> None:
    data = sample_snapshot_data()
    data["lemmas"].append({"lemma": "nip", "lang": "EN", "pos": "NOUN", "synsets": ["bn:00057755n", "bn:12345678n"]})
    with pytest.raises(
        LexiconError, match=r"u\.json: lemmas\[1\]: lemma entry 'nip' refers to unknown synset bn:12345678n"
    ):
        SnapshotLexicon.load(write_json(tmp_path / "u.json", data))
    with pytest.raises(
        LexiconError, match=r"u\.jsonl: line 3: lemma entry 'nip' refers to unknown synset bn:12345678n"
    ):
        SnapshotLexicon.load(write_jsonl(tmp_path / "u.jsonl", data))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"format": "something-else"}, r"top level: format is 'something-else', expected 'annotator-lexicon-snapshot'"),
        ({"format_version": 3}, r"top level: format_version 3 is newer than this annotator reads \(2\)"),
        ({"version": ""}, r"top level: field 'version' must be a non-empty string"),
        ({"label": None}, r"top level: field 'label' must be a non-empty string"),
    ],
)
def test_header_problems_are_named(tmp_path: Path, change: dict[str, Any], expected: str) -> None:
    data = {**sample_snapshot_data(), **change}
    with pytest.raises(LexiconError, match=r"h\.json: " + expected):
        SnapshotLexicon.load(write_json(tmp_path / "h.json", data))


def test_jsonl_structure_problems_are_named(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "lemma", "lemma": "shot"}\n', encoding="utf-8")
    with pytest.raises(LexiconError, match=r"s\.jsonl: line 1: the first line must be the header"):
        SnapshotLexicon.load(path)

    good = write_jsonl(tmp_path / "t.jsonl", sample_snapshot_data())
    good.write_text(good.read_text(encoding="utf-8") + '{"type": "gloss"}\n', encoding="utf-8")
    with pytest.raises(LexiconError, match=r"t\.jsonl: line 8: unknown record type 'gloss'"):
        SnapshotLexicon.load(good)

    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=r"empty\.jsonl: line 1: empty file"):
        SnapshotLexicon.load(empty)


def test_duplicates_and_missing_files_are_refused(tmp_path: Path) -> None:
    data = sample_snapshot_data()
    data["synsets"].append(data["synsets"][0])
    with pytest.raises(
        LexiconError, match=r"d\.json: synsets\[5\]: synset bn:00070966n already defined at synsets\[0\]"
    ):
        SnapshotLexicon.load(write_json(tmp_path / "d.json", data))
    with pytest.raises(LexiconError, match=r"nowhere\.json does not exist"):
        SnapshotLexicon.load(tmp_path / "nowhere.json")


def test_a_bad_sense_number_is_refused(tmp_path: Path) -> None:
    data = sample_snapshot_data()
    data["synsets"][0]["senses"][0]["wordnet_sense_number"] = "first"
    with pytest.raises(
        LexiconError, match=r"synsets\[0\] \(synset bn:00070966n\), senses\[0\]: 'wordnet_sense_number'"
    ):
        SnapshotLexicon.load(write_json(tmp_path / "n.json", data))


# --- BabelNet cache → snapshot ------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeBabelNet]:
    with FakeBabelNet(sample_snapshot_data()) as fake:
        yield fake


def make_client(server: FakeBabelNet, cache_path: Path) -> BabelNetLexicon:
    return BabelNetLexicon(api_key=server.api_key, cache=HttpCache(cache_path), base_url=server.base_url)


def test_the_exported_cache_answers_like_the_client_did(server: FakeBabelNet, tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    client = make_client(server, cache_path)
    ids = client.synset_ids("shot", "NOUN")
    seen = {synset_id: client.synset(synset_id, FIVE_LANGUAGES) for synset_id in ids}
    only_italian = client.synset("bn:00070966n", ["IT"])  # a second chunking of the same synset
    italian_ids = client.synset_ids_in("sparo", "IT", "NOUN")

    export = export_cache_as_snapshot(client.cache, tmp_path / "frozen.jsonl", "Frozen for the round-trip test")
    requests_before = server.count()
    frozen = SnapshotLexicon.load(export.path)

    assert (export.lemma_count, export.synset_count, export.skipped_lemmas) == (2, 5, ())
    assert frozen.label == "Frozen for the round-trip test"
    assert frozen.version.startswith("babelnet-v9-cache-")
    assert frozen.synset_ids("shot", "NOUN") == ids
    assert {synset_id: frozen.synset(synset_id, FIVE_LANGUAGES) for synset_id in ids} == seen
    assert frozen.synset("bn:00070966n", ["IT"]) == only_italian
    assert frozen.synset_ids_in("sparo", "IT", "NOUN") == italian_ids == ["bn:00070966n"]
    assert server.count() == requests_before  # the snapshot answers offline
    raw = export.path.read_text(encoding="utf-8")
    assert server.api_key not in raw
    assert "colpo di pistola" in raw and "colpo_di_pistola" not in raw


def test_export_refuses_a_cache_from_a_stopped_run_unless_told(server: FakeBabelNet, tmp_path: Path) -> None:
    client = make_client(server, tmp_path / "cache.sqlite")
    ids = client.synset_ids("shot", "NOUN")
    client.synset(ids[0], ["IT"])  # the run stopped after the first synset

    with pytest.raises(LexiconError, match=r"lacks synsets for 1 lemma\(s\): shot \(EN, NOUN\)"):
        export_cache_as_snapshot(client.cache, tmp_path / "partial.json", "partial")
    assert not (tmp_path / "partial.json").exists()

    export = export_cache_as_snapshot(client.cache, tmp_path / "partial.json", "partial", allow_incomplete=True)
    assert export.skipped_lemmas == ("shot (EN, NOUN)",)
    frozen = SnapshotLexicon.load(export.path)
    assert frozen.synset_ids("shot", "NOUN") == []
    assert frozen.synset(ids[0], ["IT"]) == client.synset(ids[0], ["IT"])


def _many_synsets(count: int, senses: int) -> dict[str, Any]:
    synsets = [
        {
            "id": f"bn:{n:08d}n",
            "pos": "NOUN",
            "glosses": {"EN": f"gloss {n}"},
            "senses": [{"lemma": f"word{n}-{k}", "lang": "IT", "source": "WIKT"} for k in range(senses)],
        }
        for n in range(count)
    ]
    lemmas = [{"lemma": "word", "lang": "EN", "pos": "NOUN", "synsets": [s["id"] for s in synsets]}]
    header = {"format": "annotator-lexicon-snapshot", "format_version": 1, "label": "t", "version": "1"}
    return {**header, "lemmas": lemmas, "synsets": synsets}


def test_a_loaded_snapshot_keeps_its_synsets_out_of_the_collectors_reach() -> None:
    """Its synsets and senses are kept as tuples of strings (``StoredSynset``): 1,800 senses add no tracked object,
    where ``LexSense`` objects made every full pass of a pre-population walk them all; answers are built on request."""
    data = _many_synsets(300, 6)
    gc.collect()
    before = len(gc.get_objects())
    lexicon = SnapshotLexicon.from_data(data)
    gc.collect()
    gc.collect()
    assert len(gc.get_objects()) - before < 300  # the 300 synsets and 1,800 senses are not among them
    record = lexicon.synset("bn:00000007n", ["IT"])
    assert [(s.lemma, s.lang, s.source) for s in record.senses] == [(f"word7-{k}", "IT", "WIKT") for k in range(6)]
    assert record.gloss() == "gloss 7"
    assert lexicon.synset_ids_in("word7-3", "IT", "NOUN") == ["bn:00000007n"]
    assert lexicon.synset("bn:00000007n", ["DE"]).senses == ()


# --- lemmas as their lexicon means them, and the header kept --------------------------------------------------


def test_a_marked_lemma_is_read_as_its_lexicon_means_it_and_an_unmarked_one_as_written() -> None:
    """Every rule of the sense's source that changes the lemma applies (a chain of them too); a lemma no rule
    changes, or a marker of another lexicon's, stays as written."""
    senses = [
        ("Aorta-", "DE", "WIKT"),
        ("включать в какую-л. категорию", "RU", "WIKT"),
        ("Schuss;", "DE", "WIKT"),
        ("平行+的", "ZH", "COW"),
        ("尘[粉]状+的", "ZH", "COW"),
        ("a-cielo-aperto", "IT", "OMW-IWN"),
        ("all'aperto", "IT", "OMW-IT"),
        ("C+", "IT", "OMW-IT"),
        ("Schuss", "DE", "WIKT"),
    ]
    header = {"format": "annotator-lexicon-snapshot", "format_version": 1, "label": "t", "version": "1"}
    data = {
        **header,
        "lemmas": [],
        "synsets": [
            {
                "id": "bn:00000001n",
                "pos": "NOUN",
                "glosses": {},
                "senses": [{"lemma": lemma, "lang": lang, "source": source} for lemma, lang, source in senses],
            }
        ],
    }
    record = SnapshotLexicon.from_data(data).synset("bn:00000001n", ["DE", "RU", "ZH", "IT"])
    assert [sense.lemma for sense in record.senses] == [
        "Aorta",
        "включать в * категорию",
        "Schuss",
        "平行",
        "尘状",
        "a cielo aperto",
        "a-cielo-aperto",
        "all'aperto",
        "C+",
        "Schuss",
    ]


@pytest.mark.parametrize("name", ["kept.json", "kept.jsonl"])
def test_a_loaded_snapshot_keeps_its_header_so_provenance_does_not_read_the_file_again(
    tmp_path: Path, name: str
) -> None:
    """A JSON snapshot is one document: its header cannot be read without parsing it whole, so the lexicon keeps
    the header it read and the provenance of the same file comes from it."""
    from annotator.lexicon.licences import lexicon_provenance

    data = {**sample_snapshot_data(), "provider": "BabelNet", "license": "CC BY-NC-SA 4.0"}
    path = (write_jsonl if name.endswith(".jsonl") else write_json)(tmp_path / name, data)
    lexicon = SnapshotLexicon.load(path)
    assert lexicon.header["license"] == "CC BY-NC-SA 4.0"
    assert "lemmas" not in lexicon.header and "synsets" not in lexicon.header
    from_file = lexicon_provenance(SnapshotLexicon.from_data(sample_snapshot_data()), path, name)
    path.write_text("not read again", encoding="utf-8")  # the provenance below can only come from the kept header
    kept = lexicon_provenance(lexicon, path, name)
    assert kept == from_file
    assert kept.records[0].licence == from_file.records[0].licence != "unknown"
