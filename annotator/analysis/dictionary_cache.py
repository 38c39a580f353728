"""A fast-loading on-disk copy of simplemma's dictionaries, so scoring one language starts in a fraction of a second.

simplemma ships each language as an lzma-compressed front-coded stream and decodes it into a dict of a million
entries on first use (about a second for German, Russian or Spanish). Here the decoded dictionary is written once to
a file in the user's cache folder (``ANNOTATOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/annotator``, else
``~/.cache/annotator``), its records in simplemma's own sorted order so writing it is a few passes in C; later runs
map that file and look words up in it directly, without building a dict. A missing, stale (another simplemma
build) or corrupt file is rebuilt from simplemma's own data, written atomically; a cache folder that cannot be
written just means the copy lives in memory for this process only.

A first run looks words up in simplemma's decompressed front-coded stream itself (``FrontCodedIndex``: one
pass notes where the keys can be read from, a look-up reads a few dozen records), since only a few thousand of its
million words are asked; reading every record, encoding and writing the file is handed off so the run is not held
up by it: to a new interpreter that outlives the command (its own session, no terminal, stdio closed, so a caller
waiting on the command's pipes is not held) at the lowest priority, so on a busy machine it takes no core the
command wants; a thread writes it when no process can be started. Either way the write is atomic: a later run
reads a complete copy or builds it again. A command that knows its languages early (``start_reading``) starts that
process before it needs the dictionary: the process sends the index first, built beside the command's own start-up,
then writes the copy.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import json
import logging
import lzma
import mmap
import operator
import os
import struct
import subprocess
import sys
import threading
import zlib
from abc import abstractmethod
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from annotator.atomic_files import OutputRefused, write_bytes_atomic
from annotator.errors import UserError
from annotator.private_files import make_private_folder

if TYPE_CHECKING:  # simplemma is imported when a language first needs it: jieba's copy needs none of it
    import simplemma
    from simplemma.strategies import DictionaryLookupStrategy

logger = logging.getLogger(__name__)

CACHE_ENV = "ANNOTATOR_CACHE_DIR"
#: Bumped whenever the file layout changes, so an old file is rebuilt rather than misread.
FORMAT = 2
_MAGIC = b"ANNDICT\x00"
_HEAD = struct.Struct("<8sI")  # magic, length of the JSON header that follows
#: Separators inside a bucket: ``\x00key\x01value`` records, back to back.
_KEY_START, _VALUE_START = b"\x00", b"\x01"
_RECORD = b"\x00%b\x01%b"
#: Records per block: a look-up bisects the blocks' first keys, then searches one block.
BLOCK = 32
#: Words whose look-up a dictionary remembers (cleared when full: memory stays bounded on any input).
_MEMO_LIMIT = 200_000
_UNSEEN = object()
#: A first run's index of simplemma's stream notes the records sharing fewer bytes than this with the key before
#: them: few enough to keep the pass short, enough to keep each block a few dozen records (Cyrillic letters are
#: two bytes).
_SEED_SHARED = 10


def cache_root() -> Path:
    """The cache folder: ``ANNOTATOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/annotator``, else ``~/.cache/annotator``."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "annotator"


def _fingerprint(lang: str) -> str:
    """What the cached copy was built from: simplemma's version and its data file's size and time, if it has one."""
    import simplemma
    from simplemma.strategies.dictionaries import dictionary_factory

    version = str(getattr(simplemma, "__version__", "unknown"))
    data = Path(dictionary_factory.__file__ or ".").parent / "data" / f"{lang}.plzma"
    try:
        stat = data.stat()
    except OSError:
        return f"simplemma {version} {lang}"
    return f"simplemma {version} {lang} {stat.st_size} {stat.st_mtime_ns}"


