"""Candidates as the lexicon means them, and licences from where the published rows came from.

A project built the way the open-data path builds one, from a tiny fixture resembling it and written here with its
licence files: an English WordNet 3.0 lexicon (WordNet licence), a Chinese Open Wordnet lexicon whose lemmas carry
COW's optional-suffix marker (``平行+的``) and whose LMF licence attribute names no licence exactly (its LICENSE file
beside it does), and a WSD-framework corpus under CC BY-NC 4.0 with a LICENSE.txt and a README that cites it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from sqlalchemy import delete, update

from annotator.cli import main
from annotator.data_export.dataset import ExportOptions, export_dataset, read_dataset
from annotator.data_export.publish import LicenceRefused, publish
from annotator.domain.lexicon_forms import resolve, rules_for
from annotator.domain.licences import identify, identify_document, identify_statement
from annotator.domain.model import CandidateEntry, Origin
from annotator.lexicon.licences import known_texts
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.import_wsd import import_wsd_xml
from annotator.services.lexicon_admin import remove_wordnet, use_wordnet
from annotator.services.prepopulate import Redo, prepopulate
from annotator.store import schema
from annotator.store.item_languages import candidates_to_json

pytestmark = pytest.mark.both_engines

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE LexicalResource SYSTEM "https://globalwordnet.github.io/schemas/WN-LMF-1.4.dtd">\n'
    '<LexicalResource xmlns:dc="https://globalwordnet.github.io/schemas/dc/">\n'
)
#: WordNet 3.0's "parallel" (adjective, sense 1) and a second sense made up for the fixture (its BAD words).
PARALLEL, SIMILAR = "01718158-a", "02379157-s"
ENGLISH = f"""{HEADER}  <Lexicon id="wn30en" label="Princeton WordNet 3.0" language="en" email="t@example.org"
      license="https://wordnet.princeton.edu/license-and-commercial-use" version="3.0"
      citation="Christiane Fellbaum (ed.). 1998. WordNet: An Electronic Lexical Database. MIT Press.">
    <LexicalEntry id="wn30en-parallel-a">
      <Lemma writtenForm="parallel" partOfSpeech="a"/>
      <Sense id="wn30en-parallel__3.00.00.." synset="wn30en-{PARALLEL}" n="1" dc:identifier="parallel%3:00:00::"/>
      <Sense id="wn30en-parallel__5.00.00.similar.00" synset="wn30en-{SIMILAR}" n="2"
             dc:identifier="parallel%5:00:00:similar:00"/>
    </LexicalEntry>
    <Synset id="wn30en-{PARALLEL}" ili="i12001" partOfSpeech="a">
      <Definition>being everywhere equidistant and not intersecting</Definition>
    </Synset>
    <Synset id="wn30en-{SIMILAR}" ili="i12002" partOfSpeech="s">
      <Definition>of a corresponding or similar kind</Definition>
    </Synset>
  </Lexicon>
</LexicalResource>
"""
COW = f"""{HEADER}  <Lexicon id="omw-cmn" label="Chinese Open Wordnet" language="cmn-Hans" email="t@example.org"
      license="wordnet (the WordNet-style licence of the Chinese Open Wordnet, see its LICENSE file)"
      version="1.4-local" url="https://bond-lab.github.io/cow/"
      citation="Shan Wang and Francis Bond. 2013. Building the Chinese Open Wordnet (COW): Starting from Core Synsets.">
    <LexicalEntry id="omw-cmn-e1">
      <Lemma writtenForm="平行+的" partOfSpeech="a"/>
      <Sense id="omw-cmn-e1-{PARALLEL}" synset="omw-cmn-{PARALLEL}"/>
    </LexicalEntry>
    <LexicalEntry id="omw-cmn-e2">
      <Lemma writtenForm="相似+的" partOfSpeech="a"/>
      <Sense id="omw-cmn-e2-{SIMILAR}" synset="omw-cmn-{SIMILAR}"/>
    </LexicalEntry>
    <Synset id="omw-cmn-{PARALLEL}" ili="i12001" partOfSpeech="a"/>
    <Synset id="omw-cmn-{SIMILAR}" ili="i12002" partOfSpeech="s"/>
  </Lexicon>
