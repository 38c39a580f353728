"""A checked snapshot kept in the project's data folder, so a later command reads it without parsing it again.

Reading a snapshot checks every record, which costs far more than loading the result: ``init`` keeps what it read
and ``prepopulate`` (every lexicon built from the file) loads that. The copy is plain data (``marshal`` of
strings, numbers and tuples: no object of ours is rebuilt from it) with a key saying what it was made from: the
snapshot's bytes (SHA-256), the input limits it was checked within and the source of the code that checked it.
A copy whose key differs, or whose bytes do not match their own digest, is ignored; the file is read and checked
again, and the copy rewritten. One copy per data folder: the last snapshot read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import marshal
from pathlib import Path

from annotator.atomic_files import write_bytes_atomic
from annotator.data_import.limits import InputLimits
from annotator.errors import UserError
from annotator.lexicon.snapshot_format import LemmaEntry
from annotator.lexicon.snapshot_read import ParsedSnapshot, read_snapshot_file

#: The copy's file name in the data folder.
CACHE_FILE = "snapshot-checked.bin"
#: Changed when the copy's layout changes.
LAYOUT = b"annotator snapshot copy 1\n"
#: The modules whose rules decide what a checked snapshot holds: a copy made by other code is not used.
_RULE_MODULES = (
    "snapshot_read.py",
    "snapshot_records.py",
    "snapshot_fast.py",
    "snapshot_format.py",
    "../domain/lexicon_forms.py",
    "../data_import/limits.py",
)


def _code_digest() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _RULE_MODULES:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def snapshot_key(path: Path, limits: InputLimits) -> bytes:
    """What the copy was made from: the file's bytes, the limits and the checking code."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    fields = repr(dataclasses.astuple(limits))
    return f"{digest.hexdigest()} {hashlib.sha256(fields.encode()).hexdigest()} {_code_digest()}".encode()


def _encode(parsed: ParsedSnapshot) -> bytes:
    lemmas = tuple((e.lemma, e.lang, e.pos, e.synsets) for e in parsed.lemmas)
    return marshal.dumps(
        (parsed.label, parsed.version, parsed.provider, lemmas, tuple(parsed.synsets), parsed.edges, parsed.header)
    )


def _decode(payload: bytes, origin: str) -> ParsedSnapshot:
    label, version, provider, lemmas, synsets, edges, header = marshal.loads(payload)
    return ParsedSnapshot(
        origin, label, version, provider, [LemmaEntry(*entry) for entry in lemmas], list(synsets), edges, header
    )


def _load(cache: Path, key: bytes, origin: str) -> ParsedSnapshot | None:
    """The copy when it was made from ``key`` and is whole; None otherwise (missing, stale, damaged)."""
    try:
        data = cache.read_bytes()
    except OSError:
        return None
    head = LAYOUT + key + b"\n"
    if not data.startswith(head):
        return None
    digest, payload = data[len(head) : len(head) + 64], data[len(head) + 65 :]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        return _decode(payload, origin)
    except (ValueError, TypeError, EOFError):
        return None


def checked_copy(path: Path, limits: InputLimits) -> bytes | None:
    """Read and check the snapshot file ``path`` (refused as ever when bad) and return its copy's bytes, for
    ``keep_checked_copy``; None when ``path`` is not a regular file (nothing to key a copy on)."""
    key = snapshot_key(path, limits) if path.is_file() else None
    parsed = read_snapshot_file(path, limits)
    return None if key is None else _copy_bytes(key, parsed)


def keep_checked_copy(folder: Path, data: bytes) -> None:
    """Write a copy's bytes (``checked_copy``) in ``folder``, whole or not at all; a data folder that cannot take it
    only costs the next read. No folder is created (a PostgreSQL project may have none)."""
    if not folder.is_dir():
        return
    with contextlib.suppress(OSError, UserError):
        write_bytes_atomic(folder / CACHE_FILE, data)


def keep_checked_snapshot(folder: Path, key: bytes, parsed: ParsedSnapshot) -> None:
    """Write the copy of ``parsed`` (read from the file ``key`` names) in ``folder`` (``keep_checked_copy``)."""
    if folder.is_dir():
        keep_checked_copy(folder, _copy_bytes(key, parsed))


def _copy_bytes(key: bytes, parsed: ParsedSnapshot) -> bytes:
    payload = _encode(parsed)
    return LAYOUT + key + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


def read_checked_snapshot(path: Path, limits: InputLimits | None, folder: Path | None) -> ParsedSnapshot:
    """``read_snapshot_file``, answered from the copy in ``folder`` when it holds this file checked within these
    limits; otherwise the file is read (refused as ever when bad) and the copy written. ``folder`` None: no copy."""
    limits = limits or InputLimits()
    if folder is None or not path.is_file():
        return read_snapshot_file(path, limits)
    cache = folder / CACHE_FILE
    try:
        key = snapshot_key(path, limits)
    except OSError:
        return read_snapshot_file(path, limits)
    found = _load(cache, key, str(path))
    if found is not None:
        return found
    parsed = read_snapshot_file(path, limits)
    keep_checked_snapshot(folder, key, parsed)
    return parsed