class _LookUpMapping(Mapping[str, str]):
    """A read-only str → str mapping whose subclasses find one key (``_find``); ``get``, indexing and ``in`` go
    through a memo of the words asked, as simplemma asks for the same word again (its variants, then the analyser's
    question whether the dictionary knows the word at all)."""

    __slots__ = ()
    _memo: dict[str, str | None]

    @abstractmethod
    def _find(self, key: str) -> str | None:
        """The value stored for ``key``, None when the dictionary has no such key."""

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        memo = self._memo
        found = memo.get(key, _UNSEEN)
        if found is _UNSEEN:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            found = memo[key] = self._find(key)
        return default if found is None else found

    def __getitem__(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return str(value)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None


class SortedDictionary(_LookUpMapping):
    """A read-only str → str mapping over one file's bytes: records sorted by key, in blocks of ``BLOCK`` records.

    A look-up bisects the blocks' first keys (a short list, split once on load) and searches one block with
    ``bytes.find``: about a microsecond. Keys sorted as simplemma's file keeps them make the copy cheap to write
    (records in the order they are read, no hashing or regrouping) and nothing has to be built when it is loaded.
    """

    __slots__ = ("_base", "_blob", "_count", "_firsts", "_memo", "_offsets")

    def __init__(self, blob: bytes | mmap.mmap, base: int, offsets: array, firsts: list[bytes], count: int) -> None:
        self._blob = blob
        self._base = base
        self._offsets = offsets
        self._firsts = firsts
        self._count = count
        self._memo: dict[str, str | None] = {}

    def _find(self, key: str) -> str | None:
        raw = key.encode("utf-8", "surrogatepass")
        block = bisect_right(self._firsts, raw) - 1
        if block < 0:
            return None
        base, blob = self._base, self._blob
        start, end = base + self._offsets[block], base + self._offsets[block + 1]
        needle = _KEY_START + raw + _VALUE_START
        found = blob.find(needle, start, end)
        if found < 0:
            return None
        value_start = found + len(needle)
        value_end = blob.find(_KEY_START, value_start, end)
        return blob[value_start : end if value_end < 0 else value_end].decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        records = self._blob[self._base + self._offsets[0] : self._base + self._offsets[-1]]
        for record in records.split(_KEY_START)[1:]:
            yield record.split(_VALUE_START, 1)[0].decode("utf-8", "surrogatepass")

    def __len__(self) -> int:
        return self._count


class FrontCodedIndex(_LookUpMapping):
    """A read-only str → str mapping over simplemma's front-coded stream itself, what a first run looks words up in.

    A front-coded key is the first bytes of the key before it plus its own suffix, so keys can only be read in
    order; but a record sharing fewer than ``_SEED_SHARED`` bytes needs no more of the key before it than its first
    ``_SEED_SHARED`` bytes. One pass over the stream keeps just those bytes and notes each such record (its key and
    where it starts): a seed. A look-up bisects the seeds' keys and reads the records of one seed's block. The
    pass builds only the seeds' keys, where reading every record builds them all; the complete copy is read in the
    background (``_keep_copy``).
    """

    __slots__ = ("_count", "_data", "_firsts", "_memo", "_starts")

    def __init__(self, data: bytes, count: int, firsts: list[bytes], starts: Sequence[int]) -> None:
        self._data = data
        self._count = count
        self._firsts = firsts
        self._starts = starts
        self._memo: dict[str, str | None] = {}

    @classmethod
    def of(cls, data: bytes, position: int, count: int) -> FrontCodedIndex | None:
        """The index of the stream ``data`` whose records start at ``position``; None when it is truncated or its
        keys are not in order."""
        seeds = _seeds(data, position)
        if seeds is None:
            return None
        firsts = seeds[0]
        if not all(map(operator.lt, firsts, itertools.islice(firsts, 1, None))):
            return None
        return cls(data, count, firsts, seeds[1])

    def send(self, out: BinaryIO) -> None:
        """Write the index for ``_received_index``: its head, the stream, the seeds' keys joined by a byte none
        holds, their starts; nothing when a key holds that byte (the receiver then indexes the stream itself)."""
        firsts = _KEY_START.join(self._firsts)
        if firsts.count(_KEY_START) != len(self._firsts) - 1:
            return
        starts = array("Q", self._starts).tobytes()
        out.write(_INDEX_HEAD.pack(self._count, len(self._data), len(firsts), len(self._firsts), len(starts)))
        out.write(self._data)
        out.write(firsts)
        out.write(starts)
        out.flush()

    def _find(self, key: str) -> str | None:
        raw = key.encode("utf-8", "surrogatepass")
        block = bisect_right(self._firsts, raw) - 1
        if block < 0:
            return None
        for found, value in self._block(block):
            if found == raw:
                return (value if value is not None else self._value_before(block)).decode("utf-8", "surrogatepass")
            if found > raw:
                break
        return None

    def _block(self, block: int) -> Iterator[tuple[bytes, bytes | None]]:
        """The (key, value) records of one block; a value None is the value of the record before the block."""
        data = self._data
        end = self._starts[block + 1] if block + 1 < len(self._starts) else len(data)
        return _records(data, self._starts[block], end, self._firsts[block])

    def _value_before(self, block: int) -> bytes:
        """The value of the last record before ``block`` (a run of records sharing one value may span blocks)."""
        while block > 0:
            block -= 1
            value = list(self._block(block))[-1][1]  # a block holds one record at least, its seed
            if value is not None:
                return value
        return b""  # simplemma's decoder starts from an empty value

    def __iter__(self) -> Iterator[str]:
        for block in range(len(self._starts)):
            for key, _ in self._block(block):
                yield key.decode("utf-8", "surrogatepass")

    def __len__(self) -> int:
        return self._count


def _encode(entries: Mapping[bytes, bytes], fingerprint: str) -> bytes | None:
    """The file for ``entries``; None when a key or value holds a separator byte (then nothing is cached)."""
    pairs = sorted(entries.items())
    return _encode_sorted([key for key, _ in pairs], [value for _, value in pairs], fingerprint)


def _encode_sorted(keys: Sequence[bytes], values: Sequence[bytes], fingerprint: str) -> bytes | None:
    """The file for the entries ``keys[i]`` → ``values[i]``, ``keys`` strictly increasing; None when a key or value
    holds a separator byte (then nothing is cached).

    Done in C but for one pass: each record formatted by ``bytes %``, the separators counted in all records at once,
    the block offsets summed from the records' lengths.
    """
    records = list(map(_RECORD.__mod__, zip(keys, values, strict=True)))
    records_blob = b"".join(records)
    if records_blob.count(_KEY_START) != len(keys) or records_blob.count(_VALUE_START) != len(keys):
        return None  # a key or value holds a separator byte: it could not be read back
    ends = itertools.accumulate(map(len, records), initial=0)
    offsets = array("I", itertools.islice(ends, 0, None, BLOCK))
    if len(keys) % BLOCK:
        offsets.append(len(records_blob))
    if sys.byteorder != "little":
        offsets.byteswap()
    firsts = _KEY_START.join(itertools.islice(keys, 0, None, BLOCK))
    table = offsets.tobytes()
    crc = zlib.crc32(records_blob, zlib.crc32(firsts, zlib.crc32(table)))  # of the body, without joining it twice
    facts = {"format": FORMAT, "fingerprint": fingerprint, "count": len(keys), "block": BLOCK}
    header = json.dumps({**facts, "blocks": len(offsets) - 1, "firsts": len(firsts), "crc": crc}).encode()
    return b"".join((_HEAD.pack(_MAGIC, len(header)), header, table, firsts, records_blob))


def _decode(blob: bytes | mmap.mmap, fingerprint: str) -> SortedDictionary:
    """The mapping stored in ``blob``; ValueError when the file is not a complete, uncorrupted copy of ours."""
    if len(blob) < _HEAD.size:
        raise ValueError("truncated header")
    magic, size = _HEAD.unpack_from(blob)
    if magic != _MAGIC:
        raise ValueError("not a dictionary cache file")
    try:
        header = json.loads(blob[_HEAD.size : _HEAD.size + size])
        blocks, firsts_size, count, crc = (int(header[name]) for name in ("blocks", "firsts", "count", "crc"))
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"bad header: {error}") from error
    if header.get("format") != FORMAT or header.get("fingerprint") != fingerprint or header.get("block") != BLOCK:
        raise ValueError("built from another simplemma")
    start = _HEAD.size + size
    if blocks < 0 or len(blob) < start + 4 * (blocks + 1) + firsts_size:
        raise ValueError("truncated table")
    if zlib.crc32(memoryview(blob)[start:]) != crc:
        raise ValueError("checksum mismatch")
    offsets = array("I")
    if offsets.itemsize != 4:
        raise ValueError("no 4-byte unsigned array type here")
    offsets.frombytes(blob[start : start + 4 * (blocks + 1)])
    if sys.byteorder != "little":
        offsets.byteswap()
    firsts_start = start + 4 * (blocks + 1)
    firsts = blob[firsts_start : firsts_start + firsts_size].split(_KEY_START) if blocks else []
    base = firsts_start + firsts_size
    if offsets[0] != 0 or base + offsets[-1] != len(blob) or len(firsts) != blocks:
        raise ValueError("table does not match the records")
    return SortedDictionary(blob, base, offsets, firsts, count)