</LexicalResource>
"""
CORPUS = """<corpus language="en" source="tiny42D">
  <text id="tiny42D.d000" domain="MATHEMATICS">
    <sentence id="tiny42D.d000.s000">
      <wf lemma="the" pos="DET">The</wf>
      <wf lemma="line" pos="NOUN">lines</wf>
      <wf lemma="be" pos="VERB">are</wf>
      <instance id="tiny42D.d000.s000.t003" lemma="parallel" pos="ADJ">parallel</instance>
      <wf lemma="." pos=".">.</wf>
    </sentence>
    <sentence id="tiny42D.d000.s001">
      <wf lemma="draw" pos="VERB">Draw</wf>
      <instance id="tiny42D.d000.s001.t001" lemma="parallel" pos="ADJ">parallel</instance>
      <wf lemma="line" pos="NOUN">lines</wf>
      <wf lemma="." pos=".">.</wf>
    </sentence>
  </text>
</corpus>
"""
GOLD = "tiny42D.d000.s000.t003 parallel%3:00:00::\ntiny42D.d000.s001.t001 parallel%3:00:00::\n"
#: The first lines of the CC BY-NC 4.0 legal code, as 42D's LICENSE.txt starts.
CC_BY_NC = """Attribution-NonCommercial 4.0 International

=======================================================================

Creative Commons Corporation ("Creative Commons") is not a law firm and
does not provide legal services or legal advice.
"""
README = """# tiny 42D — a WSD challenge set (a fixture)

