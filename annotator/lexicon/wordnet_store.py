"""The project's ``wn`` database, changed all or nothing: checked files, a copy built aside, one rename.

``wn`` writes with ``synchronous=OFF`` and an in-memory journal, so a run stopped while it writes (Ctrl-C, SIGTERM,
kill -9, a full disk) used to leave ``DATA/wordnet/wn.db`` malformed. Now every file is checked first
(``wordnet_lmf``: nothing half-read is ever added), the new database is built in a ``build-*`` folder beside the
old one (a copy of it, plus the new lexicons), the look-up indexes are written there, and only when everything
succeeded are the new indexes renamed in and then the database renamed over the old one. A lexicon's index is in
place before the database that lists it, so readers never meet a lexicon without its index; an index whose
lexicon is not (or no longer) in the database is left over, harmless, and removed by the next run, like any
``build-*`` or ``unpack-*`` folder an interruption left behind. One run at a time per project (a file lock).

Readers list the lexicons with a short-lived read-only SQLite connection, not through ``wn``: ``wn`` keeps one
connection per database path for the life of the process, and that connection would go on reading the replaced
file.
"""

from __future__ import annotations

import contextlib
import fcntl
import lzma
import os
import re
import shutil
import sqlite3
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.data_import.limits import MB, InputLimits, megabytes
from annotator.lexicon.base import LexiconError
from annotator.lexicon.wordnet_index import INDEX_VERSION, index_path
from annotator.lexicon.wordnet_lmf import (
    LMF_SUFFIXES,
    CheckedFile,
    WordnetFileError,
    check_file,
    project_language,
)
from annotator.lexicon.wordnet_relations import relations_path, write_relations
from annotator.private_files import FILE_MODE, create_private_file, make_private, make_private_folder

DATABASE = "wn.db"
LOCK_FILE = "use-wordnet.lock"
BUILD_PREFIX = "build-"
#: Left by versions before the all-or-nothing build (``wn``'s scratch folders); removed like ``build-*``.
OLD_SCRATCH_PREFIX = "unpack-"
#: A test hook: the named point at which a run reports itself on stderr and waits, so a test can kill it there.
PAUSE_ENV = "ANNOTATOR_TEST_WORDNET_PAUSE"
_PACKAGE_ID = re.compile(r"^[a-z][a-z0-9._-]*(:[A-Za-z0-9._+-]+)?$")
_INDEX_FILE = re.compile(r"^index-v\d+-.*\.json\.gz(\.part)?$")

_lock = threading.RLock()


@dataclass(frozen=True)
class LexiconInfo:
    """One lexicon in a project's ``wn`` database, as ``use-wordnet`` prints it."""

    id: str
    version: str
    language: str
    synsets: int
    senses: int
    added: bool = True

    @property
    def specifier(self) -> str:
        return f"{self.id}:{self.version}"

    def describe(self) -> str:
        what = "added" if self.added else "already there"
        return (
            f"{self.specifier} ({self.language}, project language {project_language(self.language)}): "
            f"{self.synsets:,} synsets, {self.senses:,} senses — {what}"
        )


def _wn() -> Any:
    try:
        import wn
    except ImportError as error:
        raise LexiconError('The wordnet provider needs the wn library: pip install -e ".[wordnet]"') from error
    return wn


@contextlib.contextmanager
def using_folder(folder: Path) -> Iterator[Any]:
    """``wn`` pointed at ``folder`` (created 0700) for the duration; look-ups may come from the app's threads.

    ``wn`` keeps the connection it opens for the life of the process: a long-running reader (the app) goes on
    seeing the database it first opened after another process replaced it, until it restarts; ``lexicon_rows`` and
    the look-up indexes always read the current files.
    """
    wn = _wn()
    with _lock:
        make_private_folder(folder)
        wn.config.data_directory = folder
        wn.config.allow_multithreading = True
        yield wn


def pause_point(name: str) -> None:
    """Tests stop a run at a named point (``ANNOTATOR_TEST_WORDNET_PAUSE``) to kill it there; a no-op otherwise."""
    if os.environ.get(PAUSE_ENV) == name:
        print(f"wordnet pause point: {name}", file=sys.stderr, flush=True)
        time.sleep(600)


# --- reading -------------------------------------------------------------------------------------------