def _raw_entries(mapping: Mapping[str, str]) -> Mapping[bytes, bytes]:
    """simplemma's dictionary as bytes → bytes: the UTF-8 dict its default factory wraps when it is there (no
    decoding and encoding again of a million words), else read through its public mapping interface."""
    inner = getattr(mapping, "_dict", None)
    if type(inner) is dict and all(type(key) is bytes for key in itertools.islice(inner, 1)):
        return inner
    return {_utf8(key): _utf8(value) for key, value in mapping.items()}


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def cache_file(lang: str, root: Path | None = None) -> Path:
    """Where the cached dictionary of ``lang`` lives."""
    return (root or cache_root()) / "simplemma" / f"{lang}.v{FORMAT}.dict"


class CachedDictionaryFactory:
    """A simplemma ``DictionaryFactory`` reading the cached copy of each language, building it when needed.

    ``root`` overrides the cache folder (tests); each language is loaded once per factory.
    """

    def __init__(self, root: Path | None = None) -> None:
        self._root = root
        self._loaded: dict[str, Mapping[str, str]] = {}

    def get_dictionary(self, lang: str) -> Mapping[str, str]:
        found = self._loaded.get(lang)
        if found is None:
            found = self._loaded[lang] = self._load(lang)
        return found

    def _load(self, lang: str) -> Mapping[str, str]:
        path = cache_file(lang, self._root)
        fingerprint = _fingerprint(lang)
        try:
            return _decode(_mapped(path), fingerprint)
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as error:
            logger.info("rebuilding the cached simplemma dictionary %s (%s)", path, error)
        reader = _READERS.pop(path, None)
        if reader is not None:
            with _WRITERS_LOCK:
                _CHILDREN.append(reader)  # it writes the copy, whether it sent its index or not
            index = _received_index(reader)
            if index is not None:
                return index
        from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY

        found = _front_coded_index(lang) or DEFAULT_DICTIONARY_FACTORY.get_dictionary(lang)  # ValueError: unknown
        _keep_copy(path, lang, fingerprint)  # a reader that sent no index may have written no copy either
        return found


