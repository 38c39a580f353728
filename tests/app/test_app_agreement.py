"""Double curation through the app (issue 11, acceptance 2), driven by Streamlit's AppTest over the whole app: a lead
assigns two items to two translators, each curates a private copy, neither sees the other's copy, the lead adjudicates,
and the export holds the adjudicated sets and the agreement — each step checked against the database."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from app_helpers import area, feedback, logged_in, send_area
from streamlit.testing.v1 import AppTest

from annotator.app.session import USER_KEY
from annotator.commands.project import create_demo
from annotator.domain.jobs import JobState
from annotator.domain.model import Role, Status
from annotator.project import Project
from annotator.services import jobs
from annotator.services.accounts import Session, add_user
from annotator.store.double_curation import Copy

DATASET_PAGE = """
from annotator.app.pages.dataset import render
render()
"""
ITEM, OTHER, LANG = "shot-whiskey", "head-stream", "IT"
ANA, BEN, LEAD = ("ana", "ana-password"), ("ben", "ben-password"), ("lead", "demo-lead-pass")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("agreement-demo") / "data"
    create_demo(str(data), quiet=True)
    project = Project.open(data)
    add_user(project, "ana", Role.TRANSLATOR, ("IT",), ANA[1])
    add_user(project, "ben", Role.TRANSLATOR, ("IT",), BEN[1])
    project.db.dispose()
    return data


@pytest.fixture
def demo(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    data = tmp_path / "data"
    shutil.copytree(template, data)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return Project.open(data)


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    refusals = [e.value for e in at.error if not e.value.startswith("Discarded by")]  # the card's status banner
    assert not refusals, refusals
    return at


def page(user: tuple[str, str], path: str) -> AppTest:
    at = logged_in(*user)
    return ok(at.switch_page(path).run())


def texts(at: AppTest) -> str:
    """Everything the page shows as text: text areas, tables, plain text, captions, Markdown."""
    parts = [t.value for t in at.text_area] + [t.value for t in at.text] + [m.value for m in at.markdown]
    parts += [c.value for c in at.caption]
    parts += [df.value.to_csv() for df in at.dataframe]
    return "\n".join(str(p) for p in parts)


def shown_sets(at: AppTest) -> dict[str, list[str]]:
    """The GOOD and BAD lists of the copy in the work area, as shown."""
    return {side: [row["text"] for row in area(at)["lists"][side]["rows"]] for side in ("good", "bad")}


def curate(user: tuple[str, str], item: str, good: str, bad: str | None = None, finish: str = "done") -> AppTest:
    """The translator opens the Double curation page, picks the copy and, in the work area (as on Curate), moves,
    removes and adds candidates until the lists are ``good`` / ``bad`` (one per line), then finishes it."""
    at = page(user, "pages/copies.py")
    ok(at.selectbox(key="copies_pick").set_value(f"{item} [{LANG}]").run())
    assert "your double-curation copy" in area(at)["card"]["title"]
    want = {"good": good.splitlines(), "bad": bad.splitlines() if bad is not None else None}
    for side, other in (("good", "bad"), ("bad", "good")):
        if want[side] is None:
            continue
        folded = {text.casefold() for text in want[side]}
        for row in list(area(at)["lists"][side]["rows"]):
            if row["text"].casefold() not in folded:
                send_area(at, "remove", key=row["key"])
                assert feedback(at)["kind"] == "success", feedback(at)
        for text in want[side]:
            shown = {t.casefold(): t for t in shown_sets(at)[side]}
            there = {r["text"].casefold(): r["key"] for r in area(at)["lists"][other]["rows"]}
            if text.casefold() in shown:
                continue
            if text.casefold() in there:
                send_area(at, "move", key=there[text.casefold()])
            else:
                send_area(at, "add", side=side, text=text)
            assert feedback(at)["kind"] == "success", feedback(at)
    if finish == "done":
        send_area(at, "done")
    else:
        send_area(at, "discard", reason="idiom", text="")
    assert feedback(at)["kind"] == "success", feedback(at)
    return at


def copy_state(project: Project, item: str, who: str) -> Copy:
    with project.db.read() as conn:
        found = project.repo.get_copy(conn, item, LANG, who)
    assert found is not None
    return found


def test_assign_curate_privately_adjudicate_and_export(demo: Project, tmp_path: Path) -> None:
    # 1. the lead assigns two items to ana and ben
    lead = page(LEAD, "pages/agreement.py")
    lead.selectbox(key="agr_lang").set_value(LANG).run()
    assert set(lead.multiselect(key="agr_who").options) == {"ana", "ben", "translator"}
    lead.multiselect(key="agr_who").set_value(["ana", "ben"])
    lead.radio(key="agr_mode").set_value("list").run()
    lead.text_area(key="agr_ids").input(f"{ITEM}\n{OTHER}")
    ok(lead.button(key="agr_assign").click().run())
    assert any("2 IT item(s) assigned to ana, ben" in s.value.replace("\\", "") for s in lead.success)
    with demo.db.read() as conn:
        assert [(a.item_id, a.state) for a in demo.repo.list_assignments(conn)] == [
            (OTHER, "open"),
            (ITEM, "open"),
        ]
    # the Items page marks them; the ordinary Curate queue no longer offers them
    items = ok(lead.switch_page("pages/items.py").run())
    table = next(df.value for df in items.dataframe if "id" in df.value.columns)
    assert table.set_index("id").loc[ITEM, LANG] == "pending ×2"

    # 2. ana curates both: her queue shows her copies only
    ana = curate(ANA, ITEM, "goccio\ncicchetto", "sparo\nbicchierino")
    assert "sorso" not in texts(ana)
    ana = curate(ANA, OTHER, "fonte\nsorgente", None)
    assert copy_state(demo, ITEM, "ana").status is Status.DONE
    ana_curate = ok(ana.switch_page("pages/curate.py").run())
    assert ITEM not in texts(ana_curate)  # not in the ordinary queue
    # a translator's navigation has no page with the copies side by side (the service refuses it too)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        ana.switch_page("pages/agreement.py")

    # 3. ben curates: his copy starts from the pre-populated sets, never from ana's — nothing of hers shows
    ben = page(BEN, "pages/copies.py")
    ok(ben.selectbox(key="copies_pick").set_value(f"{ITEM} [{LANG}]").run())
    assert "cicchetto" not in texts(ben).casefold()
    assert "bicchierino" in shown_sets(ben)["good"]  # G0 as pre-populated
    curate(BEN, ITEM, "goccio\nbicchierino\nCicchetto\nsorso", None)
    curate(BEN, OTHER, "fonte", finish="discard")
    assert copy_state(demo, OTHER, "ben").status is Status.DISCARDED
    # ana's copy is untouched by ben's work
    assert [e.text for e in copy_state(demo, ITEM, "ana").good] == ["goccio", "cicchetto"]

    # 4. the lead sees the agreement and adjudicates
    lead = page(LEAD, "pages/agreement.py")
    agreement = next(df.value for df in lead.dataframe if df.value.columns[0] == "scope")
    it = agreement.set_index("scope").loc[LANG]
    # decisions: shot-whiskey done/done, head-stream done/discarded → 1 of 2; GOOD {goccio, cicchetto} vs
    # {goccio, bicchierino, cicchetto, sorso} → not exact
    assert (it["pairs"], it["% same decision"], it["% exact GOOD"]) == (2, "50.0", "0.0")
    assert agreement.set_index("scope").loc["DE", "α (nominal)"] == "n/a"
    assert lead.get("arrow_vega_lite_chart") or lead.get("vega_lite_chart")
    ok(lead.selectbox(key="agr_drill").set_value(f"{ITEM} [{LANG}]").run())
    comparison = next(df.value for df in lead.dataframe if "differs" in df.value.columns)
    marked = comparison[comparison["differs"] == "✱"].set_index("candidate")
    assert marked.loc["bicchierino", "ana"] == "bad" and marked.loc["bicchierino", "ben"] == "good"
    assert marked.loc["sorso", "ana"] == "none"

    ok(lead.selectbox(key="agr_adjudicate").set_value(f"{ITEM} [{LANG}]").run())
    take_ben = next(b for b in lead.button if b.key and b.key.endswith("|take|ben"))
    ok(take_ben.click().run())
    final_good = next(
        t for t in lead.text_area if t.key and t.key.startswith(f"adj|{ITEM}|") and t.key.endswith("|good")
    )
    assert final_good.value.splitlines() == ["goccio", "bicchierino", "Cicchetto", "sorso"]
    final_good.input("goccio\ncicchetto")  # edit: drop bicchierino and sorso
    final_bad = next(t for t in lead.text_area if t.key and t.key.startswith(f"adj|{ITEM}|") and t.key.endswith("|bad"))
    final_bad.input(final_bad.value + "\nbicchierino")
    ok(next(b for b in lead.button if b.key and b.key.endswith("|save")).click().run())
    with demo.db.read() as conn:
        state = demo.repo.get_item_language(conn, ITEM, LANG)
        history = demo.repo.history(conn, ITEM, LANG)
    assert state.status is Status.DONE and [e.text for e in state.good] == ["goccio", "cicchetto"]
    assert history[-1].action == "adjudicate" and history[-1].detail["sources"]["bicchierino"] == ["ana"]

    # 5. the lead exports from the Dataset page (including unfinished items: the demo is not fully curated)
    # (the Dataset page is registered as a function page, which AppTest cannot switch to: run it as its own script
    # in the lead's session, as tests/test_app_dataset.py does)
    dataset = AppTest.from_string(DATASET_PAGE, default_timeout=60)
    dataset.session_state[USER_KEY] = Session("lead", 0)
    ok(dataset.run())
    dataset.checkbox(key="dataset_include_incomplete").check().run()
    dataset.checkbox(key="dataset_with_annotators").check().run()
    ok(dataset.button(key="dataset_export").click().run())
    for job in jobs.list_jobs(demo):  # the export runs as a background job: wait for its worker
        assert jobs.wait(demo, job.id, timeout=120).state is JobState.DONE, jobs.get(demo, job.id)
    folder = next((demo.data_dir / "exports").iterdir())  # DATA/exports by default
    lines = {json.loads(x)["id"]: json.loads(x) for x in (folder / "dataset.jsonl").read_text("utf-8").splitlines()}
    exported = lines[ITEM]["languages"][LANG]
    assert [c["text"] for c in exported["good"]] == ["goccio", "cicchetto"]
    assert [(a["id"], a["status"]) for a in exported["annotators"]] == [("A1", "done"), ("A2", "done")]
    stats = json.loads((folder / "stats.json").read_text("utf-8"))
    assert stats["agreement"]["item_languages"] == 2
    assert stats["agreement"]["languages"][LANG]["decision_agreement"] == 0.5
    assert stats["refinement"]["languages"][LANG]["item_languages"] >= 1
