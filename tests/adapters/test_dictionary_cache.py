"""The on-disk copies of simplemma's and jieba's dictionaries (issue 9: start-up): rebuilt when missing, stale or
corrupt, and the analyses read through them are exactly simplemma's and jieba's own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import simplemma

from annotator.analysis import default as default_module
from annotator.analysis.default import DefaultAnalyser
from annotator.analysis.dictionary_cache import (
    CACHE_ENV,
    FORMAT,
    CachedDictionaryFactory,
    FrontCodedIndex,
    SortedDictionary,
    _encode,
    _encode_freq,
    _fingerprint,
    _jieba_fingerprint,
    _raw_entries,
    cache_file,
    cached_lemmatizer,
    jieba_tokenizer,
    start_reading,
    wait_for_cache_writes,
)

#: Italian: simplemma's smallest dictionary of the benchmark languages, so each cold build stays short.
LANG = "it"
WORDS = [
    "gocce", "spari", "colpi", "scatti", "bevuto", "versato", "cacciatori", "Prendersi", "permesso", "case",
    "dell'acqua", "sparare", "fotografie", "bicchieri", "xqzvtrk", "ricorrerebbero", "SPARI", "lunghissimo",
]  # fmt: skip
TEXTS = ["Il cacciatore spara due colpi nel bosco.", "Ha versato un goccio dell'acqua nei bicchieri."]


def _lemmas(root: Path) -> list[str]:
    lemmatizer = cached_lemmatizer(root)
    lemmas = [lemmatizer.lemmatize(word, LANG) for word in WORDS]
    wait_for_cache_writes()  # a missing copy is written in the background
    return lemmas


def _analyses(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[object]:
    monkeypatch.setenv(CACHE_ENV, str(root))
    monkeypatch.setattr(default_module, "_LEMMATIZERS", {})  # a fresh process's state: the file is read again
    analyses = list(DefaultAnalyser().analyse(TEXTS, LANG.upper()))
    wait_for_cache_writes()
    return analyses


def test_missing_file_is_built_and_gives_simplemmas_lemmas(tmp_path: Path) -> None:
    path = cache_file(LANG, tmp_path)
    assert not path.exists()
    first = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    assert isinstance(first, FrontCodedIndex)  # the first run looks words up in simplemma's stream itself...
    wait_for_cache_writes()
    assert path.exists()  # ...while the file is written by a child process
    assert _lemmas(tmp_path) == [simplemma.lemmatize(word, LANG) for word in WORDS]
    assert path.stat().st_size > 1_000_000
    loaded = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    assert isinstance(loaded, SortedDictionary)  # the second load reads the file instead of simplemma's data
    assert _lemmas(tmp_path) == [simplemma.lemmatize(word, LANG) for word in WORDS]


def test_the_file_holds_every_entry_of_simplemmas_dictionary(tmp_path: Path) -> None:
    first = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    wait_for_cache_writes()
    cached = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    source = simplemma.strategies.dictionaries.DEFAULT_DICTIONARY_FACTORY.get_dictionary(LANG)
    assert isinstance(first, FrontCodedIndex) and isinstance(cached, SortedDictionary)
    for mapping in (first, cached):
        assert len(mapping) == len(source)
        assert dict(mapping.items()) == dict(source.items())
        assert mapping.get("no-such-word-xq") is None and "no-such-word-xq" not in mapping
        assert mapping.get("") is None and mapping.get("\U0010ffff") is None  # before the first and after the last


def test_a_process_with_other_threads_hands_its_copy_to_a_writer_process(tmp_path: Path) -> None:
    """A server (other threads running) starts a writer process too (started, not forked: no lock of a thread is
    inherited), waited for, and the copy is sound."""
    import threading

    from annotator.analysis import dictionary_cache

    wait_for_cache_writes()  # copies handed off earlier in this process are done, so none is counted below
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
        assert len(dictionary_cache._CHILDREN) == 1 and not dictionary_cache._WRITERS  # a process, no thread
        wait_for_cache_writes()
    finally:
        stop.set()
        other.join()
    assert isinstance(CachedDictionaryFactory(tmp_path).get_dictionary(LANG), SortedDictionary)


def test_with_no_process_to_start_the_copy_is_written_on_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotator.analysis import dictionary_cache

    wait_for_cache_writes()
    monkeypatch.setattr(sys, "executable", "")  # no interpreter to start: the writer cannot be a process
    CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    assert not dictionary_cache._CHILDREN and len(dictionary_cache._WRITERS) == 1
    wait_for_cache_writes()
    assert isinstance(CachedDictionaryFactory(tmp_path).get_dictionary(LANG), SortedDictionary)


def test_the_writer_process_runs_at_the_lowest_priority_in_a_group_of_its_own(tmp_path: Path) -> None:
    """The writer leaves the command's session (so a terminal's signals do not reach it) and yields every core
    the command wants: nice 19, and where Linux groups tasks by session (autogroup), the new group's nice is 19
    too, else the group would share the cores with the command's as an equal."""
    from annotator.analysis import dictionary_cache

    wait_for_cache_writes()
    CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    (child,) = dictionary_cache._CHILDREN
    try:
        assert os.getsid(child.pid) == child.pid != os.getsid(0)
        assert os.getpriority(os.PRIO_PROCESS, child.pid) == 19
        autogroup = Path(f"/proc/{child.pid}/autogroup")
        if autogroup.exists():
            assert autogroup.read_text().split()[-1] == "19", autogroup.read_text()
    finally:
        wait_for_cache_writes()
    assert child.returncode == 0
    assert isinstance(CachedDictionaryFactory(tmp_path).get_dictionary(LANG), SortedDictionary)