def _mapped(path: Path) -> mmap.mmap:
    """The file mapped read-only: its pages are read from the system's cache as look-ups reach them, never copied
    whole into this process (the copy is replaced by renaming, never rewritten in place, so a mapping stays sound).
    ValueError for an empty file."""
    with path.open("rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


_WRITERS: list[threading.Thread] = []
_CHILDREN: list[subprocess.Popen[bytes]] = []
#: Reader processes started ahead (``start_reading``), by the copy they write, until the language is first used.
_READERS: dict[Path, subprocess.Popen[bytes]] = {}
_WRITERS_LOCK = threading.Lock()


def _keep_copy(path: Path, lang: str, fingerprint: str) -> None:
    """Read, encode and write the copy without holding up this run: in a process of its own that outlives this one,
    at the lowest priority, else (no process to spare) on a thread the interpreter waits for before it exits."""
    with _WRITERS_LOCK:
        _CHILDREN[:] = [child for child in _CHILDREN if child.poll() is None]
        try:
            _CHILDREN.append(_start_writer(path, lang, index=False))
            return
        except OSError as error:  # the thread below does the same work
            logger.info("cannot start the dictionary cache writer (%s); writing on a thread", error)
        _WRITERS[:] = [t for t in _WRITERS if t.is_alive()]
        thread = threading.Thread(target=_write_copy, args=(path, lang, fingerprint), name="annotator-dictionary-cache")
        _WRITERS.append(thread)
    thread.start()


def start_reading(langs: Iterable[str], root: Path | None = None) -> None:
    """Start indexing simplemma's stream of each language in ``langs`` that has no copy in the cache folder yet, in a
    process of its own, while this one goes on with its own start-up; the index is taken on the language's first
    use, and the same process then writes the copy. A command on a first run calls it as soon as it knows its
    languages: on a machine with a core to spare the index costs the command little more than a wait. A language
    never used, or one simplemma does not know, just leaves a process that writes its copy, or nothing."""
    for lang in langs:
        if not (lang.isascii() and lang.isalpha()):
            continue  # no language code simplemma has: nothing to read
        path = cache_file(lang, root)
        if path in _READERS or path.exists():
            continue
        try:
            _READERS[path] = _start_writer(path, lang, index=True)
        except OSError as error:  # the first use indexes the stream itself
            logger.info("cannot start the dictionary reader (%s)", error)


def _start_writer(path: Path, lang: str, *, index: bool) -> subprocess.Popen[bytes]:
    """A new interpreter that writes the copy (``write_copy_main``), after sending the stream's index on its stdout
    when ``index`` (it starts at the normal priority then, as the command waits for it, and lowers it after).

    Started, not forked, so this process's memory is not copied page by page while it runs on, and threads here hold
    no lock the child could inherit. Its own session and /dev/null as stdio, so neither a terminal's Ctrl-C nor a
    caller waiting on this command's pipes reaches or waits for it."""
    if not sys.executable:
        raise OSError("no Python executable to run")
    package_root = str(Path(__file__).resolve().parents[2])  # the child imports this very copy of annotator
    search = os.pathsep.join(filter(None, (package_root, os.environ.get("PYTHONPATH"))))
    code = f"from {__name__} import {write_copy_main.__name__} as main; main()"
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(path), lang, "index" if index else "write"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if index else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": search},
        start_new_session=True,
    )
    if not index:
        _lowest_priority(child.pid)
    return child