def _read_only(database: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{database}?mode=ro", uri=True)


def _rows(folder: Path) -> list[tuple[str, str, str]]:
    database = folder / DATABASE
    if not database.exists():
        return []
    with contextlib.closing(_read_only(database)) as conn:
        return [tuple(row) for row in conn.execute("SELECT id, version, language FROM lexicons ORDER BY id")]


def lexicon_rows(folder: Path) -> list[tuple[str, str, str]]:
    """(id, version, language) of every lexicon in the project's ``wn`` database, read from the current file."""
    try:
        return _rows(folder)
    except sqlite3.DatabaseError as error:
        raise _damaged(folder, error) from error


def installed_lexicons(folder: Path, added: frozenset[str] = frozenset()) -> list[LexiconInfo]:
    """The lexicons in the project's ``wn`` database with their sizes (``added``: specifiers just added)."""
    database = folder / DATABASE
    if not database.exists():
        return []
    query = (
        "SELECT l.id, l.version, l.language, (SELECT COUNT(*) FROM synsets s WHERE s.lexicon_rowid = l.rowid), "
        "(SELECT COUNT(*) FROM senses s WHERE s.lexicon_rowid = l.rowid) FROM lexicons l ORDER BY l.id"
    )
    try:
        with contextlib.closing(_read_only(database)) as conn:
            rows = conn.execute(query).fetchall()
    except sqlite3.DatabaseError as error:
        raise _damaged(folder, error) from error
    return [LexiconInfo(i, v, lang, syn, sen, f"{i}:{v}" in added) for i, v, lang, syn, sen in rows]


@dataclass(frozen=True)
class LexiconMetadata:
    """What a lexicon states about itself (label, licence, url, citation): what ``publish`` names as a source."""

    id: str
    version: str
    language: str
    label: str
    license: str
    url: str
    citation: str

    def specifier(self) -> str:
        return f"{self.id}:{self.version}"


def lexicon_metadata(folder: Path) -> list[LexiconMetadata]:
    """Every lexicon's own metadata, read from the current file (never through ``wn``, whose connection would go
    on reading a database another run has since replaced)."""
    database = folder / DATABASE
    if not database.exists():
        return []
    query = "SELECT id, version, language, label, license, url, citation FROM lexicons ORDER BY id"
    try:
        with contextlib.closing(_read_only(database)) as conn:
            rows = conn.execute(query).fetchall()
    except sqlite3.DatabaseError as error:
        raise _damaged(folder, error) from error
    return [LexiconMetadata(*(str(value or "") for value in row)) for row in rows]


def lexicon_specifiers(folder: Path) -> list[str]:
    """``id:version`` of every lexicon in the project's ``wn`` database (cheap: for manifests, which record a
    damaged database's own ``sqlite3`` error)."""
    return sorted(f"{lex_id}:{version}" for lex_id, version, _lang in _rows(folder))


def _damaged(folder: Path, error: Exception) -> LexiconError:
    return LexiconError(
        f"The project's wordnet database {folder / DATABASE} cannot be read ({error}); it was probably damaged by an "
        f"older version interrupted while adding a lexicon. Delete the folder {folder} and add the wordnets again "
        "with 'annotator lexicon use-wordnet'."
    )


# --- one run at a time, and what earlier runs left -------------------------------------------------------


@contextlib.contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    make_private_folder(folder)
    lock_path = folder / LOCK_FILE
    create_private_file(lock_path)
    with open(lock_path, "rb") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise LexiconError(
                f"Another 'annotator lexicon' command is changing the wordnet in {folder}; wait for it to finish "
                "and run this one again. Nothing was changed."
            ) from error
        try:
            _clean_leftovers(folder)
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _clean_leftovers(folder: Path) -> None:
    """Remove what an interrupted run left: build and scratch folders, half-written or orphaned indexes."""
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name.startswith((BUILD_PREFIX, OLD_SCRATCH_PREFIX)):
            shutil.rmtree(entry, ignore_errors=True)
    wanted = {index_path(folder, i, v).name for i, v, _lang in lexicon_rows(folder)}
    for entry in folder.iterdir():
        if entry.is_file() and _INDEX_FILE.match(entry.name) and entry.name not in wanted:
            entry.unlink(missing_ok=True)
    for entry in (folder / DATABASE, *folder.glob(f"index-v{INDEX_VERSION}-*")):
        if entry.exists():
            make_private(entry)  # an older version left wn.db 0644


# --- building a new database aside -----------------------------------------------------------------------


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy_database(folder: Path, target: Path) -> None:
    """The current database copied page by page (checked readable first); none yet: an empty start."""
    source = folder / DATABASE
    if not source.exists():
        return
    create_private_file(target)
    with contextlib.closing(_read_only(source)) as old:
        try:
            if old.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError("quick_check found damage")
        except sqlite3.DatabaseError as error:
            raise _damaged(folder, error) from error
        try:
            with contextlib.closing(sqlite3.connect(target)) as new:
                old.backup(new)
        except sqlite3.OperationalError as error:  # the copy cannot be written: a full disk, a quota
            raise _cannot_build(folder, error) from error


def _cannot_build(folder: Path, error: Exception) -> LexiconError:
    return LexiconError(
        f"Cannot write the new wordnet database in {folder} ({error}). Nothing was changed: the project's wordnet is "
        "as it was; free some space and run the command again."
    )


def _publish(folder: Path, build: Path, indexes: Sequence[Path]) -> None:
    """Indexes first, then the database: an interruption between them leaves only harmless orphan indexes."""
    for index in indexes:
        os.replace(index, folder / index.name)
    _fsync(folder)
    pause_point("indexes-in-place")
    database = build / DATABASE
    os.chmod(database, FILE_MODE)
    _fsync(database)
    os.replace(database, folder / DATABASE)
    _fsync(folder)
    pause_point("replaced")


def _progress_handler(report: Callable[[int, int, str], None], label: str) -> type:
    """A ``wn`` progress handler class (``wn`` instantiates it) forwarding its counts, a few hundred times a run."""
    from wn.util import ProgressHandler

    class Forward(ProgressHandler):  # type: ignore[misc]
        def update(self, n: int = 1, force: bool = False) -> None:
            super().update(n, force)
            count, total = int(str(self.kwargs["count"])), int(str(self.kwargs["total"] or 0))
            step = max(total // 200, 1)
            if count % step == 0 or force:
                stage = "writing" if self.kwargs["message"] == "Database" else "reading"
                if stage == "writing":
                    pause_point("adding")
                report(count, total, f"{stage} {label}")

    return Forward


def _add_to_copy(build: Path, files: Sequence[CheckedFile], progress: Callable[[int, int, str], None]) -> None:
    with using_folder(build) as wn:
        for checked in files:
            specs = ", ".join(lex.specifier for lex in checked.lexicons)
            try:
                wn.add(checked.copy, progress_handler=_progress_handler(progress, specs))
            except sqlite3.OperationalError as error:  # a full disk, not the file
                raise _cannot_build(build.parent, error) from error
            except Exception as error:  # wn's assertions, LMFError, integrity errors: all name the same bad file
                message = f"the wordnet library refused it ({type(error).__name__}: {error})"
                raise WordnetFileError(checked.label, None, "lmf_invalid", message) from error


# --- adding ---------------------------------------------------------------------------------------------


def _compressed_suffix(path: Path) -> str:
    """``.xml.gz`` / ``.xml.xz`` when the file starts like one (a download's name says nothing), else ``.xml``."""
    with path.open("rb") as handle:
        head = handle.read(6)
    return ".xml.gz" if head.startswith(b"\x1f\x8b") else ".xml.xz" if head.startswith(b"\xfd7zXZ\x00") else ".xml"


def _check_archive_size(label: str, archive: Path, limits: InputLimits) -> None:
    """Refuse an archive whose files add up to more than the limit, reading only its headers (streamed), before
    ``wn`` unpacks all of it into the system's temporary folder."""
    total = 0
    try:
        with tarfile.open(archive, "r|*") as tar:
            for member in tar:
                total += member.size
                if total > limits.max_snapshot_bytes:
                    limit = megabytes(limits.max_snapshot_bytes)
                    raise WordnetFileError(
                        label, None, "too_large", f"its files add up to more than {limit} (input limit "
                        "max_snapshot_mb); ask a lead to raise the limit if the package is genuine"
                    )  # fmt: skip
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as error:
        raise WordnetFileError(label, None, "not_compressed_lmf", f"cannot unpack it ({error})") from error


def _checked_download(package: str, archive: Path, scratch: Path, limits: InputLimits) -> list[CheckedFile]:
    if not tarfile.is_tarfile(archive):
        named = scratch / f"download{_compressed_suffix(archive)}"
        named.symlink_to(archive)
        return [check_file(package, named, scratch / "download-0.xml", limits)]
    _check_archive_size(package, archive, limits)
    from wn.project import iterpackages

    return [  # checked while iterating: wn removes its unpacked copies when the iteration ends
        check_file(
            f"{package} ({item.resource_file().name})", item.resource_file(), scratch / f"download-{n}.xml", limits
        )
        for n, item in enumerate(iterpackages(archive))
    ]


def _downloaded(package: str, folder: Path, scratch: Path, limits: InputLimits) -> list[CheckedFile]:
    """A ``wn`` package id or URL, downloaded into the project's folder; its WN-LMF file(s) checked like any file.

    A single (compressed) file is read through ``check_file``'s bounded reader; only an archive goes through
    ``wn``'s unpacking, once its listed sizes fit the limit: ``wn`` unpacks whole, before any check could stop it.
    """
    with using_folder(folder) as wn:
        downloads = Path(wn.config.downloads_directory)  # wn's cache, which wn makes 0755
        make_private_folder(downloads)
        make_private(downloads)
        try:
            archive = Path(wn.download(package, add=False, progress_handler=None))
        except Exception as error:  # wn raises its own errors and the network's
            raise LexiconError(f"{package}: cannot download this wn package ({error}). Nothing was added.") from error
        try:
            found = _checked_download(package, archive, scratch, limits)
        except LexiconError:
            archive.unlink(missing_ok=True)  # a refused download is not kept in the cache either
            raise
    if not found:
        raise LexiconError(f"{package}: the downloaded package holds no WN-LMF file. Nothing was added.")
    return found


def _english_rule(existing: Sequence[tuple[str, str, str]], files: Sequence[CheckedFile]) -> None:
    """The resulting set holds at most one English lexicon, and a new one is WordNet 3.0 (offsets in its ids)."""
    english = [f"{i}:{v}" for i, v, lang in existing if project_language(lang) == "EN"]
    present = {f"{i}:{v}" for i, v, _lang in existing}
    for checked in files:
        for lexicon in checked.lexicons:
            if not lexicon.is_english or lexicon.specifier in present:
                continue
            problem = lexicon.wordnet_30_problem()
            if problem:
                line = lexicon.unaligned[1] if lexicon.unaligned else lexicon.line
                raise WordnetFileError(
                    checked.label,
                    line,
                    "english_wordnet_30",
                    f"{problem}; add English WordNet 3.0 instead (package omw-en:1.4, or a wn30en WN-LMF file)",
                )
            if english:
                raise WordnetFileError(
                    checked.label,
                    lexicon.line,
                    "one_english_lexicon",
                    f"the project would have two English lexicons ({english[0]} and {lexicon.specifier}); a project "
                    f"has exactly one English WordNet 3.0 lexicon (remove the other first: 'annotator lexicon "
                    f"remove-wordnet {english[0]}')",
                )
            english.append(lexicon.specifier)


def _check_sources(
    sources: Sequence[str],
    folder: Path,
    scratch: Path,
    limits: InputLimits,
    progress: Callable[[int, int, str], None],
) -> list[CheckedFile]:
    checked: list[CheckedFile] = []
    seen: dict[str, str] = {}
    for number, label in enumerate(sources, start=1):
        path = Path(label).expanduser()
        remote = label.startswith(("https://", "http://"))
        if remote or (not path.exists() and _PACKAGE_ID.match(label) and not label.lower().endswith(LMF_SUFFIXES)):
            found = _downloaded(label, folder, scratch, limits)
        else:

            def bytes_read(done: int, total: int, name: str = path.name, number: int = number) -> None:
                progress(done // MB, max(total // MB, 1), f"MB read — checking {number}/{len(sources)} {name}")

            found = [check_file(label, path, scratch / f"source-{number}.xml", limits, bytes_read)]
        for one in found:
            for lexicon in one.lexicons:
                if lexicon.specifier in seen:
                    raise WordnetFileError(
                        one.label,
                        lexicon.line,
                        "duplicate_lexicon",
                        f"the lexicon {lexicon.specifier} is also in {seen[lexicon.specifier]}; give it once",
                    )
                seen[lexicon.specifier] = one.label
        checked.extend(found)
    return checked


def add_lexicons(
    folder: Path,
    sources: Sequence[str],
    progress: Callable[[int, int, str], None] | None = None,
    limits: InputLimits | None = None,
) -> list[LexiconInfo]:
    """Add WN-LMF files or ``wn`` package ids to the project's ``wn`` database in ``folder``, all or nothing.

    Every source is read and checked before anything is built; a lexicon already there (same id and version) is
    left as it is. Any refusal (``WordnetFileError``: file, line, rule) or interruption leaves the folder as it was.
    """
    if not sources:
        raise LexiconError("Give at least one WN-LMF file or wn package id.")
    report = progress or (lambda _done, _total, _message: None)
    limits = limits or InputLimits()
    with _exclusive(folder):
        build = Path(tempfile.mkdtemp(prefix=BUILD_PREFIX, dir=folder))
        try:
            checked = _check_sources(sources, folder, build, limits, report)
            existing = lexicon_rows(folder)
            _english_rule(existing, checked)
            present = {f"{i}:{v}" for i, v, _lang in existing}
            new = [one for one in checked if any(lex.specifier not in present for lex in one.lexicons)]
            pause_point("checked")
            indexes = [  # new lexicons' indexes, and any lost from the folder
                lexicon.index_file
                for one in checked
                for lexicon in one.lexicons
                if lexicon.index_file is not None
                and (lexicon.specifier not in present or not index_path(folder, lexicon.id, lexicon.version).exists())
            ]
            added = frozenset(lex.specifier for one in new for lex in one.lexicons if lex.specifier not in present)
            if new:
                _copy_database(folder, build / DATABASE)
                _add_to_copy(build, new, report)
                _check_result(build, present | added)
                _publish(folder, build, indexes)
            else:
                for index in indexes:  # an index lost by hand: written again, the database untouched
                    os.replace(index, folder / index.name)
            for one in checked:  # the relations suggestions follow, read from the same checked copy
                if any(not relations_path(folder, lex.id, lex.version).exists() for lex in one.lexicons):
                    write_relations(one.copy, folder)
        except OSError as error:  # a full disk or a read-only folder while writing the copy: nothing was replaced
            raise _cannot_build(folder, error) from error
        finally:
            with contextlib.suppress(OSError, KeyboardInterrupt):
                shutil.rmtree(build, ignore_errors=True)
    wanted = {lex.specifier for one in checked for lex in one.lexicons}
    return [info for info in installed_lexicons(folder, added) if info.specifier in wanted]


def _check_result(build: Path, expected: set[str]) -> None:
    found = set(lexicon_specifiers(build))
    if found != expected:
        raise LexiconError(
            f"The new wordnet database does not hold what was checked (expected {sorted(expected)}, found "
            f"{sorted(found)}); nothing was changed."
        )


# --- removing -------------------------------------------------------------------------------------------


def find_lexicon(folder: Path, wanted: str) -> LexiconInfo:
    """The lexicon named ``id`` or ``id:version``; an unknown or ambiguous name is refused with the ones there."""
    infos = installed_lexicons(folder)
    matches = [info for info in infos if wanted in (info.id, info.specifier)]
    there = ", ".join(info.specifier for info in infos) or "none"
    if not matches:
        raise LexiconError(f"No wordnet lexicon {wanted!r} in this project (its lexicons: {there}).")
    if len(matches) > 1:
        raise LexiconError(f"{wanted!r} names several lexicons ({there}): give one as id:version.")
    return matches[0]


def remove_lexicon(folder: Path, specifier: str) -> LexiconInfo:
    """Remove one lexicon (``id:version``) from the project's ``wn`` database, all or nothing, and its index."""
    with _exclusive(folder):
        info = find_lexicon(folder, specifier)
        build = Path(tempfile.mkdtemp(prefix=BUILD_PREFIX, dir=folder))
        try:
            _copy_database(folder, build / DATABASE)
            with using_folder(build) as wn:
                wn.remove(info.specifier, progress_handler=None)
            with contextlib.closing(sqlite3.connect(build / DATABASE)) as conn:
                conn.execute("VACUUM")  # the copy is private: give the removed lexicon's pages back
            _check_result(build, set(lexicon_specifiers(folder)) - {info.specifier})
            pause_point("removing")
            _publish(folder, build, [])
            index_path(folder, info.id, info.version).unlink(missing_ok=True)
            relations_path(folder, info.id, info.version).unlink(missing_ok=True)
        except (OSError, sqlite3.OperationalError) as error:  # a full disk: the old database stays in place
            raise _cannot_build(folder, error) from error
        finally:
            with contextlib.suppress(OSError, KeyboardInterrupt):
                shutil.rmtree(build, ignore_errors=True)
    return info


__all__ = [
    "LexiconInfo",
    "LexiconMetadata",
    "add_lexicons",
    "find_lexicon",
    "installed_lexicons",
    "lexicon_metadata",
    "lexicon_rows",
    "lexicon_specifiers",
    "remove_lexicon",
    "using_folder",
]
