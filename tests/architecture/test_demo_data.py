"""The bundled demo data (annotator/demo/) is consistent: plain JSON checks, no providers imported.

The demo is what translators see first, so these tests pin both its well-formedness (spans, ids, sources,
NFC) and the deliberate cases it is built to show: one item per selection filter, one pre-population
overlap, a same-synset pair for "% shared", machine-translated senses that must never be used.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "annotator" / "demo"
LANGS = ("DE", "ES", "IT", "RU", "ZH")
SYSTEMS = ("demo-mt-a", "demo-mt-b")
ALLOWED = {
    "EN": {"WN"},
    "DE": {"WIKT", "WIKTLB"},
    "RU": {"WIKT", "WIKTLB"},
    "IT": {"OMWN_IT", "IWN"},
    "ES": {"MCR_ES"},
    "ZH": {"OMWN_ZH"},
}
MACHINE_TRANSLATED = {"WNTR", "WIKITR"}
POS_LETTER = {"NOUN": "n", "VERB": "v"}
BN_ID = re.compile(r"^bn:\d{8}[nv]$")
FIGURE_1 = {
    "shot-whiskey": ("He poured a shot of whiskey.", "shot", "shot", "NOUN", "bn:00057755n"),
    "head-stream": ("They tracked him back toward the head of the stream.", "head", "head", "NOUN", "bn:00036083n"),
    "take-off-thanksgiving": (
        "If you take off for Thanksgiving you must work Christmas and vice versa.",
        "take off",
        "take off",
        "VERB",
        "bn:00094769v",
    ),
}
#: The deliberate selection-filter failures (see annotator/demo/README.md).
LOW_POLYSEMY_LEMMA = ("cricket", "NOUN")
ONE_PER_SENSE_PAIR = {"fire-late", "fire-coach"}
TARGET_LANGUAGE_FAILURE = {"plant-automobiles": {("ES", "planta")}}


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def snapshot() -> dict:
    return json.loads((DEMO / "snapshot.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def items() -> list[dict]:
    return _read_jsonl(DEMO / "items.jsonl")


@pytest.fixture(scope="module")
def translations() -> list[dict]:
    return _read_jsonl(DEMO / "translations.jsonl")


@pytest.fixture(scope="module")
def synsets(snapshot: dict) -> dict[str, dict]:
    return {record["id"]: record for record in snapshot["synsets"]}


@pytest.fixture(scope="module")
def omega(snapshot: dict) -> dict[tuple[str, str], list[str]]:
    return {(entry["lemma"], entry["pos"]): entry["synsets"] for entry in snapshot["lemmas"]}


def lexicalizations(record: dict, lang: str, sources: set[str] | None = None) -> list[str]:
    """Λ_L(σ) from the allowed sources (or ``sources``), first spelling kept, case-insensitive."""
    sources = ALLOWED[lang] if sources is None else sources
    seen: dict[str, str] = {}
    for sense in record["senses"]:
        if sense["lang"] == lang and sense["source"] in sources:
            seen.setdefault(sense["lemma"].casefold(), sense["lemma"])
    return list(seen.values())


def english_lemmas(record: dict) -> set[str]:
    return {s["lemma"].casefold() for s in record["senses"] if s["lang"] == "EN" and s["source"] == "WN"}


def wordnet_sense_number(record: dict, lemma: str) -> int:
    numbers = [
        s["wordnet_sense_number"]
        for s in record["senses"]
        if s["lang"] == "EN" and s["source"] == "WN" and s["lemma"].casefold() == lemma.casefold()
    ]
    assert len(numbers) == 1, (record["id"], lemma)
    return numbers[0]


def ranked(omega: dict, synsets: dict, lemma: str, pos: str) -> list[str]:
    return sorted(omega[(lemma, pos)], key=lambda sid: wordnet_sense_number(synsets[sid], lemma))


# --- files ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["snapshot.json", "items.jsonl", "translations.jsonl", "README.md"])
def test_files_are_utf8_unescaped_and_nfc(name: str) -> None:
    raw = (DEMO / name).read_bytes()
    text = raw.decode("utf-8")
    assert not text.startswith("\ufeff")
    assert text.endswith("\n")
    assert "\\u" not in text, "write JSON with ensure_ascii=False"
    assert unicodedata.normalize("NFC", text) == text


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def test_every_string_is_nfc_and_trimmed(snapshot: dict, items: list[dict], translations: list[dict]) -> None:
    for value in _strings([snapshot, items, translations]):
        assert unicodedata.is_normalized("NFC", value), value
        assert value == value.strip() and "  " not in value, repr(value)
        assert not any(unicodedata.category(ch) == "Cc" for ch in value), repr(value)


# --- snapshot ---------------------------------------------------------------------------------------


def test_snapshot_header_is_honestly_labelled(snapshot: dict) -> None:
    assert snapshot["format"] == "annotator-lexicon-snapshot"
    assert snapshot["format_version"] == 1
    assert snapshot["provider"] == "hand-built sample"
    assert snapshot["version"] == "demo-1"
    label = snapshot["label"].casefold()
    assert "hand-built" in label
    assert "not babelnet" in label


def test_synset_ids_are_unique_and_in_babelnet_form(snapshot: dict) -> None:
    ids = [record["id"] for record in snapshot["synsets"]]
    assert len(ids) == len(set(ids))
    for record in snapshot["synsets"]:
        assert BN_ID.match(record["id"]), record["id"]
        assert record["pos"] in POS_LETTER
        assert record["id"][-1] == POS_LETTER[record["pos"]], record["id"]
        assert record["glosses"]["EN"].endswith("."), record["id"]


def test_lemma_entries_cover_every_synset_and_match_the_english_senses(snapshot: dict, synsets: dict) -> None:
    entries = snapshot["lemmas"]
    assert 12 <= len(entries) <= 16
    assert {entry["pos"] for entry in entries} == {"NOUN", "VERB"}
    listed: set[str] = set()
    for entry in entries:
        assert entry["lang"] == "EN"
        assert len(entry["synsets"]) == len(set(entry["synsets"]))
        holding = {
            sid
            for sid, record in synsets.items()
            if record["pos"] == entry["pos"] and entry["lemma"].casefold() in english_lemmas(record)
        }
        assert set(entry["synsets"]) == holding, entry["lemma"]
        listed |= holding
    assert listed == set(synsets), "every synset belongs to some lemma entry"


def test_english_senses_are_wordnet_with_sense_numbers(snapshot: dict, omega: dict, synsets: dict) -> None:
    for record in snapshot["synsets"]:
        english = [s for s in record["senses"] if s["lang"] == "EN"]
        assert english
        for sense in english:
            assert sense["source"] == "WN"
            number = sense["wordnet_sense_number"]
            assert isinstance(number, int) and number >= 1
        for sense in record["senses"]:
            if sense["lang"] != "EN":
                assert "wordnet_sense_number" not in sense
    for (lemma, _pos), ids in omega.items():
        numbers = [wordnet_sense_number(synsets[sid], lemma) for sid in ids]
        assert len(numbers) == len(set(numbers)), lemma


def test_lemma_entries_are_not_in_rank_order(omega: dict, synsets: dict) -> None:
    """Pre-population must rank by WordNet sense number: the file order would give the wrong MFS."""
    for (lemma, pos), ids in omega.items():
        if len(ids) >= 3:
            assert ids != ranked(omega, synsets, lemma, pos), lemma
            assert ids[0] != ranked(omega, synsets, lemma, pos)[0], lemma


def test_polysemy_degree_is_at_least_three_except_the_deliberate_lemma(omega: dict) -> None:
    low = {key for key, ids in omega.items() if len(ids) < 3}
    assert low == {LOW_POLYSEMY_LEMMA}
    assert len(omega[LOW_POLYSEMY_LEMMA]) == 2


def test_every_synset_has_allowed_lexicalizations_in_every_language(snapshot: dict) -> None:
    for record in snapshot["synsets"]:
        for lang in LANGS:
            assert lexicalizations(record, lang), (record["id"], lang)


def test_sources_are_known_and_senses_not_repeated(snapshot: dict) -> None:
    for record in snapshot["synsets"]:
        seen = Counter((s["lemma"], s["lang"], s["source"]) for s in record["senses"])
        assert max(seen.values()) == 1, record["id"]
        for sense in record["senses"]:
            assert sense["lang"] in ALLOWED, sense
            assert sense["source"] in ALLOWED[sense["lang"]] | MACHINE_TRANSLATED, (record["id"], sense)


def test_every_allowed_source_is_used(snapshot: dict) -> None:
    used = {(s["lang"], s["source"]) for record in snapshot["synsets"] for s in record["senses"]}
    for lang, sources in ALLOWED.items():
        for source in sources:
            assert (lang, source) in used, (lang, source)


def test_machine_translated_senses_appear_only_as_extras(snapshot: dict) -> None:
    extras = [
        (record, sense)
        for record in snapshot["synsets"]
        for sense in record["senses"]
        if sense["source"] in MACHINE_TRANSLATED
    ]
    assert {sense["source"] for _, sense in extras} == MACHINE_TRANSLATED
    assert len(extras) >= 5
    for record, sense in extras:
        assert sense["lang"] != "EN"
        # the synset has real lexicalizations in that language; the machine-translated lemma is not one of them
        allowed = lexicalizations(record, sense["lang"])
        assert allowed, record["id"]
        assert sense["lemma"].casefold() not in {lemma.casefold() for lemma in allowed}, (record["id"], sense)
    # ... and using them would change what translators see (the reason they are refused)
    figure_synsets = {"bn:00057755n", "bn:00036083n", "bn:00094769v"}
    assert figure_synsets <= {record["id"] for record, _ in extras}


def test_figure_1_synsets_use_the_paper_words(synsets: dict) -> None:
    shot = synsets["bn:00057755n"]
    assert wordnet_sense_number(shot, "shot") > 1
    assert {"goccio", "bicchierino"} <= set(lexicalizations(shot, "IT"))
    assert {"Schlückchen", "Schuss"} <= set(lexicalizations(shot, "DE"))
    assert {"trago", "chupito"} <= set(lexicalizations(shot, "ES"))
    assert {"шот", "рюмка"} <= set(lexicalizations(shot, "RU"))
    assert "小杯" in lexicalizations(shot, "ZH")
    head = synsets["bn:00036083n"]
    assert {"fonte", "sorgente"} <= set(lexicalizations(head, "IT"))
    assert "исток" in lexicalizations(head, "RU")
    take_off = synsets["bn:00094769v"]
    assert "prendersi un permesso" in lexicalizations(take_off, "IT")
    assert "sich freinehmen" in lexicalizations(take_off, "DE")
    assert "请假" in lexicalizations(take_off, "ZH")


# --- items ------------------------------------------------------------------------------------------

ITEM_FIELDS = {"id", "sentence", "target", "start", "end", "lemma", "pos", "synset", "source"}


def test_items_are_well_formed(items: list[dict]) -> None:
    assert 16 <= len(items) <= 18
    ids = [item["id"] for item in items]
    assert len(ids) == len(set(ids))
    for item in items:
        assert set(item) == ITEM_FIELDS, item["id"]
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", item["id"]), item["id"]
        assert item["sentence"][item["start"] : item["end"]] == item["target"], item["id"]
        assert item["sentence"][0].isupper() and item["sentence"].endswith("."), item["id"]
        assert item["pos"] in POS_LETTER
        assert item["synset"][-1] == POS_LETTER[item["pos"]]
        assert item["source"]
    pos = Counter(item["pos"] for item in items)
    assert pos["VERB"] >= 5 and pos["NOUN"] >= 5


def test_figure_1_items_are_verbatim(items: list[dict]) -> None:
    by_id = {item["id"]: item for item in items}
    for item_id, (sentence, target, lemma, pos, synset) in FIGURE_1.items():
        item = by_id[item_id]
        assert (item["sentence"], item["target"], item["lemma"], item["pos"], item["synset"]) == (
            sentence,
            target,
            lemma,
            pos,
            synset,
        )
        assert item["source"] == "dibimt-figure-1"


def test_item_synsets_and_lemmas_exist_in_the_snapshot(items: list[dict], synsets: dict, omega: dict) -> None:
    for item in items:
        key = (item["lemma"], item["pos"])
        assert key in omega, item["id"]
        assert item["synset"] in omega[key], item["id"]
        record = synsets[item["synset"]]
        assert record["pos"] == item["pos"]
        assert item["lemma"].casefold() in english_lemmas(record)
    used = {(item["lemma"], item["pos"]) for item in items}
    assert used == set(omega), "every lemma entry has an item, every item's lemma an entry"


# --- the deliberate filter cases (SPEC §4.4) --------------------------------------------------------


def test_polysemy_filter_fails_exactly_one_item(items: list[dict], omega: dict) -> None:
    failing = {item["id"] for item in items if len(omega[(item["lemma"], item["pos"])]) < 3}
    assert failing == {"cricket-porch"}


def test_one_per_sense_filter_has_exactly_one_colliding_pair(items: list[dict]) -> None:
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for item in items:
        groups[(item["synset"], item["source"])].add(item["id"])
    assert [ids for ids in groups.values() if len(ids) > 1] == [ONE_PER_SENSE_PAIR]


def test_same_synset_pairs_exist_across_sources(items: list[dict]) -> None:
    """% shared needs same-synset pairs; one of them comes from two different item sources."""
    by_synset: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        by_synset[item["synset"]].append(item)
    pairs = [group for group in by_synset.values() if len(group) > 1]
    assert len(pairs) == 2
    assert any(len({item["source"] for item in group}) > 1 for group in pairs)


def _target_language_failures(
    items: list[dict], synsets: dict, sources: dict[str, set[str]]
) -> dict[str, set[tuple[str, str]]]:
    reverse: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for record in synsets.values():
        for sense in record["senses"]:
            if sense["source"] in sources.get(sense["lang"], set()):
                reverse[(sense["lemma"].casefold(), sense["lang"], record["pos"])].add(record["id"])
    failures: dict[str, set[tuple[str, str]]] = {}
    for item in items:
        record = synsets[item["synset"]]
        for lang in LANGS:
            for lemma in lexicalizations(record, lang):
                others = reverse[(lemma.casefold(), lang, item["pos"])] - {item["synset"]}
                if any(item["lemma"].casefold() in english_lemmas(synsets[sid]) for sid in others):
                    failures.setdefault(item["id"], set()).add((lang, lemma))
    return failures


def test_target_language_filter_fails_exactly_one_item(items: list[dict], synsets: dict) -> None:
    assert _target_language_failures(items, synsets, ALLOWED) == TARGET_LANGUAGE_FAILURE
    # the result does not depend on whether a provider's reverse index also holds machine-translated senses
    every_source = {lang: sources | MACHINE_TRANSLATED for lang, sources in ALLOWED.items()}
    assert _target_language_failures(items, synsets, every_source) == TARGET_LANGUAGE_FAILURE


def _initial_sets(item: dict, lang: str, synsets: dict, omega: dict) -> tuple[list[str], dict[str, list[str]]]:
    """G0 and B0 (lemma -> provenance synsets) as SPEC §2 defines them."""
    good = lexicalizations(synsets[item["synset"]], lang)
    bad: dict[str, list[str]] = {}
    for sid in ranked(omega, synsets, item["lemma"], item["pos"]):
        if sid != item["synset"]:
            for lemma in lexicalizations(synsets[sid], lang):
                bad.setdefault(lemma, []).append(sid)
    return good, bad


def test_prepopulation_has_exactly_one_overlap(items: list[dict], synsets: dict, omega: dict) -> None:
    overlaps = set()
    for item in items:
        for lang in LANGS:
            good, bad = _initial_sets(item, lang, synsets, omega)
            overlaps |= {(item["id"], lang, lemma) for lemma in good if lemma in bad}
    assert overlaps == {("plant-automobiles", "ES", "planta")}


def test_some_bad_candidates_have_two_provenance_synsets(items: list[dict], synsets: dict, omega: dict) -> None:
    head = next(item for item in items if item["id"] == "head-stream")
    _, bad = _initial_sets(head, "IT", synsets, omega)
    assert len(bad["testa"]) == 2
    assert "Kopf" not in _initial_sets(head, "DE", synsets, omega)[0], "WIKITR 'Kopf' must not become GOOD"


# --- translations -----------------------------------------------------------------------------------


def test_translations_cover_every_item_language_and_system(items: list[dict], translations: list[dict]) -> None:
    keys = Counter((t["id"], t["lang"], t["system"]) for t in translations)
    expected = {(item["id"], lang, system) for item in items for lang in LANGS for system in SYSTEMS}
    assert set(keys) == expected
    assert max(keys.values()) == 1
    for line in translations:
        assert set(line) == {"id", "lang", "system", "translation"}
        assert line["translation"]


def test_translations_are_in_the_right_script(translations: list[dict]) -> None:
    for line in translations:
        text = line["translation"]
        if line["lang"] == "ZH":
            assert re.search(r"[\u4e00-\u9fff]", text) and text.endswith("。"), text
        elif line["lang"] == "RU":
            assert re.search(r"[а-яё]", text, re.IGNORECASE), text
            assert not re.search(r"[a-z]", text, re.IGNORECASE), text
        else:
            assert not re.search(r"[\u0400-\u04ff\u4e00-\u9fff]", text), text


def test_the_figure_1_italian_mistake_is_there(translations: list[dict]) -> None:
    texts = {t["translation"] for t in translations if t["id"] == "shot-whiskey" and t["lang"] == "IT"}
    assert "Versò uno sparo di whisky." in texts