def _lowest_priority(pid: int) -> None:
    """Give process ``pid`` the lowest priority, so it takes only a core the command and its neighbours leave idle.

    A new session is also a new scheduling group where Linux groups tasks by session (autogroup), and groups share
    the cores as equals whatever their tasks' nice values: the group's nice is lowered too, else the writer takes a
    core's half from the run that started it on a busy machine."""
    if not hasattr(os, "setpriority"):
        return  # not a POSIX system
    try:
        os.setpriority(os.PRIO_PROCESS, pid, 19)
        with open(f"/proc/{pid}/autogroup", "w", encoding="ascii") as autogroup:
            autogroup.write("19")
    except OSError:  # no autogroup here (another system, or it is off), or the child is already gone
        pass


def write_copy_main() -> None:
    """The writer process's entry point: ``argv`` = the copy's path, the language, ``index`` (send the index of
    simplemma's stream on stdout first) or ``write``."""
    path, lang, mode = sys.argv[1:4]
    if mode == "index":
        with contextlib.suppress(OSError):  # a broken pipe: the command did not need it, the copy is still written
            _send_index(lang, sys.stdout.buffer)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())  # the command's pipe closes here: its read ends
        _lowest_priority(os.getpid())
    _write_copy(Path(path), lang, _fingerprint(lang))


#: What a reader process sends before the index's parts: the record count and the parts' lengths.
_INDEX_HEAD = struct.Struct("<5Q")


def _send_index(lang: str, out: BinaryIO) -> None:
    """Send the ``FrontCodedIndex`` of ``lang`` (nothing when there is none): its head, the stream, the seeds' keys
    joined by a byte none holds, their starts."""
    data = _shipped_stream(lang)
    header = None if data is None else _stream_header(data)
    if data is None or header is None:
        return
    count, position = header
    found = FrontCodedIndex.of(data, position, count)
    if found is not None:
        found.send(out)


def _shipped_stream(lang: str) -> bytes | None:
    """simplemma's stream for ``lang`` decompressed from the file it ships, found without importing the package (its
    language detector alone takes longer to import than the file to read, and a reader is waited for); None when
    there is no such file. The same bytes as simplemma's private ``_read_decompressed`` (pinned in constraints.txt)."""
    spec = importlib.util.find_spec("simplemma")
    folders = [] if spec is None else list(spec.submodule_search_locations or [])
    if not (folders and lang.isascii() and lang.isalpha()):
        return None
    try:
        with lzma.open(Path(folders[0], "strategies", "dictionaries", "data", f"{lang}.plzma")) as stream:
            return stream.read()
    except (OSError, lzma.LZMAError):
        return None


#: The head of simplemma's front-coded stream: magic, a flag byte (keys stored reversed), the record count.
_STREAM_MAGIC, _REVERSED_KEYS = b"SMFC1", 1


def _stream_header(data: bytes) -> tuple[int, int] | None:
    """(record count, where the records start) of a front-coded stream whose keys are in order; None for another
    stream, one with reversed keys, or a truncated head."""
    start = len(_STREAM_MAGIC)
    if data[:start] != _STREAM_MAGIC or len(data) <= start or data[start] & _REVERSED_KEYS:
        return None
    try:
        return _varint(data, start + 1)
    except IndexError:
        return None


