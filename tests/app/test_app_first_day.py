"""Issue 34 through AppTest: the Items page (statuses in view, a true caption, a translator's own languages),
the Evaluate page (inputs only when they apply, horizontal chart labels, filters kept after a trip to Curate) and
the Agreement table (every header whole)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from app_helpers import logged_in
from streamlit.testing.v1 import AppTest

from annotator.app.pages.evaluate import BUNDLED, UPLOAD, UPLOADED
from annotator.domain.jobs import JobKind, JobState
from annotator.project import Project
from annotator.services import jobs

pytestmark = pytest.mark.both_engines


def items_table(at: AppTest):  # type: ignore[no-untyped-def]
    return next(df.value for df in at.dataframe if "id" in df.value.columns)


def test_items_shows_statuses_beside_the_id_and_says_how_to_open_an_item(app_demo: Path) -> None:
    lead = logged_in("lead", "demo-lead-pass")
    lead.switch_page("pages/items.py").run()
    assert not lead.exception, lead.exception
    columns = [c for c in items_table(lead).columns if c != "item_id"]  # item_id: hidden, the id to open
    assert columns[:7] == ["id", "word", "DE", "ES", "IT", "RU", "ZH"]  # in view at 1366 px, before the long text
    assert columns[-1] == "excluded"
    assert any("tick the box at the left of its row, then choose the language" in c.value for c in lead.caption)
    assert not any(c.value.startswith("Select a row to open") for c in lead.caption)

    translator = logged_in("translator", "demo-translator-pass")
    translator.switch_page("pages/items.py").run()
    columns = [c for c in items_table(translator).columns if c != "item_id"]
    assert columns[:4] == ["id", "word", "DE", "IT"]
    assert not {"ES", "RU", "ZH", "excluded"} & set(columns)
    assert any("languages DE IT" in c.value for c in translator.caption)


def test_items_counts_lemmas_as_the_dataset_cards_table_1(app_demo: Path, tmp_path: Path) -> None:
    """A lemma is counted once whatever its POS and case, on the Items page as in Table 1 (the page used to count
    (lemma, POS) pairs: more lemmas than the card)."""
    from annotator.domain.dataset_counts import dataset_counts
    from annotator.services.importing import import_items

    extra = tmp_path / "extra.jsonl"
    lines = [{"id": "run-race", "sentence": "The run was long.", "target": "run", "lemma": "run", "pos": "NOUN",
              "synset": "bn:00068383n"},
             {"id": "shot-try", "sentence": "Give it a Shot.", "target": "Shot", "lemma": "Shot", "pos": "NOUN",
              "synset": "bn:00071244n"}]  # fmt: skip
    extra.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    project = Project.open(app_demo)
    import_items(project, extra)
    with project.db.read() as conn:
        items = list(project.repo.iter_items(conn))
    table1 = dataset_counts(items).columns["all"]
    assert len({(i.target.lemma, i.target.pos) for i in items}) == table1.lemmas + 2  # the two ways differ here
    lead = logged_in("lead", "demo-lead-pass")
    lead.switch_page("pages/items.py").run()
    assert not lead.exception, lead.exception
    caption = next(c.value for c in lead.caption if " lemmas · " in c.value)
    assert caption.startswith(f"{table1.items} items · {table1.lemmas} lemmas · {table1.synsets} synsets"), caption


def run_bundled(at: AppTest) -> AppTest:
    at.radio(key="evaluate_translations_choice").set_value(BUNDLED)
    at.button(key="evaluate_run").click().run()
    assert not at.exception, at.exception
    project = Project.open(Path(os.environ["ANNOTATOR_DATA"]))
    (job,) = jobs.list_jobs(project, limit=1, kinds=[JobKind.EVALUATE])
    assert jobs.wait(project, job.id, timeout=300).state is JobState.DONE
    return at.run()


def test_evaluate_shows_inputs_only_when_they_apply_and_keeps_the_filters(app_demo: Path) -> None:
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, at.exception
    uploaders = lambda: [u.label for u in at.get("file_uploader")]  # noqa: E731
    texts = lambda: [t.label for t in at.text_input]  # noqa: E731
    # the current curation, an upload of translations, the default analyser: no dataset box, no Stanza folder
    assert at.radio(key="evaluate_translations_choice").value == UPLOAD
    assert uploaders() == ["Translations file"] and "Stanza model folder" not in texts()
    at.radio(key="evaluate_dataset_choice").set_value(UPLOADED).run()
    assert uploaders() == ["dataset.jsonl", "Translations file"]
    at.radio(key="evaluate_dataset_choice").set_value("Current curation in this project").run()
    at.radio(key="evaluate_translations_choice").set_value(BUNDLED).run()
    assert uploaders() == []
    at.selectbox(key="evaluate_analyser").set_value("stanza").run()
    assert "Stanza model folder" in texts()
    at.selectbox(key="evaluate_analyser").set_value("default").run()
    assert "Stanza model folder" not in texts()

    run_bundled(at)
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    assert len(specs) == 2
    for spec in specs:
        assert spec["encoding"]["x"]["axis"]["labelAngle"] == 0  # language codes written across, not turned 90°
        assert spec["encoding"]["y"]["axis"]["titleAngle"] == 0
    assert at.selectbox(key="evaluate_lang").format_func("IT") == "IT — Italian"

    at.selectbox(key="evaluate_lang").set_value("DE").run()
    at.selectbox(key="evaluate_system").set_value("demo-mt-b").run()
    at.button(key="eval_open|shot-whiskey|DE|demo-mt-b").click().run()
    assert at.query_params["item"] == "shot-whiskey"
    at.switch_page("pages/evaluate.py").run()  # back
    assert not at.exception, at.exception
    assert at.selectbox(key="evaluate_lang").value == "DE"
    assert at.selectbox(key="evaluate_system").value == "demo-mt-b"
    scroll = [h.proto.body for h in at.get("html") if "scrollIntoView" in h.proto.body]
    assert len(scroll) == 1 and "st-key-eval_row_" in scroll[0]  # the opened row is brought back into view
    at.run()
    assert not [h for h in at.get("html") if "scrollIntoView" in h.proto.body]  # once, not on every rerun


def test_the_agreement_table_shows_alpha_with_its_units_in_one_column() -> None:
    import pandas as pd

    from annotator.app.pages.agreement import AGREEMENT_COLUMNS, shown_frame

    frame = pd.DataFrame(
        [{"scope": "IT", "α (nominal)": "0.43", "α units": 12}, {"scope": "all", "α (nominal)": "n/a", "α units": 0}]
    )
    shown = shown_frame(frame)
    assert list(shown["α (nominal)"]) == ["0.43 (12 units)", "n/a"] and "α units" not in shown
    assert set(shown.columns) <= set(AGREEMENT_COLUMNS)
