"""The demo project curated into a known state for the export, publish and read-model tests."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from annotator.data_export.dataset import (
    schema_path,
)
from annotator.domain.model import CandidateEntry
from annotator.project import Project
from annotator.services.curation import CurationService

#: The scripted curation leaves these out of a default export, for these reasons.
EXCLUDED, DISCARDED, INCOMPLETE = "cricket-porch", "fire-coach", ("book-table", "match-pipe")


def curate_demo(data: Path) -> None:
    """Curate the demo as its lead would: a few real edits, everything else done, and one item of each kind
    that a default export leaves out (excluded, discarded in DE, unfinished in ES / RU)."""
    project = Project.open(data)
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
        states = list(project.repo.iter_item_languages(conn))
    assert lead is not None
    service = CurationService(project, lead)
    for state in states:
        key, good, bad, version = (state.item_id, state.lang), formats(state.good), formats(state.bad), state.version
        if key == ("shot-whiskey", "IT"):  # remove bicchierino, add cicchetto, add a cross-PoS BAD
            good, bad = ["goccio", "cicchetto"], [*bad, "[sparare]_v"]
        elif key == ("head-stream", "DE"):  # a case-only change
            good = ["ursprung", "Quelle"]
        elif key[0] in ("fire-late", "fire-coach") and key[1] == "DE":  # DE feuern moves to GOOD
            good, bad = [*good, "feuern"], [b for b in bad if b != "feuern"]
        elif key == ("take-off-thanksgiving", "IT"):  # a wildcard candidate
            good = [*good, "prendere * permesso"]
        if (good, bad) != (formats(state.good), formats(state.bad)):
            version = service.replace_candidates(*key, good, bad, version).version
        if key == (DISCARDED, "DE"):
            service.discard(*key, "other", "same sense and source as fire-late", version)
        elif key == ("book-table", "ES"):
            service.replace_candidates(*key, [*good, "apartar"], bad, version)  # left in progress
        elif key == ("match-pipe", "RU"):
            pass  # left pending
        else:
            service.mark_done(*key, version)
    with project.db.write() as conn:
        project.repo.set_excluded(conn, [EXCLUDED], True)
    project.db.dispose()


def validator(name: str = "dataset.schema.json") -> Draft202012Validator:
    schema = json.loads(schema_path(name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def formats(entries: tuple[CandidateEntry, ...]) -> list[str]:
    return [e.format() for e in entries]
