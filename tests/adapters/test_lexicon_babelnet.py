"""The BabelNet client against a real local HTTP server speaking BabelNet's JSON, with a real SQLite cache."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from fake_babelnet import QUOTA_MESSAGE, FakeBabelNet, sample_snapshot_data

from annotator.lexicon.babelnet import (
    SYNSET_ENDPOINT,
    SYNSET_IDS_ENDPOINT,
    BabelNetLexicon,
    load_api_key,
)
from annotator.lexicon.babelnet_wire import clean_lemma, language_chunks
from annotator.lexicon.base import Lexicon, LexiconError, LexiconQuotaError, SynsetRecord
from annotator.lexicon.http_cache import HttpCache, cache_key

FIVE_LANGUAGES = ["ZH", "IT", "DE", "RU", "ES"]
SHOT_IN_BABELNET_ORDER = ["bn:00057755n", "bn:00070983n", "bn:00070966n", "bn:00070986n", "bn:00070978n"]
SHOT_RANKS = {"bn:00070966n": 1, "bn:00070978n": 2, "bn:00057755n": 3, "bn:00070986n": 4, "bn:00070983n": 5}
#: One getSynsetIds plus two getSynset calls for each of the five synsets.
REQUESTS_FOR_A_FULL_RUN = 1 + 2 * len(SHOT_IN_BABELNET_ORDER)


@pytest.fixture
def server() -> Iterator[FakeBabelNet]:
    with FakeBabelNet(sample_snapshot_data()) as fake:
        yield fake


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "babelnet-cache.sqlite"


def make_client(server: FakeBabelNet, cache_path: Path, **options: float) -> BabelNetLexicon:
    settings: dict[str, float] = {"timeout": 2.0, "max_retries": 3, "backoff_base": 0.001, "backoff_max": 0.01}
    settings.update(options)
    return BabelNetLexicon(
        api_key=server.api_key,
        cache=HttpCache(cache_path),
        base_url=server.base_url,
        timeout=settings["timeout"],
        max_retries=int(settings["max_retries"]),
        backoff_base=settings["backoff_base"],
        backoff_max=settings["backoff_max"],
    )


def full_run(lexicon: BabelNetLexicon, langs: list[str] = FIVE_LANGUAGES) -> dict[str, SynsetRecord]:
    """What pre-population asks for one item: Ω(shot, NOUN) and every synset in the project languages."""
    return {synset_id: lexicon.synset(synset_id, langs) for synset_id in lexicon.synset_ids("shot", "NOUN")}


def cache_file_bytes(path: Path) -> bytes:
    """The cache database and its WAL/SHM side files, as stored on disk."""
    return b"".join(candidate.read_bytes() for candidate in path.parent.glob(path.name + "*"))


# --- answers ----------------------------------------------------------------------------------------------


def test_ranks_come_from_wordnet_sense_number_not_from_babelnet_order(server: FakeBabelNet, cache_path: Path) -> None:
    client = make_client(server, cache_path)
    ids = client.synset_ids("shot", "NOUN")
    records = {synset_id: client.synset(synset_id, ["IT"]) for synset_id in ids}

    assert ids == SHOT_IN_BABELNET_ORDER
    assert {synset_id: record.wordnet_sense_number("shot") for synset_id, record in records.items()} == SHOT_RANKS
    assert records["bn:00057755n"].wordnet_sense_number("nip") == 1  # each lemma has its own number
    # OMW wordnet senses are WordNetSense-typed on the wire with a number, but only English WN ranks count.
    italian = [sense for sense in records["bn:00057755n"].senses if sense.lang == "IT"]
    assert italian and all(sense.wordnet_sense_number is None for sense in italian)


def test_the_wire_format_keeps_the_sense_number_inside_properties(server: FakeBabelNet) -> None:
    """Guards the fake itself: it must send what BabelNet sends, or the test above proves nothing."""
    answer = requests.get(
        server.base_url + "getSynset", params={"id": "bn:00057755n", "targetLang": "EN", "key": server.api_key}
    ).json()
    wordnet = [s for s in answer["senses"] if s["type"] == "WordNetSense" and s["properties"]["source"] == "WN"]
    assert {s["properties"]["fullLemma"]: s["properties"]["wordNetSenseNumber"] for s in wordnet} == {
        "shot": 3,
        "nip": 1,
    }
    assert all("wordNetSenseNumber" not in sense for sense in answer["senses"])


def test_five_languages_take_exactly_two_getsynset_calls_per_synset(server: FakeBabelNet, cache_path: Path) -> None:
    records = full_run(make_client(server, cache_path))

    assert server.counts == {SYNSET_IDS_ENDPOINT: 1, SYNSET_ENDPOINT: 2 * len(SHOT_IN_BABELNET_ORDER)}
    for synset_id in SHOT_IN_BABELNET_ORDER:
        calls = [r for r in server.requests if r.endpoint == SYNSET_ENDPOINT and r.value("id") == synset_id]
        assert sorted(tuple(r.values("targetLang")) for r in calls) == [("EN", "DE", "ES", "IT"), ("EN", "RU", "ZH")]
    drink = records["bn:00057755n"]
    assert {sense.lang for sense in drink.senses} == {"EN", "DE", "ES", "IT", "RU", "ZH"}
    assert [sense.lemma for sense in drink.senses if sense.lang == "ZH"] == ["一口"]
    assert drink.gloss("DE") == "Eine kleine Menge Schnaps."
    assert drink.gloss("IT") == "A small drink of liquor."  # no Italian gloss: English stands in
    assert drink.pos == "NOUN"


def test_chunking_does_not_depend_on_the_callers_language_order(server: FakeBabelNet, cache_path: Path) -> None:
    assert language_chunks(["zh", "IT", "EN", "de", "RU", "ES", "IT"]) == [("DE", "ES", "IT"), ("RU", "ZH")]
    assert language_chunks(["EN"]) == [()]
    client = make_client(server, cache_path)
    first = client.synset("bn:00070966n", ["ZH", "RU", "IT", "ES", "DE"])
    before = server.count()
    again = client.synset("bn:00070966n", ["DE", "ES", "IT", "RU", "ZH"])
    assert server.count() == before
    assert again == first


def test_a_second_run_with_a_new_client_makes_no_request(server: FakeBabelNet, cache_path: Path) -> None:
    first_client = make_client(server, cache_path)
    first = full_run(first_client)
    first_client.close()
    assert server.count() == REQUESTS_FOR_A_FULL_RUN

    second_client = make_client(server, cache_path)
    second = full_run(second_client)

    assert server.count() == REQUESTS_FOR_A_FULL_RUN
    assert second == first
    assert sum(count.requests for count in second_client.counts.values()) == 0  # all answered by the cache
    assert second_client.cache_hits == REQUESTS_FOR_A_FULL_RUN


def test_underscores_become_spaces_and_wikipedia_qualifiers_are_dropped(server: FakeBabelNet, cache_path: Path) -> None:
    raw = requests.get(
        server.base_url + "getSynset",
        params=[("id", "bn:00070966n"), ("targetLang", "EN"), ("targetLang", "IT"), ("key", server.api_key)],
    ).json()
    assert "colpo_di_pistola" in {sense["properties"]["fullLemma"] for sense in raw["senses"]}

    client = make_client(server, cache_path)
    gunshot = client.synset("bn:00070966n", ["IT"])
    assert "colpo di pistola" in {sense.lemma for sense in gunshot.senses}
    assert all("_" not in sense.lemma for sense in gunshot.senses)
    drink = client.synset("bn:00057755n", [])
    assert ("Shot", "WIKI") in {(sense.lemma, sense.source) for sense in drink.senses}
    assert client.synset_ids_in("colpo di pistola", "IT", "NOUN") == ["bn:00070966n"]
    assert clean_lemma("prendersi_un__permesso") == "prendersi un permesso"


def test_english_gloss_prefers_wordnet(cache_path: Path) -> None:
    with FakeBabelNet(sample_snapshot_data(), decoy_english_gloss=True) as server:
        record = make_client(server, cache_path).synset("bn:00057755n", ["DE"])
    assert record.gloss("EN") == "A small drink of liquor."
    assert record.glosses == {"EN": "A small drink of liquor.", "DE": "Eine kleine Menge Schnaps."}


def test_client_is_a_lexicon_named_babelnet_with_the_api_version(server: FakeBabelNet, cache_path: Path) -> None:
    client = make_client(server, cache_path)
    assert isinstance(client, Lexicon)
    assert (client.name, client.version) == ("babelnet", "v9")


def test_a_cache_from_another_api_version_is_refused(server: FakeBabelNet, cache_path: Path) -> None:
    make_client(server, cache_path).close()
    with pytest.raises(LexiconError, match=r"API v9.*v10"):
        BabelNetLexicon(api_key="k", cache=HttpCache(cache_path), base_url="https://babelnet.io/v10/")


# --- quota ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("refusal_status", [200, 403])
def test_quota_stops_the_run_keeps_the_work_and_a_rerun_resumes(cache_path: Path, refusal_status: int) -> None:
    with FakeBabelNet(sample_snapshot_data(), refusal_status=refusal_status) as server:
        server.exhaust_quota_after(4)
        with pytest.raises(LexiconQuotaError) as stopped:
            full_run(make_client(server, cache_path))
        assert QUOTA_MESSAGE in str(stopped.value)
        assert server.count() == 5  # four answered, the fifth refused and not retried

        with HttpCache(cache_path) as cache:
            assert cache.count() == 4
        assert b"daily requests limit" not in cache_file_bytes(cache_path)

        server.lift_quota()
        resumed_client = make_client(server, cache_path)
        resumed = full_run(resumed_client)
        assert sum(count.requests for count in resumed_client.counts.values()) == REQUESTS_FOR_A_FULL_RUN - 4
        assert resumed_client.cache_hits == 4
        assert {synset_id: record.wordnet_sense_number("shot") for synset_id, record in resumed.items()} == SHOT_RANKS


def test_a_wrong_key_is_reported_as_a_refusal_without_the_key(server: FakeBabelNet, cache_path: Path) -> None:
    wrong_key = "not-the-right-key-93jd"
    client = BabelNetLexicon(api_key=wrong_key, cache=HttpCache(cache_path), base_url=server.base_url)
    with pytest.raises(LexiconQuotaError) as refused:
        client.synset_ids("shot", "NOUN")
    assert QUOTA_MESSAGE in str(refused.value)
    assert wrong_key not in str(refused.value)
    assert server.requests[0].key_ok is False
    assert client.cache.count() == 0


def test_a_bad_request_message_is_an_error_but_not_a_quota_stop(server: FakeBabelNet, cache_path: Path) -> None:
    client = make_client(server, cache_path)
    with pytest.raises(LexiconError) as failed:
        client.synset("bn:99999999n", ["IT"])
    assert not isinstance(failed.value, LexiconQuotaError)
    assert "bn:99999999n" in str(failed.value)
    assert client.cache.count() == 0


# --- retries ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 503, 429])
def test_transient_http_errors_are_retried(server: FakeBabelNet, cache_path: Path, status: int) -> None:
    server.fail_next(2, status)
    client = make_client(server, cache_path)
    assert client.synset_ids("shot", "NOUN") == SHOT_IN_BABELNET_ORDER
    assert server.count(SYNSET_IDS_ENDPOINT) == 3
    assert client.counts[SYNSET_IDS_ENDPOINT].requests == 3
    assert client.counts[SYNSET_IDS_ENDPOINT].retries == 2
    assert "3 requests (2 retries)" in client.summary()


def test_a_timeout_is_retried(server: FakeBabelNet, cache_path: Path) -> None:
    server.delay_next(1, 0.6)
    client = make_client(server, cache_path, timeout=0.15)
    record = client.synset("bn:00070966n", ["IT"])
    assert record.wordnet_sense_number("shot") == 1
    assert client.counts[SYNSET_ENDPOINT].requests == 2


def test_exhausted_retries_name_the_request_but_never_the_key(server: FakeBabelNet, cache_path: Path) -> None:
    server.fail_next(10, 500)
    client = make_client(server, cache_path, max_retries=2)
    with pytest.raises(LexiconError) as failed:
        client.synset_ids("shot", "NOUN")
    message = str(failed.value)
    assert "getSynsetIds" in message and "lemma=shot" in message and "HTTP 500" in message
    assert "3 attempts" in message
    assert server.api_key not in message and server.api_key not in repr(failed.value)
    assert failed.value.__cause__ is None and failed.value.__context__ is None
    assert server.count() == 3
    assert client.cache.count() == 0


def test_exhausted_timeouts_raise_a_lexicon_error(server: FakeBabelNet, cache_path: Path) -> None:
    server.delay_next(3, 0.5)
    client = make_client(server, cache_path, timeout=0.1, max_retries=1)
    with pytest.raises(LexiconError, match=r"no answer within 0\.1 s") as failed:
        client.synset("bn:00070966n", ["IT"])
    assert server.api_key not in str(failed.value)


def test_connection_errors_are_retried_then_reported_without_the_key(cache_path: Path) -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    secret = "connection-test-secret-key"
    client = BabelNetLexicon(
        api_key=secret,
        cache=HttpCache(cache_path),
        base_url=f"http://127.0.0.1:{port}/v9/",
        max_retries=2,
        backoff_base=0.001,
        timeout=1.0,
    )
    with pytest.raises(LexiconError, match="could not connect") as failed:
        client.synset_ids("shot", "NOUN")
    assert secret not in str(failed.value)
    assert failed.value.__context__ is None
    assert client.counts[SYNSET_IDS_ENDPOINT].requests == 3


def test_concurrent_identical_requests_are_sent_once(server: FakeBabelNet, cache_path: Path) -> None:
    server.delay_next(1, 0.2)  # keep the first request in flight while the others arrive
    client = make_client(server, cache_path)
    results: list[list[str]] = []
    threads = [threading.Thread(target=lambda: results.append(client.synset_ids("shot", "NOUN"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [SHOT_IN_BABELNET_ORDER] * 4
    assert server.count() == 1


# --- the key stays secret -----------------------------------------------------------------------------------


def test_the_key_never_reaches_the_cache_file_reprs_or_logs(
    server: FakeBabelNet, cache_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server.fail_next(1, 500)
    client = make_client(server, cache_path)
    full_run(client)
    key = server.api_key

    assert all(request.key_ok for request in server.requests)  # it was sent...
    assert "getSynsetIds?lemma=shot" in caplog.text  # ...urllib3 logged the request URLs...
    assert "key=<redacted>" in caplog.text and key not in caplog.text  # ...with the key blanked out
    assert key.encode() not in cache_file_bytes(cache_path)
    assert key not in repr(client) and key not in str(vars(client)) and key not in client.summary()
    assert all("key" not in dict(entry.params) for entry in client.cache)


# --- the cache itself ---------------------------------------------------------------------------------------


def test_cache_keys_sort_parameters_and_leave_out_the_key() -> None:
    one = cache_key("getSynset", [("targetLang", "IT"), ("id", "bn:1n"), ("key", "secret"), ("targetLang", "EN")])
    other = cache_key("getSynset", {"id": "bn:1n", "targetLang": ["EN", "IT"]})
    assert one == other == "getSynset?id=bn%3A1n&targetLang=EN&targetLang=IT"


def test_cache_is_shared_between_instances_and_threads(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    writer, reader = HttpCache(path), HttpCache(path)

    def store(worker: int) -> None:
        for index in range(25):
            key = cache_key("getSynset", {"id": f"bn:{worker}-{index}n"})
            writer.put(key, "getSynset", {"id": f"bn:{worker}-{index}n", "key": "secret"}, f'{{"n": {index}}}')
            assert writer.get(key) == f'{{"n": {index}}}'

    threads = [threading.Thread(target=store, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert reader.count() == 100 and reader.count("getSynset") == 100 and reader.count("getSynsetIds") == 0
    entry = next(iter(reader))
    assert entry.endpoint == "getSynset" and entry.params == (("id", entry.param("id")),)
    writer.put(entry.key, entry.endpoint, entry.params, "replaced?")
    assert reader.get(entry.key) == entry.body  # the first answer stored wins
    writer.close()
    reader.close()


# --- the key's sources ----------------------------------------------------------------------------------------


def test_api_key_comes_from_the_environment_first_then_secrets_toml(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets.toml"
    assert load_api_key(secrets, environ={}) is None

    secrets.write_text('BABELNET_API_KEY = " top-level-key "\n', encoding="utf-8")
    assert load_api_key(secrets, environ={}) == "top-level-key"
    assert load_api_key(secrets, environ={"BABELNET_API_KEY": "from-env"}) == "from-env"

    secrets.write_text('[babelnet]\napi_key = "section-key"\n', encoding="utf-8")
    assert load_api_key(secrets, environ={"BABELNET_API_KEY": ""}) == "section-key"

    secrets.write_text('[babelnet\napi_key = "broken"', encoding="utf-8")
    with pytest.raises(LexiconError, match=r"secrets\.toml is not valid TOML") as failed:
        load_api_key(secrets, environ={})
    assert "broken" not in str(failed.value)


def test_an_empty_key_is_refused_before_any_request(server: FakeBabelNet, cache_path: Path) -> None:
    with pytest.raises(LexiconError, match="BABELNET_API_KEY"):
        BabelNetLexicon(api_key="  ", cache=HttpCache(cache_path), base_url=server.base_url)
    assert server.count() == 0


def test_retry_after_is_read_as_seconds_or_an_http_date() -> None:
    """urllib3 reads ``Retry-After``: a number of seconds or an HTTP date (the home-made reader took numbers only)."""
    from datetime import UTC, datetime, timedelta
    from email.utils import format_datetime

    import requests

    from annotator.lexicon.babelnet_transport import retry_after

    response = requests.Response()
    response.headers["Retry-After"] = "2"
    assert retry_after(response) == 2
    response.headers["Retry-After"] = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    wait = retry_after(response)
    assert wait is not None and 20 <= wait <= 31
    response.headers["Retry-After"] = "soon"
    assert retry_after(response) is None
    del response.headers["Retry-After"]
    assert retry_after(response) is None