def _simplemma_sample() -> list[tuple[str, str | None]]:
    """Every 50th word of simplemma's own dictionary with its value, and words it does not hold (value None)."""
    from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY

    own = DEFAULT_DICTIONARY_FACTORY.get_dictionary(LANG)
    words = sorted(own)[::50]
    absent = [word + "qx" for word in words[::7]] + ["", "\U0010ffff", "0"]
    return [(word, own[word]) for word in words] + [(word, None) for word in absent if word not in own]


def test_a_reader_started_ahead_hands_over_its_index_and_writes_the_copy(tmp_path: Path) -> None:
    """``start_reading`` indexes simplemma's stream in another process while the caller goes on; the first use takes
    that index (answering as simplemma's dictionary does), starts no writer of its own, and the reader then writes
    a sound copy."""
    from annotator.analysis import dictionary_cache

    wait_for_cache_writes()
    start_reading([LANG], tmp_path)
    path = cache_file(LANG, tmp_path)
    reader = dictionary_cache._READERS[path]
    index = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    assert isinstance(index, FrontCodedIndex)
    assert dictionary_cache._CHILDREN[-1] is reader and not dictionary_cache._READERS and not dictionary_cache._WRITERS
    for word, value in _simplemma_sample():
        assert index.get(word) == value, word
    wait_for_cache_writes()
    assert reader.returncode == 0
    copy = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    assert isinstance(copy, SortedDictionary)
    assert all(copy.get(word) == value for word, value in _simplemma_sample())


def test_a_reader_whose_language_is_never_used_still_writes_its_copy(tmp_path: Path) -> None:
    start_reading([LANG], tmp_path)
    wait_for_cache_writes()  # nobody takes the index: the pipe is closed, the copy is written all the same
    assert isinstance(CachedDictionaryFactory(tmp_path).get_dictionary(LANG), SortedDictionary)


def test_a_reader_that_dies_before_sending_leaves_the_first_use_to_index_and_write(tmp_path: Path) -> None:
    from annotator.analysis import dictionary_cache

    wait_for_cache_writes()
    start_reading([LANG], tmp_path)
    reader = dictionary_cache._READERS[cache_file(LANG, tmp_path)]
    reader.kill()
    reader.wait()
    index = CachedDictionaryFactory(tmp_path).get_dictionary(LANG)
    assert isinstance(index, FrontCodedIndex)
    assert all(index.get(word) == value for word, value in _simplemma_sample())
    assert [child for child in dictionary_cache._CHILDREN if child is not reader]  # a writer in its place
    wait_for_cache_writes()
    assert isinstance(CachedDictionaryFactory(tmp_path).get_dictionary(LANG), SortedDictionary)