**Licence: CC BY-NC 4.0** (`LICENSE.txt`, https://creativecommons.org/licenses/by-nc/4.0/) — attribution required,
**non-commercial use only**.

Cite: Marco Maru, Simone Conia, Michele Bevilacqua and Roberto Navigli. 2022. *Nibbling at the Hard Core of Word
Sense Disambiguation*. In Proceedings of ACL 2022 (`../../seeds/paper.txt`).
"""
FIRST, SECOND = "tiny42D.d000.s000.t003", "tiny42D.d000.s001.t001"


@pytest.fixture
def built(project: Project, tmp_path: Path) -> Project:
    """The fixture project: wordnets added with ``use-wordnet``'s service, the corpus imported, pre-populated."""
    wordnets = tmp_path / "open-wordnets"
    wordnets.mkdir()
    (wordnets / "wn30-en.xml").write_text(ENGLISH, encoding="utf-8")
    (wordnets / "omw-cmn.xml").write_text(COW, encoding="utf-8")
    (wordnets / "omw-cmn.LICENSE").write_text(known_texts()["cow"], encoding="utf-8")
    corpus = tmp_path / "tiny42D"
    corpus.mkdir()
    (corpus / "tiny42D.data.xml").write_text(CORPUS, encoding="utf-8")
    (corpus / "tiny42D.gold.key.txt").write_text(GOLD, encoding="utf-8")
    (corpus / "LICENSE.txt").write_text(CC_BY_NC, encoding="utf-8")
    (corpus / "README.md").write_text(README, encoding="utf-8")
    project.save_settings(ProjectSettings(name="cow", languages=("ZH",), lexicon=LexiconSettings("wordnet")))
    used = use_wordnet(project, [str(wordnets / "wn30-en.xml"), str(wordnets / "omw-cmn.xml")])
    assert used.lexicon is not None
    assert used.lexicon.forms_resolved == {"omw-cmn": 2}  # the count use-wordnet reports
    assert used.lexicon.forms_report() == ["omw-cmn: 2 lemma(s) read as the lexicon means them ('X+的' (an optional "
                                           "particle after '+'): the word X: 2)"]  # fmt: skip
    imported = import_wsd_xml(project, corpus / "tiny42D.data.xml")
    assert imported.report.corpus_licence == "cc-by-nc-4.0"
    assert "LICENSE.txt: Creative Commons Attribution-NonCommercial 4.0 International" in imported.report.licence_line()
    assert prepopulate(project).item_languages == 2
    return project


def zh_sets(project: Project, out: Path) -> dict[str, tuple[list[str], list[str]]]:
    result = export_dataset(project, out, ExportOptions(include_incomplete=True))
    return {
        line["id"]: (
            [c["text"] for c in line["languages"]["ZH"]["good"]],
            [c["text"] for c in line["languages"]["ZH"]["bad"]],
        )
        for line in read_dataset(result.files["dataset.jsonl"])
    }


def test_cow_candidates_hold_no_plus_and_a_chinese_translation_scores_good(built: Project, tmp_path: Path) -> None:
    sets = zh_sets(built, tmp_path / "export")
    assert sets == {FIRST: (["平行"], ["相似"]), SECOND: (["平行"], ["相似"])}
    translations = tmp_path / "translations.jsonl"
    lines = [
        {"id": FIRST, "lang": "ZH", "system": "s1", "translation": "这是一个平行的例子。"},
        {"id": SECOND, "lang": "ZH", "system": "s1", "translation": "画两条相似的线。"},
    ]
    translations.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    (dataset,) = (tmp_path / "export").glob("**/dataset.jsonl")
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "eval")]) == 0
    analysed = [json.loads(x) for x in (tmp_path / "eval" / "analysed.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["id"]: r["result"] for r in analysed} == {FIRST: "GOOD", SECOND: "BAD"}


def test_default_publish_is_non_commercial_names_and_cites_the_corpus_and_refuses_cc_by(
    built: Project, tmp_path: Path
) -> None:
    with pytest.raises(LicenceRefused) as refused:
        publish(built, tmp_path / "open", licence="cc-by-4.0", include_incomplete=True, include_unusable=True)
    message = str(refused.value)
    assert "tiny 42D — a WSD challenge set (a fixture) (tiny42D.data.xml) is under the Creative Commons " \
           "Attribution-NonCommercial 4.0 International, which forbids commercial use" in message  # fmt: skip
    assert not (tmp_path / "open").exists()
    result = publish(built, tmp_path / "hf", include_incomplete=True, include_unusable=True)
    assert result.licence == "cc-by-nc-4.0"
    assert [(s.source, s.licence.id) for s in result.sources] == [
        ("tiny 42D — a WSD challenge set (a fixture) (tiny42D.data.xml)", "cc-by-nc-4.0"),
        ("Chinese Open Wordnet (omw-cmn:1.4-local)", "cow"),
        ("Princeton WordNet 3.0 (wn30en:3.0)", "wordnet"),
    ]
    card = (result.path / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] == "cc-by-nc-4.0"
    assert "Nibbling at the Hard Core of Word Sense Disambiguation" in card and "tiny 42D" in card
    assert "../../seeds" not in card  # a reference to a file on this server is no part of the citation
    licences = result.path / "LICENSES"
    readme = (licences / "README.md").read_text(encoding="utf-8")
    assert "Cite: Marco Maru" in readme and "Shan Wang and Francis Bond" in readme
    # the notices the WordNet and COW licences ask for in every copy: their text, not a link
    wordnet = (licences / "wordnet.txt").read_text(encoding="utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved." in wordnet
    assert "on ALL copies of the software" in wordnet and not wordnet.startswith("WordNet License")
    cow = (licences / "cow.txt").read_text(encoding="utf-8")
    assert "Chinese Open Wordnet Copyright 2013,2014 by Francis Bond and Shan" in cow
    summary = (licences / "cc-by-nc-4.0.txt").read_text(encoding="utf-8")
    assert "Legal code: https://creativecommons.org/licenses/by-nc/4.0/legalcode" in summary
    assert "NonCommercial: you may not use the material for commercial purposes." in summary


def test_removing_the_lexicon_the_candidates_came_from_does_not_change_what_publish_owes_it(
    built: Project, tmp_path: Path
) -> None:
    remove_wordnet(built, "omw-cmn")
    result = publish(built, tmp_path / "hf", include_incomplete=True, include_unusable=True)
    assert result.licence == "cc-by-nc-4.0"
    assert "Chinese Open Wordnet (omw-cmn:1.4-local)" in [s.source for s in result.sources]
    assert (result.path / "LICENSES" / "cow.txt").is_file()


def test_a_project_prepopulated_with_the_markers_is_repaired_on_its_untouched_item_languages_only(
    built: Project, tmp_path: Path
) -> None:
    """As an older version left it: both item-languages hold ``平行+的``; a translator has finished the second."""
    old = candidates_to_json((CandidateEntry("平行+的", None, Origin.LEXICON, (f"wn:{PARALLEL[:8]}a",)),))
    table = schema.item_languages
    with built.db.write() as conn:
        conn.execute(update(table).values(good=old, initial_good=old))
        conn.execute(update(table).where(table.c.item_id == SECOND).values(status="done"))
    report = prepopulate(built, redo=Redo(changed_only=True))
    assert report.item_languages == 1 and report.unchanged == 0
    assert report.curated_kept == [(SECOND, "ZH", "done")]
    assert "1 item-languages pre-populated" in report.summary() and "0 unchanged" in report.summary()
    sets = zh_sets(built, tmp_path / "export")
    assert sets[FIRST] == (["平行"], ["相似"]) and sets[SECOND][0] == ["平行+的"]  # the curated one as it was
    with built.db.write() as conn:  # as an older version left it: no item-language's sources recorded
        conn.execute(delete(schema.item_language_sources))
    again = prepopulate(built, redo=Redo(changed_only=True))  # nothing left to repair
    assert again.item_languages == 0 and again.unchanged == 1
    with built.db.read() as conn:  # the unchanged one left untouched, its sources recorded
        recorded = built.repo.item_language_sources(conn)
    assert recorded == {(FIRST, "ZH"): ("lexicon:wordnet:omw-cmn:1.4-local", "lexicon:wordnet:wn30en:3.0")}


def test_licence_texts_are_identified_only_by_an_exact_id_url_or_full_name() -> None:
    assert not identify("Nutzung nur für Forschungszwecke mit schriftlicher Genehmigung").known
    assert not identify("Non-commercial use only; same terms as the Princeton WordNet").known
    assert not identify("Not CC0: research use only").known
    assert not identify("wordnet (the WordNet-style licence of the Chinese Open Wordnet)").known
    assert not identify("MIT-style, but no commercial use").known
    assert identify("MIT").id == "mit" and identify("CC0-1.0").id == "cc0-1.0"
    assert identify("http://creativecommons.org/licenses/by-sa/3.0").id == "cc-by-sa-3.0"
    assert identify("Creative Commons Attribution-NonCommercial 4.0 International").id == "cc-by-nc-4.0"
    assert identify_document(CC_BY_NC).id == "cc-by-nc-4.0"
    assert not identify_document("Not CC0: research use only\n\nAsk us first.").known
    assert identify_document(known_texts()["cow"], known_texts()).id == "cow"
    assert identify_document("Extra: no commercial use.\n" + known_texts()["cow"], known_texts()).id == "unknown"
    assert identify_statement(README).id == "cc-by-nc-4.0"  # type: ignore[union-attr]
    assert not identify_statement("License: MIT (non-commercial use only)").known  # type: ignore[union-attr]
    assert identify_statement("No licence line here.") is None


def test_form_rules_per_lexicon() -> None:
    counts: Counter[str] = Counter()
    cow = rules_for("omw-cmn")
    assert resolve("平行+的", cow, counts) == ("平行",)
    assert resolve("邀请...外出", cow, counts) == ("邀请 * 外出",)
    assert resolve("亚比月(公历11月", cow, counts) == ("亚比月",)
    assert resolve("尘[粉]状+的", cow, counts) == ("尘状",)
    assert resolve("侵占者;", cow, counts) == ("侵占者",)
    assert resolve("平行", cow, counts) == ("平行",)
    assert counts == Counter(optional_suffix=2, gap=1, open_parenthesis=1, bracketed=1, trailing_punctuation=1)
    iwn = rules_for("omw-iwn")
    assert resolve("attivita' economica", iwn) == ("attività economica",)
    assert resolve("perche'", iwn) == ("perché",)
    assert resolve("a-cielo-aperto", iwn) == ("a cielo aperto", "a-cielo-aperto")
    assert resolve("Russia (URSS)", iwn) == ("Russia",)
    assert resolve("Aorta-", rules_for("wikt-de")) == ("Aorta",)
    assert resolve("включать в какую-л. категорию", rules_for("wikt-ru")) == ("включать в * категорию",)
    # a marker belongs to the lexicons that use it: MultiWordNet's apostrophes are elisions, '+' is COW's
    assert resolve("all'aperto", rules_for("omw-it")) == ("all'aperto",)
    assert resolve("C+", rules_for("omw-it")) == ("C+",)


def test_items_imported_before_licences_were_recorded_get_theirs_from_an_unchanged_re_import(
    built: Project, tmp_path: Path
) -> None:
    with built.db.write() as conn:  # as an older version left it: no licence recorded for the import
        conn.execute(delete(schema.provenance_sources).where(schema.provenance_sources.c.kind == "corpus"))
    unknown = publish(built, tmp_path / "before", include_incomplete=True, include_unusable=True)
    assert unknown.licence == "other"
    legacy = "the sentences of 2 item(s) imported before their licence was recorded"
    assert legacy in [s.source for s in unknown.sources]
    xml = tmp_path / "tiny42D" / "tiny42D.data.xml"
    again = import_wsd_xml(built, xml, corpus_licence="cc-by-nc-4.0")
    assert again.report.added == 0 and again.report.unchanged == 2
    recorded = again.report.licence_line()
    assert "Sentences' licence recorded: cc-by-nc-4.0 (given with the import: cc-by-nc-4.0" in recorded
    assert publish(built, tmp_path / "after", include_incomplete=True, include_unusable=True).licence == "cc-by-nc-4.0"