def _received_index(reader: subprocess.Popen[bytes]) -> FrontCodedIndex | None:
    """The index a reader process sent (waiting for it); None when it sent none or not all of it."""
    pipe = reader.stdout
    if pipe is None:
        return None
    with pipe:
        head = pipe.read(_INDEX_HEAD.size)
        if len(head) != _INDEX_HEAD.size:
            return None
        count, data_size, firsts_size, seeds, starts_size = _INDEX_HEAD.unpack(head)
        data, firsts, table = pipe.read(data_size), pipe.read(firsts_size), pipe.read(starts_size)
    starts = array("Q")
    if len(data) != data_size or len(firsts) != firsts_size or len(table) != starts_size or starts.itemsize != 8:
        return None
    starts.frombytes(table)
    keys = firsts.split(_KEY_START) if seeds else []
    if len(keys) != seeds or len(starts) != seeds:
        return None
    return FrontCodedIndex(data, count, keys, starts)


def wait_for_cache_writes() -> None:
    """Block until the cache copies this process handed off are on disk (tests, and benchmarks that time a warm
    start)."""
    with _WRITERS_LOCK:
        pending = list(_WRITERS)
        _WRITERS.clear()
        for reader in _READERS.values():  # never used: the index is not wanted, the copy is
            if reader.stdout is not None:
                reader.stdout.close()
        _CHILDREN.extend(_READERS.values())
        _READERS.clear()
        for child in _CHILDREN:
            child.wait()
        _CHILDREN.clear()
    for thread in pending:
        thread.join()


def _write_copy(path: Path, lang: str, fingerprint: str) -> None:
    encoded = _encode_sorted(*_sorted_entries(lang), fingerprint)
    if encoded is None:  # a separator byte in a word: that language stays uncached
        logger.info("cannot cache the simplemma dictionary in %s (a word holds a separator byte)", path)
        return
    try:
        write_bytes_atomic(path, encoded)
    except (OSError, UserError) as error:  # a cache that cannot be kept is only slower
        logger.info("cannot cache the simplemma dictionary in %s (%s)", path, error)


def _sorted_entries(lang: str) -> tuple[list[bytes], list[bytes]]:
    """simplemma's entries for ``lang`` as UTF-8 keys in increasing order and their values: read straight from its
    front-coded file when this simplemma has one, else from the dict it builds (ValueError: unknown language)."""
    from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY

    found = _front_coded_entries(lang)
    if found is not None:
        return found
    pairs = sorted(_raw_entries(DEFAULT_DICTIONARY_FACTORY.get_dictionary(lang)).items())
    return [key for key, _ in pairs], [value for _, value in pairs]


def _front_coded_index(lang: str) -> FrontCodedIndex | None:
    """simplemma's front-coded stream for ``lang`` indexed for look-ups in place (``FrontCodedIndex``); None when
    this simplemma has another layout, its keys are stored reversed or the language is not one it ships.

    Reads simplemma's private stream (pinned in constraints.txt), kept for a measured gain a user sees: a first
    run's dictionary costs about a third of reading every record (benchmarks/RESULTS.md)."""
    try:
        from simplemma.strategies.dictionaries import dictionary_factory, frontcode

        data = dictionary_factory._read_decompressed(lang)
        reverse, count, position = frontcode._read_header(data)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    return None if reverse else FrontCodedIndex.of(data, position, count)


def _front_coded_entries(lang: str) -> tuple[list[bytes], list[bytes]] | None:
    """simplemma's front-coded file for ``lang`` read into sorted keys and their values, without building its dict;
    None when this simplemma has another layout or the language is not one it ships.

    Private readers of simplemma (pinned in constraints.txt): the copy is written from the records in the order the
    file keeps them, with no dict built and taken apart; any other layout falls back to simplemma's dict."""
    try:
        from simplemma.strategies.dictionaries import dictionary_factory, frontcode

        data = dictionary_factory._read_decompressed(lang)
        reverse, count, position = frontcode._read_header(data)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    if reverse:
        return None  # keys stored reversed: not in the copy's order
    found = _read_front_coded(data, position)
    if found is None or len(found[0]) != count:
        return None
    keys = found[0]
    if not all(map(operator.lt, keys, itertools.islice(keys, 1, None))):
        return None
    return found


#: Trim bytes of simplemma's front-coded records that are not trims: the value is the previous one, or a literal.
_SAME_VALUE, _LITERAL_VALUE = 254, 255


