"""Double-curation copies read as agreement records: the dataset export and the agreement report
(``services.double_curation``) both count them, so the reading lives here, below the services that use it.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence

from sqlalchemy import Connection

from annotator.domain.agreement import FINISHED, CopyRecord
from annotator.store.double_curation import CopySetsRow
from annotator.store.repository import Repository


def stored_keys(stored: str) -> frozenset[str]:
    """SPEC §3 identities of a stored candidate list (JSON text), as ``key_string`` gives them, without building
    dataclasses or calling a function per candidate: this runs for every copy (100,000 in the benchmark)."""
    nfc = unicodedata.normalize
    return frozenset(
        f"[{nfc('NFC', c['text']).casefold()}]_{c['pos']}" if c["pos"] else nfc("NFC", c["text"]).casefold()
        for c in json.loads(stored)
    )


def agreement_records_in(repo: Repository, conn: Connection, copies: Sequence[CopySetsRow]) -> list[CopyRecord]:
    """``copies`` as ``CopyRecord``s, with G0 ∪ B0 read from their item-languages through ``conn``."""
    pre = {
        key: stored_keys(good) | stored_keys(bad)
        for key, (good, bad) in repo.prepopulated_sets(conn, {(c.item_id, c.lang) for c in copies}).items()
    }
    finished = set(FINISHED)  # the copy states whose decision is made: done, DISCUSS, discarded
    return [
        CopyRecord(
            c.item_id,
            c.lang,
            c.annotator,
            c.status if c.status in finished else "unfinished",
            stored_keys(c.good),
            stored_keys(c.bad),
            pre[(c.item_id, c.lang)],
        )
        for c in copies
        if (c.item_id, c.lang) in pre
    ]