def test_a_reader_is_started_only_for_a_missing_copy_of_a_language_code(
    tmp_path: Path, built_cache: tuple[Path, list[object]]
) -> None:
    """No process for a language whose copy is there, nor for a name that is no language code (``../x`` would be a
    path outside the folder); a code simplemma does not ship gets a reader that sends and writes nothing, and its
    first use fails as simplemma's does."""
    from annotator.analysis import dictionary_cache

    wait_for_cache_writes()
    root, _ = built_cache
    start_reading([LANG, "../x", "i t", "", "де"], root)
    assert not dictionary_cache._READERS
    start_reading(["qq"], tmp_path)
    assert list(dictionary_cache._READERS) == [cache_file("qq", tmp_path)]
    with pytest.raises(ValueError):
        CachedDictionaryFactory(tmp_path).get_dictionary("qq")
    wait_for_cache_writes()
    assert not cache_file("qq", tmp_path).exists()


def test_a_reader_reads_the_stream_simplemma_ships_as_simplemma_does() -> None:
    """The reader finds and decompresses simplemma's file without importing simplemma: the same bytes and head as
    simplemma's own readers; a language it does not ship, a name that is no code and a stream of another kind give
    none."""
    from simplemma.strategies.dictionaries import dictionary_factory, frontcode

    from annotator.analysis.dictionary_cache import _shipped_stream, _stream_header

    data = _shipped_stream(LANG)
    assert data is not None and data == dictionary_factory._read_decompressed(LANG)
    reverse, count, position = frontcode._read_header(data)
    assert not reverse and _stream_header(data) == (count, position)
    assert _shipped_stream("qq") is None and _shipped_stream("../it") is None
    assert _stream_header(b"SMFC1") is None and _stream_header(b"SMFC1\x01\x05") is None  # truncated, reversed
    assert _stream_header(b"XXXXX\x00\x05") is None and _stream_header(b"SMFC1\x00\x85") is None


@pytest.mark.parametrize("sent", [b"", b"\x01\x02", None], ids=["nothing", "a torn head", "a torn body"])
def test_an_index_sent_incomplete_is_not_taken(sent: bytes | None) -> None:
    """A reader that ends before sending all it announced gives no index (the caller then indexes the stream)."""
    from annotator.analysis.dictionary_cache import _INDEX_HEAD, _received_index

    if sent is None:
        sent = _INDEX_HEAD.pack(3, 100, 10, 2, 16) + b"x" * 50  # 100 bytes of stream announced, 50 sent
    writer = "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))"
    reader = subprocess.Popen([sys.executable, "-c", writer, sent.hex()], stdout=subprocess.PIPE)
    try:
        assert _received_index(reader) is None
    finally:
        reader.wait()


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[object]]:
    """A cache folder built once from cold, and the analyses read through it: what every damaged copy must give."""
    root = tmp_path_factory.mktemp("dictionary-cache") / "built"
    with pytest.MonkeyPatch.context() as monkeypatch:
        analyses = _analyses(monkeypatch, root)
    return root, analyses


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "garbage", "empty", "stale"])
def test_a_damaged_file_is_rebuilt_with_identical_analyses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str, built_cache: tuple[Path, list[object]]
) -> None:
    built, expected = built_cache
    root = tmp_path / "damaged"
    shutil.copytree(built, root)  # the same file a cold run writes, built once for the five kinds of damage
    path = cache_file(LANG, root)
    good = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "flipped byte":
        middle = len(good) // 2
        path.write_bytes(good[:middle] + bytes([good[middle] ^ 0x5A]) + good[middle + 1 :])
    elif damage == "garbage":
        path.write_bytes(b"not a dictionary at all" * 100)
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # built by another simplemma: same layout, another fingerprint
        source = simplemma.strategies.dictionaries.DEFAULT_DICTIONARY_FACTORY.get_dictionary(LANG)
        encoded = _encode(_raw_entries(source), _fingerprint(LANG) + " elsewhere")
        assert encoded is not None
        path.write_bytes(encoded)
    assert path.read_bytes() != good
    assert _analyses(monkeypatch, root) == expected  # the damaged file was not used...
    assert path.read_bytes() == good  # ...and was rebuilt
    assert isinstance(CachedDictionaryFactory(root).get_dictionary(LANG), SortedDictionary)