def _read_front_coded(data: bytes, position: int) -> tuple[list[bytes], list[bytes]] | None:
    """The (key, value) records of a front-coded stream from ``position``, decoded as simplemma's ``frontcode`` does:
    a key is the length it shares with the previous key and its own suffix; a value is the previous one, a literal,
    or its key less a trim plus a tail (lengths are LEB128 varints, nearly all one byte). None for a truncated stream.

    One loop of slices over the stream, the keys and values kept in two lists: this is the only per-record work
    of building a copy, so nothing else happens in it.
    """
    keys: list[bytes] = []
    values: list[bytes] = []
    add_key, add_value = keys.append, values.append
    key = value = b""
    end = len(data)
    try:
        while position < end:
            shared, length = data[position], data[position + 1]
            if (shared | length) & 0x80:  # a length past 127: written on more bytes
                shared, start = _varint(data, position)
                length, start = _varint(data, start)
            else:
                start = position + 2
            position = start + length
            key = key[:shared] + data[start:position]
            trim = data[position]
            if trim == _SAME_VALUE:
                position += 1
            else:
                length = data[position + 1]
                if length & 0x80:
                    length, start = _varint(data, position + 1)
                else:
                    start = position + 2
                position = start + length
                tail = data[start:position]
                value = tail if trim == _LITERAL_VALUE else key[: len(key) - trim] + tail
            add_key(key)
            add_value(value)
    except IndexError:
        return None
    return (keys, values) if position == end else None


def _seeds(data: bytes, position: int) -> tuple[list[bytes], list[int]] | None:
    """The keys and starts of the records from ``position`` sharing fewer than ``_SEED_SHARED`` bytes with the key
    before them (the first record is one); None for a truncated stream.

    Only the first ``_SEED_SHARED`` bytes of the key before are kept: a record sharing more leaves them unchanged,
    so every other record is just stepped over.
    """
    firsts: list[bytes] = []
    starts: list[int] = []
    add_first, add_start = firsts.append, starts.append
    head = b""
    end = len(data)
    limit, same = _SEED_SHARED, _SAME_VALUE  # locals: this loop steps over every record
    try:
        while position < end:
            shared, length = data[position], data[position + 1]
            if (shared | length) & 0x80:
                shared, start = _varint(data, position)
                length, start = _varint(data, start)
            else:
                start = position + 2
            if shared < limit:
                key = head[:shared] + data[start : start + length]
                head = key[:limit]
                add_first(key)
                add_start(position)
            position = start + length
            if data[position] == same:
                position += 1
            else:
                length = data[position + 1]
                if length & 0x80:
                    length, start = _varint(data, position + 1)
                    position = start + length
                else:
                    position += 2 + length
    except IndexError:
        return None
    return (firsts, starts) if position == end else None


def _records(data: bytes, position: int, end: int, key: bytes) -> Iterator[tuple[bytes, bytes | None]]:
    """The (key, value) records from ``position`` to ``end``, read as ``_read_front_coded`` reads them, from a
    record whose key shares with ``key`` what it shares with the key before it (a seed, given its own key). A value
    None is the value before ``position``."""
    value: bytes | None = None
    while position < end:
        shared, length = data[position], data[position + 1]
        if (shared | length) & 0x80:
            shared, start = _varint(data, position)
            length, start = _varint(data, start)
        else:
            start = position + 2
        position = start + length
        key = key[:shared] + data[start:position]
        trim = data[position]
        if trim == _SAME_VALUE:
            position += 1
        else:
            length = data[position + 1]
            if length & 0x80:
                length, start = _varint(data, position + 1)
            else:
                start = position + 2
            position = start + length
            tail = data[start:position]
            value = tail if trim == _LITERAL_VALUE else key[: len(key) - trim] + tail
        yield key, value


def _varint(data: bytes, position: int) -> tuple[int, int]:
    """(value, next position) of the LEB128 varint at ``position``."""
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7


def cached_lemmatizer(root: Path | None = None) -> simplemma.Lemmatizer:
    """simplemma's default lemmatizer (the one ``simplemma.lemmatize`` builds) over the cached dictionaries."""
    return cached_strategies(root)[0]


def cached_strategies(root: Path | None = None) -> tuple[simplemma.Lemmatizer, DictionaryLookupStrategy]:
    """The default lemmatizer and the plain dictionary look-up (is a word in the dictionary at all?) over one set of
    cached dictionaries, so each language is read once for both."""
    import simplemma
    from simplemma.strategies import DefaultStrategy, DictionaryLookupStrategy

    factory = CachedDictionaryFactory(root)
    strategy = DefaultStrategy(dictionary_factory=factory)
    return simplemma.Lemmatizer(lemmatization_strategy=strategy), DictionaryLookupStrategy(dictionary_factory=factory)


