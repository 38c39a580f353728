"""Issue 14 item 9: the BabelNet client never follows a redirect, so the key (a query parameter) never reaches
another host. Two real local servers: the first answers 302 to the second ('localhost' on another port)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from fake_babelnet import FakeBabelNet, sample_snapshot_data

from annotator.lexicon.babelnet import BabelNetLexicon
from annotator.lexicon.base import LexiconError
from annotator.lexicon.http_cache import HttpCache


@pytest.fixture
def servers() -> Iterator[tuple[FakeBabelNet, FakeBabelNet]]:
    with FakeBabelNet(sample_snapshot_data()) as first, FakeBabelNet(sample_snapshot_data()) as second:
        yield first, second


def elsewhere(server: FakeBabelNet) -> str:
    """The second server under another host name (localhost, not 127.0.0.1) and its own port."""
    return f"http://localhost:{urlsplit(server.base_url).port}"


def client(server: FakeBabelNet, tmp_path: Path) -> BabelNetLexicon:
    return BabelNetLexicon(
        api_key=server.api_key,
        cache=HttpCache(tmp_path / "cache.sqlite"),
        base_url=server.base_url,
        timeout=2.0,
        max_retries=2,
        backoff_base=0.001,
        backoff_max=0.01,
    )


def test_the_fake_redirect_would_leak_the_key_to_a_client_that_follows_it(
    servers: tuple[FakeBabelNet, FakeBabelNet],
) -> None:
    """The set-up is real: plain ``requests`` follows the 302 and hands the key to the other host."""
    first, second = servers
    first.redirect_next(1, elsewhere(second))
    answer = requests.get(
        first.base_url + "getSynsetIds",
        params={"lemma": "shot", "searchLang": "EN", "pos": "NOUN", "key": first.api_key},
        timeout=5,
    )
    assert answer.ok and answer.history and answer.history[0].status_code == 302
    assert [(r.endpoint, r.key_ok) for r in second.requests] == [("getSynsetIds", True)]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_host_is_not_followed_and_is_reported(
    servers: tuple[FakeBabelNet, FakeBabelNet], tmp_path: Path, status: int
) -> None:
    first, second = servers
    first.redirect_next(1, elsewhere(second), status)
    lexicon = client(first, tmp_path)
    try:
        with pytest.raises(LexiconError) as caught:
            lexicon.synset_ids("shot", "NOUN")
    finally:
        lexicon.close()
    assert second.requests == []  # nothing, let alone the key, reached the other host
    assert first.count() == 1  # not retried either: a redirect is an answer, not a transient failure
    message = str(caught.value)
    assert f"redirect (HTTP {status}) to {elsewhere(second)}" in message and "not followed" in message
    assert first.api_key not in message and "key=" not in message
    with HttpCache(tmp_path / "cache.sqlite") as cache:
        assert cache.count() == 0  # the redirect is not cached as an answer


def test_a_same_host_redirect_is_not_followed_either(
    servers: tuple[FakeBabelNet, FakeBabelNet], tmp_path: Path
) -> None:
    first, _second = servers
    origin = first.base_url.rsplit("/", 2)[0]
    first.redirect_next(1, origin)  # same scheme, host and port: still an address the user did not configure
    lexicon = client(first, tmp_path)
    try:
        with pytest.raises(LexiconError, match="not followed"):
            lexicon.synset_ids("shot", "NOUN")
        assert first.count() == 1
        # The next request (no redirect) is answered normally: nothing was left in a bad state.
        assert lexicon.synset_ids("shot", "NOUN")
    finally:
        lexicon.close()