def test_an_unwritable_cache_folder_still_lemmatises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder cannot be created under a file")
    assert _analyses(monkeypatch, blocker) == _analyses(monkeypatch, tmp_path / "fine")
    assert not cache_file(LANG, blocker).exists()


ZH_TEXTS = ["他倒了一小杯威士忌。", "猎人在树林里开了一枪，拍了一张照片。", "源头的水很清。"]


def _segmented(tokenizer: object) -> list[list[tuple[str, int, int]]]:
    return [list(tokenizer.tokenize(text)) for text in ZH_TEXTS]  # type: ignore[attr-defined]


def test_jieba_copy_is_built_then_read_and_segments_as_jieba_does(tmp_path: Path) -> None:
    import jieba

    reference = jieba.Tokenizer()
    reference.tmp_dir = str(tmp_path / "jieba-own")
    (tmp_path / "jieba-own").mkdir()
    reference.initialize()
    built = jieba_tokenizer(tmp_path)
    path = tmp_path / "jieba" / f"freq.v{FORMAT}.bin"
    assert path.exists()
    read = jieba_tokenizer(tmp_path)
    assert read.FREQ == reference.FREQ and read.total == reference.total
    assert _segmented(read) == _segmented(built) == _segmented(reference)


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "stale"])
def test_a_damaged_jieba_copy_is_rebuilt(tmp_path: Path, damage: str) -> None:
    import jieba

    expected = _segmented(jieba_tokenizer(tmp_path))
    path = tmp_path / "jieba" / f"freq.v{FORMAT}.bin"
    good = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(good[:-100])
    elif damage == "flipped byte":
        middle = len(good) // 2
        path.write_bytes(good[:middle] + bytes([good[middle] ^ 0x21]) + good[middle + 1 :])
    else:
        tokenizer = jieba_tokenizer(tmp_path)
        encoded = _encode_freq(tokenizer.FREQ, tokenizer.total, _jieba_fingerprint(jieba) + " elsewhere")
        assert encoded is not None
        path.write_bytes(encoded)
    assert path.read_bytes() != good
    assert _segmented(jieba_tokenizer(tmp_path)) == expected
    assert path.read_bytes() == good


# --- analysis shortcuts: jieba's loops and simplemma's decoder ------------------------------------------------------


def _chinese_sentences(count: int) -> list[str]:
    """Dictionary words, characters jieba has never seen (its HMM runs on them), punctuation and Latin runs."""
    import random
    from pathlib import Path

    import jieba

    rng = random.Random(9)
    lines = Path(jieba.__file__).with_name("dict.txt").read_text(encoding="utf-8").splitlines()
    words = [line.split(" ")[0] for line in rng.sample(lines, 3000)]
    sentences = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(2, 12)):
            draw = rng.random()
            if draw < 0.7:
                parts.append(rng.choice(words))
            elif draw < 0.9:
                parts.append("".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(1, 4))))
            else:
                parts.append(rng.choice(["，", "。", " ", "DeepL 3", "一枪", "源头", "?"]))
        sentences.append("".join(parts))
    return sentences


def test_fast_jieba_loops_give_jieba_s_graph_route_and_words():
    import jieba

    from annotator.analysis.dictionary_cache import jieba_tokenizer

    fast = jieba_tokenizer()
    reference = jieba.Tokenizer()  # jieba's own loops over the same dictionary
    reference.FREQ, reference.total, reference.initialized = fast.FREQ, fast.total, True
    for sentence in _chinese_sentences(400):
        dag = reference.get_DAG(sentence)
        assert fast.get_DAG(sentence) == dag, sentence
        fast_route: dict[int, tuple[float, int]] = {}
        reference_route: dict[int, tuple[float, int]] = {}
        fast.calc(sentence, dag, fast_route)
        reference.calc(sentence, dag, reference_route)
        assert fast_route == reference_route, sentence  # the same floats: the same arithmetic in the same order
        assert list(fast.cut(sentence)) == list(reference.cut(sentence)), sentence


