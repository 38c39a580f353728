"""The BabelNet client against a broken or hostile server (issue 20, point 7), over real sockets.

Each fault is first shown to exist as described (the fake server really drips, really streams 400 MB, ...),
then the client's answer to it: a total deadline, a size cap, answers without senses refused, the key blanked
out of everything kept, and answers of one server never served for another. Nothing refused is cached.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from fake_babelnet import FakeBabelNet, sample_snapshot_data

from annotator.lexicon.babelnet import (
    DEADLINE_ENV,
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_ANSWER_BYTES,
    MAX_ANSWER_ENV,
    SYNSET_ENDPOINT,
    BabelNetLexicon,
)
from annotator.lexicon.babelnet_wire import redact_key
from annotator.lexicon.base import LexiconError, LexiconUnavailableError
from annotator.lexicon.http_cache import HttpCache, cache_key

DRINK = "bn:00057755n"
MB = 1024 * 1024


@pytest.fixture
def server() -> Iterator[FakeBabelNet]:
    with FakeBabelNet(sample_snapshot_data()) as fake:
        yield fake


def make_client(server: FakeBabelNet, cache_path: Path, **options: float) -> BabelNetLexicon:
    settings: dict[str, float] = {"timeout": 1.0, "max_retries": 2, "deadline": 2.0, "max_answer_bytes": MB}
    settings.update(options)
    return BabelNetLexicon(
        api_key=server.api_key,
        cache=HttpCache(cache_path),
        base_url=server.base_url,
        timeout=settings["timeout"],
        max_retries=int(settings["max_retries"]),
        backoff_base=0.001,
        backoff_max=0.01,
        deadline=settings["deadline"],
        max_answer_bytes=int(settings["max_answer_bytes"]),
        environ={},
    )


def raw_get(server: FakeBabelNet, endpoint: str, params: dict[str, str], read_timeout: float) -> requests.Response:
    """A plain ``requests`` call with only a per-read time-out: what the client did before."""
    return requests.get(
        server.base_url + endpoint, params={**params, "key": server.api_key}, timeout=read_timeout, stream=True
    )


def file_bytes(path: Path) -> bytes:
    return b"".join(candidate.read_bytes() for candidate in path.parent.glob(path.name + "*"))


# --- a server that drips --------------------------------------------------------------------------------------


@pytest.mark.parametrize("phase", ["body", "headers"])
def test_a_dripping_server_defeats_a_per_read_timeout(server: FakeBabelNet, phase: str) -> None:
    """The fault: one byte every 0.4 s never trips a 1 s per-read time-out, so a plain read is still going."""
    server.drip_next(None, 0.4, phase=phase)
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(raw_get(server, "getSynsetIds", {"lemma": "shot", "searchLang": "EN"}, 1.0).content)
        except requests.RequestException as error:
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(3.5)
    assert reader.is_alive() and outcome == []  # 3.5 s on, well past the 1 s time-out: still reading
    server.stop()  # ends the drip (and the reader)
    reader.join(5)


@pytest.mark.parametrize("phase", ["body", "headers"])
def test_a_dripping_server_fails_the_request_within_its_deadline(
    server: FakeBabelNet, tmp_path: Path, phase: str
) -> None:
    server.drip_next(None, 0.4, phase=phase)
    client = make_client(server, tmp_path / "cache.sqlite", deadline=2.0)
    started = time.monotonic()
    with pytest.raises(LexiconUnavailableError, match=r"no complete answer within its 2 s deadline") as failed:
        client.synset_ids("shot", "NOUN")
    elapsed = time.monotonic() - started
    assert 1.9 <= elapsed < 4.0  # the deadline, not the drip, decides: retries are inside it, not added to it
    assert server.count() == 1 and len(client.cache) == 0
    assert server.api_key not in str(failed.value) and DEADLINE_ENV in str(failed.value)


def test_retries_of_a_failing_server_stay_inside_the_deadline(server: FakeBabelNet, tmp_path: Path) -> None:
    server.delay_next(10, 0.8)  # each attempt times out (0.6 s per read): the deadline stops the retries
    client = make_client(server, tmp_path / "cache.sqlite", timeout=0.6, max_retries=10, deadline=2.0)
    started = time.monotonic()
    with pytest.raises(LexiconUnavailableError):
        client.synset_ids("shot", "NOUN")
    assert time.monotonic() - started < 3.5
    assert 2 <= server.count() <= 5


def test_a_slow_but_steady_answer_within_the_deadline_is_kept(server: FakeBabelNet, tmp_path: Path) -> None:
    server.delay_next(1, 0.5)
    client = make_client(server, tmp_path / "cache.sqlite", deadline=3.0)
    assert client.synset_ids("shot", "NOUN")[0] == DRINK and len(client.cache) == 1


# --- a huge answer --------------------------------------------------------------------------------------------


def test_the_fake_streams_a_real_400_mb_answer(server: FakeBabelNet) -> None:
    """The fault: a valid JSON answer of 400 MB, announced and sent whole (read here without keeping it)."""
    size = 400_000_000
    server.huge_next(1, size, endpoint=SYNSET_ENDPOINT)
    response = raw_get(server, "getSynset", {"id": DRINK, "targetLang": "EN"}, 10.0)
    assert int(response.headers["Content-Length"]) <= size
    received, first, last = 0, b"", b""
    for chunk in response.iter_content(4 * MB):
        first = first or chunk[:12]
        last = (last + chunk)[-20:]
        received += len(chunk)
    assert received == int(response.headers["Content-Length"]) > size - 200
    assert first == b'{"senses": [' and last.endswith(b'], "glosses": []}')


@pytest.mark.parametrize(
    ("content_length", "compressed"),
    [(True, False), (False, False), (False, True)],
    ids=["length", "no-length", "gzip"],
)
def test_an_answer_past_the_cap_is_refused_unread_and_not_cached(
    server: FakeBabelNet, tmp_path: Path, content_length: bool, compressed: bool
) -> None:
    server.huge_next(1, 400_000_000, content_length=content_length, compressed=compressed, endpoint=SYNSET_ENDPOINT)
    client = make_client(server, tmp_path / "cache.sqlite", max_answer_bytes=MB)
    with pytest.raises(LexiconError, match=r"answered more than 1 MB \(set ANNOTATOR_BABELNET_MAX_MB"):
        client.synset(DRINK, ["IT"])
    assert client.cache.count(SYNSET_ENDPOINT) == 0 and server.count() == 1  # not cached, not retried
    # The client stopped reading: far less than 400 MB went out (what the sockets buffer, at most).
    time.sleep(0.2)
    assert server.streamed_bytes < 64 * MB
    assert client.synset(DRINK, ["IT"]).gloss("EN") == "A small drink of liquor."  # a later ask gets through


def test_an_answer_under_the_cap_is_accepted(server: FakeBabelNet, tmp_path: Path) -> None:
    server.huge_next(1, 900_000, content_length=False, endpoint=SYNSET_ENDPOINT)
    client = make_client(server, tmp_path / "cache.sqlite", max_answer_bytes=MB)
    record = client.synset(DRINK, [])
    assert record.senses[0].lemma == "x" and client.cache.count(SYNSET_ENDPOINT) == 1


# --- answers without senses -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({}, "no senses"),
        ({"senses": [], "glosses": [{"language": "EN", "gloss": "x", "source": "WN"}]}, "no senses"),
        ({"senses": {"a": 1}}, "'senses' that is not a list"),
        (
            {
                "senses": [
                    {"type": "BabelSense", "properties": {"fullLemma": "sparo", "language": "IT", "source": "IWN"}}
                ]
            },
            "no English sense",
        ),
        ([], "list, expected an object"),
    ],
    ids=["empty-object", "empty-senses", "senses-not-a-list", "no-english", "list"],
)
def test_a_getsynset_answer_without_english_senses_is_an_error_and_not_cached(
    server: FakeBabelNet, tmp_path: Path, body: object, problem: str
) -> None:
    server.answer_next(1, body, endpoint=SYNSET_ENDPOINT)
    client = make_client(server, tmp_path / "cache.sqlite")
    with pytest.raises(LexiconError, match=f"answered {problem}; taken as an error") as failed:
        client.synset(DRINK, ["IT"])
    assert not isinstance(failed.value, LexiconUnavailableError)  # the item is skipped, the run goes on
    assert client.cache.count(SYNSET_ENDPOINT) == 0
    assert client.synset(DRINK, ["IT"]).senses  # asked again, not served a cached `{}`


# --- the key echoed back --------------------------------------------------------------------------------------


def test_a_key_echoed_in_glosses_and_lemmas_is_blanked_before_use_and_storage(
    server: FakeBabelNet, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key = server.api_key
    server.echo_key_next(None)
    response = raw_get(server, "getSynset", {"id": DRINK, "targetLang": "IT"}, 5.0)
    assert key in response.text and key.upper() in response.text  # the fault: the answer carries the key

    cache_path = tmp_path / "cache.sqlite"
    client = make_client(server, cache_path)
    record = client.synset(DRINK, ["IT", "DE"])
    shown = json.dumps([record.glosses, [sense.lemma for sense in record.senses]], ensure_ascii=False)
    assert key.lower() not in shown.lower() and "<redacted>" in shown
    assert record.gloss("EN") == "A small drink of liquor. (key <redacted>)"
    client.close()
    assert key.lower().encode() not in file_bytes(cache_path).lower()
    assert key not in caplog.text

    again = make_client(server, cache_path)  # served from the cache: still no key
    assert again.synset(DRINK, ["IT", "DE"]) == record and server.count() == 2


def test_redaction_reaches_every_string_and_object_key_at_any_depth() -> None:
    nested: object = "deep Secret-Key"
    for _ in range(40):
        nested = [nested]
    body, found = redact_key({"SECRET-KEY": ["a secret-key b", {"x": nested}], "n": 1}, "secret-key")
    text = json.dumps(body)
    assert found and "secret" not in text.lower() and text.count("<redacted>") == 3
    for _ in range(100):  # nothing BabelNet sends is nested this deep
        nested = [nested]
    with pytest.raises(LexiconError, match="nested more than 64 levels deep"):
        redact_key(nested, "secret-key")


# --- one server's answers never serve another ----------------------------------------------------------------


def test_the_cache_is_keyed_on_the_server_address(server: FakeBabelNet, tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    other_data = sample_snapshot_data()
    other_data["synsets"][2]["glosses"]["EN"] = "Another server's gloss."
    with FakeBabelNet(other_data) as other:
        assert make_client(other, cache_path).synset(DRINK, []).gloss("EN") == "Another server's gloss."
        real = make_client(server, cache_path)
        assert real.synset(DRINK, []).gloss("EN") == "A small drink of liquor."  # asked its own server
        assert server.count() == 1 and other.count() == 1
    assert cache_key("getSynset", [("id", "x")], "HTTP://User:pw@Host:8/v9") == "http://host:8/v9/getSynset?id=x"


# --- configuration ----------------------------------------------------------------------------------------------


def test_deadline_and_cap_come_from_the_environment_and_bad_values_are_refused(
    server: FakeBabelNet, tmp_path: Path
) -> None:
    cache = HttpCache(tmp_path / "cache.sqlite")
    default = BabelNetLexicon(server.api_key, cache, server.base_url, environ={})
    assert (default.deadline, default.max_answer_bytes) == (DEFAULT_DEADLINE_S, DEFAULT_MAX_ANSWER_BYTES)
    configured = BabelNetLexicon(
        server.api_key, cache, server.base_url, environ={DEADLINE_ENV: "90", MAX_ANSWER_ENV: "2.5"}
    )
    assert (configured.deadline, configured.max_answer_bytes) == (90.0, int(2.5 * MB))
    for bad in ("0", "-3", "soon", "inf", "nan"):
        with pytest.raises(LexiconError, match=f"{DEADLINE_ENV}='{bad}' is not a positive number"):
            BabelNetLexicon(server.api_key, cache, server.base_url, environ={DEADLINE_ENV: bad})