# --- jieba ----------------------------------------------------------------------------------------------------------

_JIEBA_MAGIC = b"ANNJIEBA"


def _jieba_fingerprint(jieba: Any) -> str:
    version = str(getattr(jieba, "__version__", "unknown"))
    try:
        stat = Path(jieba.__file__).with_name("dict.txt").stat()
    except OSError:
        return f"jieba {version}"
    return f"jieba {version} {stat.st_size} {stat.st_mtime_ns}"


def _encode_freq(freq: Mapping[str, int], total: int, fingerprint: str) -> bytes | None:
    """jieba's prefix dictionary as one newline-joined text and an array of counts (None if a word has a newline)."""
    words = "\n".join(freq)
    if words.count("\n") != len(freq) - 1:
        return None
    counts = array("q", freq.values())
    if sys.byteorder != "little":
        counts.byteswap()
    body = words.encode("utf-8", "surrogatepass") + counts.tobytes()
    facts = {"format": FORMAT, "fingerprint": fingerprint, "count": len(freq), "total": total}
    header = json.dumps({**facts, "text_bytes": len(body) - len(counts) * 8, "crc": zlib.crc32(body)}).encode()
    return _HEAD.pack(_JIEBA_MAGIC, len(header)) + header + body


def _decode_freq(blob: bytes, fingerprint: str) -> tuple[dict[str, int], int]:
    """(FREQ, total) as jieba's ``initialize`` would set them; ValueError when the file is not a sound copy."""
    if len(blob) < _HEAD.size:
        raise ValueError("truncated header")
    magic, size = _HEAD.unpack_from(blob)
    if magic != _JIEBA_MAGIC:
        raise ValueError("not a jieba cache file")
    try:
        header = json.loads(blob[_HEAD.size : _HEAD.size + size])
        count, total, text_bytes, crc = (int(header[k]) for k in ("count", "total", "text_bytes", "crc"))
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"bad header: {error}") from error
    if header.get("format") != FORMAT or header.get("fingerprint") != fingerprint:
        raise ValueError("built from another jieba")
    start = _HEAD.size + size
    if len(blob) != start + text_bytes + 8 * count or zlib.crc32(memoryview(blob)[start:]) != crc:
        raise ValueError("truncated or corrupt")
    words = blob[start : start + text_bytes].decode("utf-8", "surrogatepass").split("\n")
    counts = array("q")
    counts.frombytes(blob[start + text_bytes :])
    if sys.byteorder != "little":
        counts.byteswap()
    if len(words) != count:
        raise ValueError("word count mismatch")
    return dict(zip(words, counts.tolist(), strict=True)), total


def jieba_tokenizer(root: Path | None = None) -> Any:
    """An initialised ``jieba.Tokenizer`` whose prefix dictionary is read from the cache folder when it is there.

    jieba's own cache is a marshalled dict (0.6-0.8 s to load); this copy loads in about a third of that. A missing,
    stale or corrupt copy is rebuilt after jieba's own ``initialize`` (whose cache also lives in the folder).
    """
    import jieba

    tokenizer = jieba.Tokenizer()
    folder = (root or cache_root()) / "jieba"
    path = folder / f"freq.v{FORMAT}.bin"
    fingerprint = _jieba_fingerprint(jieba)
    try:
        tokenizer.FREQ, tokenizer.total = _decode_freq(path.read_bytes(), fingerprint)
        tokenizer.initialized = True  # what jieba's initialize() sets after loading the same two values
        return tokenizer
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as error:
        logger.info("rebuilding the cached jieba dictionary %s (%s)", path, error)
    try:
        make_private_folder(folder)
        tokenizer.tmp_dir = str(folder)
    except OSError:
        pass  # jieba then keeps its cache in the system's temporary folder
    tokenizer.initialize()
    encoded = _encode_freq(tokenizer.FREQ, tokenizer.total, fingerprint)
    if encoded is not None:
        try:
            write_bytes_atomic(path, encoded)
        except (OSError, OutputRefused) as error:  # a cache that cannot be kept is only slower
            logger.info("cannot cache the jieba dictionary in %s (%s)", path, error)
    return tokenizer
