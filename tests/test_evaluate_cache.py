"""Issue 10: the live evaluation set-up keeps each item as it read it (``services.evaluation_cache``), keyed on every
stored value its record is built from; these tests prove a cached item is never stale: after any change (curation,
undo, a forced re-import, a settings change, a hand edit, a damaged cache) the dataset is exactly the one built
without the cache, and a cold and a warm cache give the same dataset and the same results."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from pathlib import Path

import pytest
from conftest import build_demo
from sqlalchemy import text
from test_evaluate_live import refused_like_in_the_file

from annotator.domain.model import Side
from annotator.evaluation.inputs import Dataset
from annotator.project import Project, builtin_path
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService
from annotator.services.evaluate import EvaluationInputError, create_analyser, evaluate, load_translations
from annotator.services.evaluate_project import _build, dataset_from_project
from annotator.services.evaluation_cache import BASE_FILE, ITEM_CACHE_FOLDER, OVERLAY_FILE, ItemCache, key_of
from annotator.services.importing import import_items
from annotator.store.repository import EvaluationRow

pytestmark = pytest.mark.both_engines


@pytest.fixture
def demo(copy_project, tmp_path: Path) -> Project:
    return Project.open(copy_project("demo", build_demo, tmp_path / "data"))


def lead(project: Project) -> CurationService:
    return CurationService(project, authenticate(project, "lead", "demo-lead-pass"))


def cache_folder(project: Project) -> Path:
    return project.data_dir / ITEM_CACHE_FOLDER


def fresh(project: Project) -> Dataset:
    """The dataset built without the cache (nothing read from it, nothing written to it)."""
    return dataset_from_project(project, cache=False)


def warm(project: Project) -> Dataset:
    """Built with the cache, checked against a build without it."""
    built = dataset_from_project(project)
    assert built.items == fresh(project).items  # every field, candidate specs and line numbers included
    assert list(built.items) == list(fresh(project).items)
    return built


def texts(dataset: Dataset, item_id: str, lang: str, side: str) -> list[str]:
    return [spec.candidate.format() for spec in dataset.items[item_id].languages[lang] if spec.side == side]


def scored(dataset: Dataset) -> tuple[list[dict], dict, dict]:
    translations = load_translations(builtin_path("demo/translations.jsonl"), dataset)
    result = evaluate(dataset, translations, create_analyser("default"))
    return [r.to_dict() for r in result.results], result.metrics, result.skipped


def test_a_cold_and_a_warm_cache_give_the_same_dataset_and_results(demo: Project) -> None:
    assert not cache_folder(demo).exists()
    cold = dataset_from_project(demo)
    assert (cache_folder(demo) / BASE_FILE).exists()  # written by the cold run
    assert ItemCache.open(cache_folder(demo)).held == len(cold.items)
    warmed = dataset_from_project(demo)
    assert warmed.items == cold.items == fresh(demo).items and list(warmed.items) == list(cold.items)
    assert scored(warmed) == scored(cold)


def test_a_curated_candidate_counts_on_the_next_run_and_its_undo_too(demo: Project) -> None:
    before = warm(demo)
    service = lead(demo)
    version = service.view("head-stream", "IT").state.version
    service.add_candidate("head-stream", "IT", Side.GOOD, "sorgente nuova", version)
    added = warm(demo)
    assert "sorgente nuova" in texts(added, "head-stream", "IT", "good")
    assert "sorgente nuova" not in texts(before, "head-stream", "IT", "good")

    service.undo("head-stream", "IT", service.view("head-stream", "IT").state.version)
    undone = warm(demo)
    assert "sorgente nuova" not in texts(undone, "head-stream", "IT", "good")
    assert undone.items == before.items


def test_a_status_change_a_discard_and_an_exclusion_count_on_the_next_run(demo: Project) -> None:
    warm(demo)
    service = lead(demo)
    service.discard("shot-whiskey", "DE", "other", "test", service.view("shot-whiskey", "DE").state.version)
    service.flag_discuss("head-stream", "IT", "which sense?", service.view("head-stream", "IT").state.version)
    with demo.db.write() as conn:
        demo.repo.set_excluded(conn, ["take-off-thanksgiving"], True)
    changed = warm(demo)
    assert "DE" not in changed.items["shot-whiskey"].languages
    assert "take-off-thanksgiving" not in changed.items
    with demo.db.write() as conn:
        demo.repo.set_excluded(conn, ["take-off-thanksgiving"], False)
    assert "take-off-thanksgiving" in warm(demo).items


def test_a_forced_reimport_counts_on_the_next_run(demo: Project, tmp_path: Path) -> None:
    before = warm(demo)
    rows = [json.loads(line) for line in builtin_path("demo/items.jsonl").read_text(encoding="utf-8").splitlines()]
    target = next(row for row in rows if row["id"] == "head-stream")
    changed = [dict(row, sentence=row["sentence"] + " Again.") if row is target else row for row in rows]
    path = tmp_path / "items-v2.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in changed), encoding="utf-8")
    assert import_items(demo, path, force=True).replaced == 1
    after = warm(demo)
    assert after.items["head-stream"].sentence.endswith(" Again.")
    assert after.items["head-stream"].sentence != before.items["head-stream"].sentence


def test_a_language_added_to_the_settings_counts_on_the_next_run(demo: Project) -> None:
    before = warm(demo)
    settings = demo.settings()
    dropped = sorted(settings.languages)[0]
    demo.save_settings(dataclasses.replace(settings, languages=tuple(sorted(settings.languages)[1:])))
    narrower = warm(demo)
    assert dropped in before.languages and dropped not in narrower.languages
    demo.save_settings(settings)
    assert warm(demo).items == before.items


def test_a_hand_edited_bad_candidate_after_a_warm_run_is_refused_like_in_the_file(
    demo: Project, tmp_path: Path
) -> None:
    warm(demo)
    refused_like_in_the_file(demo, tmp_path)


def test_a_hand_edited_surrogate_after_a_warm_run_is_refused(demo: Project) -> None:
    warm(demo)
    with demo.db.write() as conn:
        conn.exec_driver_sql(
            'UPDATE item_languages SET good = \'[{"origin":"translator","pos":null,"synsets":[],'
            "\"text\":\"x\\ud800y\"}]' WHERE item_id = 'head-stream' AND lang = 'IT'"
        )
    with pytest.raises(EvaluationInputError) as live:
        dataset_from_project(demo)
    with pytest.raises(EvaluationInputError) as uncached:
        fresh(demo)
    assert [p.rule for p in live.value.problems] == [p.rule for p in uncached.value.problems] == ["surrogate"]


def test_a_damaged_or_foreign_cache_is_read_as_empty_and_rewritten(demo: Project) -> None:
    built = warm(demo)
    (cache_folder(demo) / BASE_FILE).write_bytes(b"not a pickle")
    assert warm(demo).items == built.items
    assert ItemCache.open(cache_folder(demo)).held == len(built.items)  # rewritten
    (cache_folder(demo) / BASE_FILE).write_bytes(pickle.dumps((b"another version", {}), pickle.HIGHEST_PROTOCOL))
    assert warm(demo).items == built.items
    assert ItemCache.open(cache_folder(demo)).held == len(built.items)


def test_a_few_changes_go_to_the_small_file_and_the_cache_keeps_only_live_items(demo: Project) -> None:
    built = warm(demo)
    base = (cache_folder(demo) / BASE_FILE).read_bytes()
    service = lead(demo)
    service.add_candidate(
        "head-stream", "IT", Side.GOOD, "sorgente nuova", service.view("head-stream", "IT").state.version
    )
    dataset_from_project(demo)
    assert (cache_folder(demo) / BASE_FILE).read_bytes() == base  # the large file is not rewritten for one item
    cache = ItemCache.open(cache_folder(demo))
    assert set(cache.overlay) == {"head-stream"}
    assert warm(demo).items["head-stream"] != built.items["head-stream"]

    with demo.db.write() as conn:  # most items gone: everything still used is compacted into the large file
        demo.repo.set_excluded(conn, sorted(built.items)[: len(built.items) * 3 // 4], True)
    live = dataset_from_project(demo)
    cache = ItemCache.open(cache_folder(demo))
    assert set(cache.base) == set(live.items) and not cache.overlay
    assert not (cache_folder(demo) / OVERLAY_FILE).exists()


def test_hand_edits_that_keep_every_length_or_swap_two_values_count_on_the_next_run(demo: Project) -> None:
    """The key is a hash of the values: a one-character edit of the same length, and good and bad swapped (the
    same texts, joined the same way), are misses like any other change."""
    before = warm(demo)
    sentence = before.items["head-stream"].sentence
    edited = sentence[:-1] + ("!" if sentence[-1] != "!" else "?")
    with demo.db.write() as conn:
        conn.execute(text("UPDATE items SET sentence = :sentence WHERE id = 'head-stream'"), {"sentence": edited})
    assert warm(demo).items["head-stream"].sentence == edited
    with demo.db.write() as conn:
        conn.exec_driver_sql(
            "UPDATE item_languages SET good = bad, bad = good WHERE item_id = 'head-stream' AND lang = 'IT'"
        )
    swapped = warm(demo)
    assert texts(swapped, "head-stream", "IT", "good") == texts(before, "head-stream", "IT", "bad")
    assert texts(swapped, "head-stream", "IT", "bad") == texts(before, "head-stream", "IT", "good")


def test_the_key_tells_apart_values_that_would_join_alike_and_equal_values_share_it() -> None:
    different = [
        (("ab", "c"), ("a", "bc")),
        ((None,), ("None",)),
        ((1,), ("1",)),
        ((("a", "b"), "c"), (("a",), "b", "c")),
        (("x", None), ("x", "")),
    ]
    for one, other in different:
        assert key_of(one) != key_of(other), (one, other)
    assert key_of(("".join(["ab"] * 3), 4, None)) == key_of(("ababab", 4, None))  # equal values, other objects


def test_the_rows_in_any_order_give_the_same_dataset(demo: Project) -> None:
    """The query has no ORDER BY: an item-language's row may come before its item's; the dataset is the same.
    An excluded item's item-languages are not read at all."""
    with demo.db.write() as conn:
        demo.repo.set_excluded(conn, ["take-off-thanksgiving"], True)
    languages = tuple(sorted(demo.settings().languages))
    with demo.db.read() as conn:
        rows = list(demo.repo.evaluation_rows(conn, languages))
    assert not [row for row in rows if row[0] == "take-off-thanksgiving"]
    assert any(row[EvaluationRow._fields.index("lang")] is None for row in rows)
    expected = fresh(demo)
    shuffled = list(rows)
    random.Random(10).shuffle(shuffled)
    for order in (rows, rows[::-1], shuffled):
        built = _build(order, languages, "x", ItemCache(None))
        assert built.items == expected.items and list(built.items) == list(expected.items)