def _evaluate_in_a_fresh_process(
    tmp_path: Path, cache: Path, run: str, one_core: bool = False
) -> subprocess.CompletedProcess[str]:
    """``annotator evaluate`` as a user runs it: its own interpreter, the given (possibly empty) cache folder."""
    record = {
        "id": "i1", "sentence": "He fired two shots.",
        "target": {"text": "shots", "start": 13, "end": 18, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:1n", "gloss": "", "source": "test", "polysemy_degree": None, "sense_rank": None, "senses": [],
        "languages": {"IT": {
            "good": [{"text": "sparo", "pos": None, "origin": "translator", "synsets": []}],
            "bad": [{"text": "goccio", "pos": None, "origin": "translator", "synsets": []}],
        }},
    }  # fmt: skip
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text(json.dumps(record) + "\n", encoding="utf-8")
    translations = tmp_path / "mt.jsonl"
    line = {"id": "i1", "lang": "IT", "system": "s", "translation": "Ha sparato due spari nel bosco."}
    translations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    env = {**os.environ, CACHE_ENV: str(cache), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = ["evaluate", str(dataset), str(translations), "--out", str(tmp_path / run)]
    pin = (lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})) if one_core else None
    return subprocess.run(
        [sys.executable, "-m", "annotator.cli", *command],
        env=env, capture_output=True, text=True, timeout=600, preexec_fn=pin,
    )  # fmt: skip


@pytest.mark.parametrize("one_core", [False, True], ids=["two cores", "one core"])
def test_a_command_line_run_leaves_its_dictionary_copy_and_the_next_run_starts_warm(
    tmp_path: Path, one_core: bool
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    first = _evaluate_in_a_fresh_process(tmp_path, cache, "first", one_core)
    assert first.returncode == 0, first.stderr
    assert "1 GOOD" in first.stdout
    path = cache_file(LANG, cache)
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:  # written by a child that outlives the command
        time.sleep(0.05)
    assert path.exists()
    written = path.stat()
    assert isinstance(CachedDictionaryFactory(cache).get_dictionary(LANG), SortedDictionary)  # a sound copy
    second = _evaluate_in_a_fresh_process(tmp_path, cache, "second")
    assert second.returncode == 0, second.stderr
    assert "1 GOOD" in second.stdout
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)  # read, not built again


def test_the_copy_read_from_simplemma_s_file_is_the_copy_of_its_dict() -> None:
    """A copy is read from simplemma's front-coded file straight (no dict built first): the same bytes as the copy
    of simplemma's own dict."""
    from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY

    from annotator.analysis.dictionary_cache import _encode_sorted, _front_coded_entries

    streamed = _front_coded_entries(LANG)
    assert streamed is not None
    fingerprint = _fingerprint(LANG)
    from_dict = _encode(_raw_entries(DEFAULT_DICTIONARY_FACTORY.get_dictionary(LANG)), fingerprint)
    assert from_dict is not None and _encode_sorted(*streamed, fingerprint) == from_dict


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        out.append((number & 0x7F) | (0x80 if number > 0x7F else 0))
        number >>= 7
        if not number:
            return bytes(out)


