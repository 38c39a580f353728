"""Importing WSD-framework XML (issue 23): detokenised sentences with exact target offsets, POS mapping, gold keys
to synsets through the English wordnet, multi-key instances skipped and listed (or the first key kept), refusals
naming the instance and the rule, hostile XML refused, the project's input limits, all or nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from project_helpers import dump
from wordnet_data import TINY_GOLD, TINY_WSD, write_tiny_wordnet, write_tiny_wsd

from annotator.cli import main
from annotator.data_import.items import ItemImportError
from annotator.data_import.limits import InputLimits
from annotator.data_import.wsd_xml import key_matches_lemma, rebuild_sentence
from annotator.errors import UserError
from annotator.lexicon.wordnet import add_lexicons
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.administration import update_project_limits
from annotator.services.import_wsd import import_wsd_xml
from annotator.services.importing import import_items

pytestmark = pytest.mark.both_engines


@pytest.fixture
def wn_project(project: Project, tmp_path: Path) -> Project:
    add_lexicons(project.wordnet_folder, [str(p) for p in write_tiny_wordnet(tmp_path / "lmf")])
    project.save_settings(ProjectSettings(name="wn", languages=("IT", "ZH"), lexicon=LexiconSettings("wordnet")))
    return project


def items_of(project: Project) -> dict:
    with project.db.read() as conn:
        return {item.id: item for item in project.repo.list_items(conn)}


def test_sentences_offsets_pos_source_and_domain(wn_project: Project, tmp_path: Path) -> None:
    xml, gold = write_tiny_wsd(tmp_path / "wsd")
    result = import_wsd_xml(wn_project, xml, gold)
    assert result.instances == 4 and result.report.added == 3
    assert result.multi_key == [("tiny.d001.s000.t004", ("shot%1:04:06::", "shot%1:04:00::"))]
    assert "tiny.d001.s000.t004" in result.summary() and "--first-key" in result.summary()
    items = items_of(wn_project)
    shot = items["tiny.d000.s000.t003"]
    assert shot.sentence == "He poured a shot of whiskey."  # Moses: no space before the full stop
    assert (shot.target.start, shot.target.end, shot.target.text) == (12, 16, "shot")
    assert (shot.target.lemma, shot.target.pos, shot.synset) == ("shot", "NOUN", "wn:13773250n")
    assert shot.source == "tiny tiny.d000" and shot.domain == "FOOD_AND_DRINK"
    living, belong = items["tiny.d000.s001.t004"], items["tiny.d000.s001.t006"]
    assert living.sentence == "The vast majority of living fish belong here (18,000 species), they say."
    for item, word in ((living, "living"), (belong, "belong")):
        assert item.sentence[item.target.start : item.target.end] == word
    assert (living.target.pos, living.synset) == ("ADJ", "wn:00928874a")  # a satellite sense key → `a`
    assert (belong.target.pos, belong.synset) == ("VERB", "wn:02737876v")
    again = import_wsd_xml(wn_project, xml, gold)  # re-import: a no-op
    assert (again.report.added, again.report.unchanged) == (0, 3)


def test_a_gold_key_matches_its_lemma_ignoring_case_with_underscores_for_spaces(
    wn_project: Project, tmp_path: Path
) -> None:
    xml_text = TINY_WSD.replace('lemma="shot" pos="NOUN">shot</instance>', 'lemma="Shot" pos="NOUN">shot</instance>', 1)
    xml, gold = write_tiny_wsd(tmp_path / "wsd", xml_text)
    assert import_wsd_xml(wn_project, xml, gold).report.added == 3
    assert key_matches_lemma("ice_cream%1:13:00::", "Ice  cream")
    assert key_matches_lemma("ice_cream%1:13:00::", "ice_cream")
    assert not key_matches_lemma("cat%1:05:00::", "dog") and not key_matches_lemma("ice%1:27:00::", "ice cream")


def test_first_key_keeps_the_first_of_several_gold_keys(wn_project: Project, tmp_path: Path) -> None:
    xml, gold = write_tiny_wsd(tmp_path / "wsd")
    result = import_wsd_xml(wn_project, xml, gold, first_key=True)
    assert result.report.added == 4 and result.multi_key == []
    good_shot = items_of(wn_project)["tiny.d001.s000.t004"]
    assert good_shot.synset == "wn:00565302n" and good_shot.domain == ""  # <text> without a domain
    assert good_shot.sentence == 'It was a good shot, "she said.'  # Moses' detokeniser, quote and all
    assert good_shot.sentence[good_shot.target.start : good_shot.target.end] == "shot"


def test_the_detokeniser_keeps_every_token_findable() -> None:
    tokens = ["He", "said", ",", '"', "it", "'s", "(", "18,000", ")", "a", "shot", '"', "."]
    text, spans = rebuild_sentence(tokens, lambda words: " ".join(words).replace(" ,", ","))
    assert [text[a:b] for a, b in spans] == tokens
    text, spans = rebuild_sentence(["a", "b"], lambda words: "A B")  # a detokeniser that rewrites: fall back
    assert text == "a b" and [text[a:b] for a, b in spans] == ["a", "b"]


@pytest.mark.parametrize(
    ("xml_edit", "gold_edit", "needle"),
    [
        (None, ("shot%1:23:00::", "shot%1:99:99::"),
         "instance tiny.d000.s000.t003: sense key 'shot%1:99:99::' is not in"),
        # a key of another lemma (issue 31: it made a "shot" item with the injection synset)
        (None, ("tiny.d000.s000.t003 shot%1:23:00::", "tiny.d000.s000.t003 injection%1:04:00::"),
         "instance tiny.d000.s000.t003: gold key 'injection%1:04:00::' is a sense of 'injection', not of the "
         "instance's lemma 'shot'"),
        (None, ("shot%1:04:06:: shot%1:04:00::", "shot%1:04:06:: nip%1:13:00::"),
         "instance tiny.d001.s000.t004: gold key 'nip%1:13:00::' is a sense of 'nip'"),
        (('pos="VERB">belong', 'pos="PRT">belong'), None, "instance tiny.d000.s001.t006: part of speech 'PRT'"),
        (None, ("tiny.d000.s001.t004 living%5:00:00:extant:00\n", ""), "instance tiny.d000.s001.t004: no line in"),
        (("<wf lemma=\"he\" pos=\"PRON\">He</wf>", "<wf lemma=\"he\" pos=\"PRON\">He\u200b</wf>"), None,
         "invisible_character"),
    ],
)  # fmt: skip
def test_a_bad_instance_refuses_the_whole_file_by_id_and_rule(
    wn_project: Project, tmp_path: Path, xml_edit: tuple[str, str] | None, gold_edit: tuple[str, str] | None,
    needle: str,
) -> None:  # fmt: skip
    xml_text = TINY_WSD.replace(*xml_edit) if xml_edit else TINY_WSD
    gold_text = TINY_GOLD.replace(*gold_edit) if gold_edit else TINY_GOLD
    xml, gold = write_tiny_wsd(tmp_path / "wsd", xml_text, gold_text)
    before = dump(wn_project)
    with pytest.raises(ItemImportError) as refused:
        import_wsd_xml(wn_project, xml, gold)
    message = str(refused.value)
    assert needle in message and "nothing was imported" in message
    assert dump(wn_project) == before


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE corpus [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<corpus lang="en" source="x"><text id="x.d0"><sentence id="x.d0.s0">
<instance id="x.d0.s0.t0" lemma="shot" pos="NOUN">&lol3;</instance></sentence></text></corpus>
"""
EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE corpus [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<corpus lang="en" source="x"><text id="x.d0"><sentence id="x.d0.s0">
<instance id="x.d0.s0.t0" lemma="shot" pos="NOUN">&secret;</instance></sentence></text></corpus>
"""


@pytest.mark.parametrize("hostile", [BILLION_LAUGHS, EXTERNAL_ENTITY, "<corpus><text>unclosed"])
def test_hostile_or_broken_xml_is_refused_and_nothing_changes(
    wn_project: Project, tmp_path: Path, hostile: str
) -> None:
    xml, gold = write_tiny_wsd(tmp_path / "wsd", hostile, "x.d0.s0.t0 shot%1:23:00::\n")
    before = dump(wn_project)
    with pytest.raises(UserError) as refused:
        import_wsd_xml(wn_project, xml, gold)
    assert "tiny.data.xml" in str(refused.value) and "nothing imported" in str(refused.value)
    assert "root:" not in str(refused.value) and "lollol" not in str(refused.value)
    assert dump(wn_project) == before


def test_the_projects_input_limits_hold(wn_project: Project, tmp_path: Path) -> None:
    xml, gold = write_tiny_wsd(tmp_path / "wsd")
    before = dump(wn_project)
    update_project_limits(wn_project, lambda _: replace(InputLimits(), max_rows=2))
    limited = dump(wn_project)
    with pytest.raises(UserError, match=r"more than 2 (lines|instances) \(input limit max_rows\)"):
        import_wsd_xml(wn_project, xml, gold)
    update_project_limits(wn_project, lambda _: replace(InputLimits(), max_sentence_chars=40))
    with pytest.raises(ItemImportError) as refused:
        import_wsd_xml(wn_project, xml, gold)
    assert "instance tiny.d000.s001.t004" in str(refused.value) and "sentence_too_long" in str(refused.value)
    after = dump(wn_project)  # only the limits (and their audit rows) changed
    assert {k: v for k, v in after.items() if k not in ("meta", "audit")} == {
        k: v for k, v in limited.items() if k not in ("meta", "audit")
    }
    assert before["items"] == after["items"] == []


def test_cli_import_finds_the_gold_file_and_lists_skipped_instances(
    wn_project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml, _gold = write_tiny_wsd(tmp_path / "wsd")
    assert main(["import", str(xml), "--data", str(wn_project.data_dir)]) == 0
    out = capsys.readouterr().out
    assert "skipped: tiny.d001.s000.t004: 2 gold keys (shot%1:04:06:: shot%1:04:00::)" in out
    assert out.count("tiny.d001.s000.t004") == 1  # each skipped instance listed once (issue 34)
    assert "4 instances: 3 added" in out
    (tmp_path / "wsd" / "tiny.gold.key.txt").unlink()
    assert main(["import", str(xml), "--data", str(wn_project.data_dir)]) == 2
    assert "no gold key file tiny.gold.key.txt" in capsys.readouterr().err


def test_an_item_file_carries_an_optional_domain_column(wn_project: Project, tmp_path: Path) -> None:
    csv = tmp_path / "items.csv"
    csv.write_text(
        "id,sentence,target,lemma,pos,synset,domain\n"
        "a,He poured a shot of whiskey.,shot,shot,NOUN,wn:13773250n,FOOD\n"
        "b,A good shot.,shot,shot,NOUN,wn:00565302n,\n",
        encoding="utf-8",
    )
    import_items(wn_project, csv)
    items = items_of(wn_project)
    assert items["a"].domain == "FOOD" and items["b"].domain == ""
