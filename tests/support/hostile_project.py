"""A project whose every user-supplied field carries Markdown, HTML, image, link, KaTeX and directive payloads.

Shared by the browser test of issue 14 (item 6): the app must show each payload as literal text and never make the
browser fetch anything from ``evil.example``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from annotator.domain.model import CandidateEntry, Item, Role, Status, Target
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts import add_user, authenticate
from annotator.services.curation import CurationService

IMG = "![x](http://evil.example/x.png)"
HTML_IMG = '<img src="http://evil.example/h.png">'
LINK = "[link](http://evil.example/l)"
RED = ":red[x]"
TEX = "$x$"
TICKS = "a``b"
BOLD = "**bold**"
#: Every payload, shown literally somewhere on each page the test visits.
PAYLOADS = (IMG, HTML_IMG, LINK, RED, TEX, TICKS, BOLD)

ITEM_A = f"a-{IMG}"  # to curate (in progress), with hostile candidates, source, gloss, sentence
ITEM_B = f"b-{BOLD}"  # a non-BabelNet synset (a URL): never a link
ITEM_C = f"c-{RED}"  # flagged DISCUSS with a hostile note and comment
ITEM_D = f"d-{LINK}"  # discarded with a hostile note
SENTENCE_A = f"He poured a shot {BOLD} {RED} {TEX} {LINK} {HTML_IMG} {IMG} of \u202eyksihw."
NON_BN_SYNSET = "http://evil.example/synset"
NOTE = f"Note {IMG} {HTML_IMG} {LINK} {RED} {TEX} {TICKS} {BOLD}"
COMMENT = f"Comment {IMG} {LINK} {TEX} {BOLD}"
SYSTEM = f"sys-{TICKS}-{IMG}-{BOLD}"
TRANSLATION = f"Tradotto {IMG} {LINK} {RED} {BOLD} nulla"  # no candidate in it: a MISS
#: Well-formed candidates (the Evaluate page checks them) that are still Markdown, HTML or KaTeX when rendered.
CANDIDATES_GOOD = (TICKS, HTML_IMG)
CANDIDATES_BAD = (TEX, "`tick`")


def _item(item_id: str, sentence: str, word: str, synset: str, **extra: str) -> Item:
    start = sentence.index(word)
    return Item(
        id=item_id,
        sentence=sentence,
        target=Target(word, start, start + len(word), word, "NOUN"),
        synset=synset,
        **extra,
    )


def build(data: Path) -> Project:
    """Create the project under ``data`` with a lead (lena) and an IT translator (ivo)."""
    project = Project.open(data, create=True)
    project.save_settings(
        ProjectSettings(name=f"hostile {IMG}", languages=("IT",), lexicon=LexiconSettings(provider="snapshot"))
    )
    add_user(project, "lena", Role.LEAD, (), "lead-password", display_name=f"Lena {BOLD}")
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    items = [
        _item(ITEM_A, SENTENCE_A, "shot", "bn:00057755n", source=f"src {LINK}", gloss=f"gloss {IMG} {TEX}"),
        _item(ITEM_B, f"The head of the stream {TEX} {TICKS}.", "head", NON_BN_SYNSET),
        _item(ITEM_C, f"A charge {HTML_IMG} for parking.", "charge", "bn:00017511n"),
        _item(ITEM_D, f"A run {LINK} of luck.", "run", "bn:00068190n"),
    ]
    with project.db.write() as conn:
        project.repo.insert_items(conn, [(item, f"hash-{n}", n) for n, item in enumerate(items)])
        project.repo.ensure_item_languages(conn, [item.id for item in items], ["IT"])
        # candidates as a lexicon could have supplied them: the app must show whatever text is stored
        state = project.repo.get_item_language(conn, ITEM_A, "IT")
        assert state is not None
        project.repo.save_item_language(
            conn,
            replace(
                state,
                status=Status.IN_PROGRESS,
                good=tuple(CandidateEntry(text) for text in CANDIDATES_GOOD),
                bad=tuple(CandidateEntry(text) for text in CANDIDATES_BAD),
            ),
            state.version,
            "ivo",
            "seed",
        )
    translator = authenticate(project, "ivo", "translator-password")
    assert translator is not None
    service = CurationService(project, translator)
    service.flag_discuss(ITEM_C, "IT", NOTE, service.view(ITEM_C, "IT").state.version)
    service.comment(ITEM_C, "IT", COMMENT)
    service.discard(ITEM_D, "IT", "other", NOTE, service.view(ITEM_D, "IT").state.version)
    return project


def translations_file(folder: Path) -> Path:
    """Translations of item A by a hostile system name: a MISS, so the Evaluate page lists it."""
    path = folder / "translations.jsonl"
    row = {"id": ITEM_A, "lang": "IT", "system": SYSTEM, "translation": TRANSLATION}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