def test_front_coded_records_read_as_simplemma_reads_them() -> None:
    """Every kind of record of simplemma's front-coded format, long lengths (several varint bytes) included, read
    into the same entries as simplemma's own decoder gives; a truncated stream is refused."""
    from simplemma.strategies.dictionaries import frontcode

    from annotator.analysis.dictionary_cache import _read_front_coded

    long_word = "x" * 200  # its suffix and the next key's shared length take two varint bytes
    records = [  # (shared with the previous key, suffix, trim byte, value tail)
        (0, "Haus", 255, "Haus"),  # a literal value
        (4, "e", 254, ""),  # the previous value again
        (4, "es", 2, ""),  # the key less two bytes
        (0, "laufen", 0, ""),  # the key itself
        (0, long_word, 255, "lang"),
        (200, "y", 1, "z" * 150),  # a tail of 150 bytes: a two-byte length
    ]
    body = bytearray()
    for shared, suffix, trim, tail in records:
        body += _varint(shared) + _varint(len(suffix.encode())) + suffix.encode() + bytes([trim])
        if trim != 254:
            body += _varint(len(tail.encode())) + tail.encode()
    stream = b"SMFC1" + bytes([0]) + _varint(len(records)) + bytes(body)
    reverse, count, position = frontcode._read_header(stream)
    assert not reverse and count == len(records)
    found = _read_front_coded(stream, position)
    assert found is not None
    assert dict(zip(*found, strict=True)) == frontcode._decode_stream(stream)
    assert found[0][-1] == (long_word + "y").encode() and found[1][-1] == (long_word + "z" * 150).encode()
    assert _read_front_coded(stream[:-3], position) is None


def _shared_length(first: bytes, second: bytes) -> int:
    common = min(len(first), len(second))
    return next((n for n in range(common) if first[n] != second[n]), common)


def _front_coded(entries: dict[bytes, bytes]) -> bytes:
    """A stream in simplemma's front-coded format holding ``entries`` (keys in order, each value written the
    shortest way: the previous value again, the key less a trim plus a tail, or a literal)."""
    body = bytearray()
    previous_key = previous_value = b""
    for key in sorted(entries):
        value = entries[key]
        shared = _shared_length(previous_key, key)
        body += _varint(shared) + _varint(len(key) - shared) + key[shared:]
        kept = _shared_length(key, value)
        if value == previous_value and previous_key:
            body.append(254)
        elif len(key) - kept < 254:
            body += bytes([len(key) - kept]) + _varint(len(value) - kept) + value[kept:]
        else:
            body += bytes([255]) + _varint(len(value)) + value
        previous_key, previous_value = key, value
    return b"SMFC1" + bytes([0]) + _varint(len(entries)) + bytes(body)


def test_a_first_run_looks_words_up_in_simplemma_s_stream_as_simplemma_decodes_it() -> None:
    """The index of a front-coded stream answers every key, and every word that is not one, as simplemma's own
    decoder does: keys sharing long prefixes (few seeds), runs of one value spanning several blocks, Cyrillic and
    long keys (several varint bytes), words before the first key, after the last and between two."""
    import random

    from simplemma.strategies.dictionaries import frontcode

    rng = random.Random(4)
    stems = ["перевоспит", "Haus", "zzzzzzzzzzzzzzzz", "a", "x" * 200, "шко", "überschreib"]
    entries: dict[bytes, bytes] = {}
    for _ in range(3000):
        stem = rng.choice(stems)
        word = stem + "".join(rng.choice("aeinrstäжыё") for _ in range(rng.randint(0, 8)))
        lemma = stem if rng.random() < 0.8 else word[: rng.randint(1, len(word))] + rng.choice(["", "en", "ть"])
        entries[word.encode()] = lemma.encode()
    stream = _front_coded(entries)
    expected = frontcode._decode_stream(stream)
    assert expected == entries  # the stream is sound: simplemma reads back what was written
    _, count, position = frontcode._read_header(stream)
    index = FrontCodedIndex.of(stream, position, count)
    assert index is not None and len(index) == len(entries)
    assert list(index) == [key.decode() for key in sorted(entries)]
    for key, value in entries.items():
        word = key.decode()
        assert index.get(word) == value.decode(), word
        for absent in (word + "q", word[:-1] + "\U0010ffff", "0" + word):
            if absent.encode() not in entries:
                assert index.get(absent) is None and absent not in index, absent
    assert index.get("") is None and index.get("\U0010ffff") is None
    assert FrontCodedIndex.of(stream[:-3], position, count) is None  # a truncated stream is not indexed
