"""BabelNet HTTP API provider (SPEC §4.2), with every answer kept in a persistent ``HttpCache``.

The wire format is read in ``babelnet_wire.py``, the key in ``babelnet_key.py``, the transport's guards are in
``babelnet_transport.py``; this module is the client: cache, retries, deadline, what an answer means.

The API key travels only as a query parameter of the outgoing request: it is kept out of the cache,
exception messages, reprs and (through a redacting filter on urllib3's logger) debug logs, and blanked out of
every answer before it is used or stored (a server may echo it in a gloss or lemma). Redirects are never
followed: ``requests`` would re-send the whole query string, key included, to whatever host a redirect names.

A server is not trusted to behave: every request (its retries included) has a total deadline, enforced by a
watchdog that shuts the socket down whatever phase the exchange is in (a server dripping one byte every few
seconds defeats a per-read time-out); answers are streamed and refused past a size cap; a getSynset answer
without senses, or without an English one, is an error. Nothing refused is cached, so a later run asks again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlparse

import requests
from urllib3.exceptions import MaxRetryError
from urllib3.util.retry import Retry

from annotator.lexicon.babelnet_key import API_KEY_ENV, Secret, load_api_key
from annotator.lexicon.babelnet_transport import (
    KEY_IN_URL,
    DeadlinePassed,
    TooLarge,
    TrackedAdapter,
    Watchdog,
    read_capped,
    retry_after,
)
from annotator.lexicon.babelnet_wire import (
    EDGES_ENDPOINT,
    ENDPOINTS,
    SYNSET_ENDPOINT,
    SYNSET_IDS_ENDPOINT,
    api_version,
    build_synset_record,
    describe_request,
    edges_request_params,
    is_refusal,
    language_chunks,
    parse_edges,
    parse_synset_ids,
    redact_key,
    synset_answer_problem,
    synset_ids_request_params,
    synset_request_params,
)
from annotator.lexicon.base import ENGLISH, LexiconError, LexiconQuotaError, LexiconUnavailableError, SynsetRecord
from annotator.lexicon.http_cache import API_KEY_PARAM, HttpCache, cache_key

DEFAULT_BASE_URL = "https://babelnet.io/v9/"
#: Cache metadata entry recording which API version the cached answers come from.
CACHE_VERSION_META = "babelnet_api_version"

#: A request, its retries and their waits included, gives up after this many seconds (``$DEADLINE_ENV``).
DEFAULT_DEADLINE_S = 60.0
DEADLINE_ENV = "ANNOTATOR_BABELNET_DEADLINE"
#: Answers larger than this are refused unread (``$MAX_ANSWER_ENV``, in MB). Real getSynset answers for four
#: languages are tens to hundreds of kB; 16 MB leaves room while keeping a parse well under 300 MB of memory.
DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
MAX_ANSWER_ENV = "ANNOTATOR_BABELNET_MAX_MB"
log = logging.getLogger(__name__)

#: What importers know from here besides the client (the key, the wire format now live in their own modules).
__all__ = [
    "CACHE_VERSION_META",
    "DEADLINE_ENV",
    "DEFAULT_DEADLINE_S",
    "DEFAULT_MAX_ANSWER_BYTES",
    "MAX_ANSWER_ENV",
    "SYNSET_ENDPOINT",
    "SYNSET_IDS_ENDPOINT",
    "BabelNetLexicon",
    "EndpointCounts",
    "api_version",
    "load_api_key",
]


def _number_from_env(name: str, environ: Mapping[str, str]) -> float | None:
    raw = (environ.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise LexiconError(f"{name}={raw!r} is not a positive number.")
    return value


# --- the client ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EndpointCounts:
    """Per-endpoint traffic: HTTP requests sent (retries included), of which retries, and cache hits."""

    requests: int = 0
    retries: int = 0
    cache_hits: int = 0
    stored: int = 0


#: Answers worth another attempt (with time-outs and connection errors): the server is busy or failing for now.
RETRIED_STATUSES = frozenset({429, *range(500, 600)})


class _Retry:
    """A transient failure worth another attempt (time-outs, connection errors, ``RETRIED_STATUSES``), if time is
    left; ``wait_hint`` is a 429's ``Retry-After`` in seconds."""

    def __init__(self, reason: str, wait_hint: float | None = None) -> None:
        self.reason = reason
        self.wait_hint = wait_hint


class BabelNetLexicon:
    """``Lexicon`` over the BabelNet HTTP API. Each distinct request is sent at most once, ever: answers
    live in the ``HttpCache`` file, so a rerun (or a resumed run) costs no quota for work already done.

    ``timeout`` bounds each read; ``deadline`` (seconds) bounds a whole request with its retries and waits;
    ``max_answer_bytes`` caps an answer's size. Left None, the last two come from ``$ANNOTATOR_BABELNET_DEADLINE``
    and ``$ANNOTATOR_BABELNET_MAX_MB``, else 60 s and 16 MB.
    """

    name = "babelnet"

    def __init__(
        self,
        api_key: str,
        cache: HttpCache,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        deadline: float | None = None,
        max_answer_bytes: int | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if not isinstance(api_key, str) or not api_key.strip():
            raise LexiconError(f"No BabelNet API key: set {API_KEY_ENV} or put it in .streamlit/secrets.toml.")
        self._key = Secret(api_key.strip())
        self.cache = cache
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.version = api_version(self.base_url)
        self.timeout = timeout
        env = os.environ if environ is None else environ
        self.deadline = float(deadline or _number_from_env(DEADLINE_ENV, env) or DEFAULT_DEADLINE_S)
        max_mb = _number_from_env(MAX_ANSWER_ENV, env)
        self.max_answer_bytes = int(max_answer_bytes or (max_mb * 1024 * 1024 if max_mb else DEFAULT_MAX_ANSWER_BYTES))
        self.max_retries = max(0, max_retries)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._sleep = sleep
        self._counts: dict[str, EndpointCounts] = {endpoint: EndpointCounts() for endpoint in ENDPOINTS}
        self._counts_lock = threading.Lock()
        self._request_locks = [threading.Lock() for _ in range(64)]
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._sessions_lock = threading.Lock()
        #: Inside ``fresh()``: the keys fetched anew so far (None outside it).
        self._refreshed: set[str] | None = None
        self._check_cache_version()

    def __repr__(self) -> str:
        return f"BabelNetLexicon(base_url={self.base_url!r}, version={self.version!r}, cache={self.cache!r})"

    def _check_cache_version(self) -> None:
        recorded = self.cache.get_meta(CACHE_VERSION_META)
        if recorded is None:
            self.cache.set_meta(CACHE_VERSION_META, self.version)
        elif recorded != self.version:
            raise LexiconError(
                f"The BabelNet cache {self.cache.path} holds answers from API {recorded}, but this client talks "
                f"to {self.version} ({self.base_url}). Use another cache file for another API version."
            )

    # --- Lexicon protocol ---------------------------------------------------------------------------

    def synset_ids(self, lemma: str, pos: str) -> list[str]:
        """Ω(λ) candidates: English synsets of (lemma, POS) in BabelNet's order (ranking is the caller's)."""
        return self.synset_ids_in(lemma, ENGLISH, pos)

    def synset_ids_in(self, lemma: str, lang: str, pos: str) -> list[str]:
        body = self._get_json(SYNSET_IDS_ENDPOINT, synset_ids_request_params(lemma, lang, pos))
        return parse_synset_ids(body, pos)

    def synset(self, synset_id: str, langs: Sequence[str]) -> SynsetRecord:
        """Glosses and senses in English plus ``langs``: one getSynset call per chunk of three languages."""
        chunks = language_chunks(langs)
        bodies = [self._get_json(SYNSET_ENDPOINT, synset_request_params(synset_id, chunk)) for chunk in chunks]
        return build_synset_record(synset_id, bodies, [lang for chunk in chunks for lang in chunk])

    def related(self, synset_id: str) -> list[tuple[str, str]]:
        """σ's relations that suggestions follow (hypernym, hyponym, derivation, similar…): one getOutgoingEdges
        call, kept in the cache like every answer (``parse_edges``)."""
        return parse_edges(self._get_json(EDGES_ENDPOINT, edges_request_params(synset_id)), synset_id)

    @contextlib.contextmanager
    def fresh(self) -> Iterator[None]:
        """Within this block each distinct request is sent again once, and a good answer replaces the cached
        one (a failed one leaves it). For a redo: the cache may hold what made the first run wrong."""
        self._refreshed = set()
        try:
            yield
        finally:
            self._refreshed = None

    # --- counters -----------------------------------------------------------------------------------

    @property
    def counts(self) -> dict[str, EndpointCounts]:
        """A copy of the per-endpoint counters (for the pre-population summary)."""
        with self._counts_lock:
            return dict(self._counts)

    @property
    def cache_hits(self) -> int:
        return sum(count.cache_hits for count in self.counts.values())

    def summary(self) -> str:
        """One line per endpoint, e.g. ``getSynset: 12 requests (1 retry), 30 from cache``."""
        lines = []
        for endpoint, count in self.counts.items():
            retries = f" ({count.retries} {'retry' if count.retries == 1 else 'retries'})" if count.retries else ""
            noun = "request" if count.requests == 1 else "requests"
            lines.append(f"{endpoint}: {count.requests} {noun}{retries}, {count.cache_hits} from cache")
        return "\n".join(lines)

    def _bump(self, endpoint: str, **fields: int) -> None:
        with self._counts_lock:
            current = self._counts.get(endpoint, EndpointCounts())
            self._counts[endpoint] = replace(
                current, **{name: getattr(current, name) + value for name, value in fields.items()}
            )

    # --- transport ----------------------------------------------------------------------------------

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.mount("http://", TrackedAdapter())
            session.mount("https://", TrackedAdapter())
            session.headers.update({"Accept-Encoding": "gzip", "User-Agent": "annotator (DiBiMT-style benchmark)"})
            self._local.session = session
            with self._sessions_lock:
                self._sessions.append(session)
        return session

    def close(self) -> None:
        """Close HTTP sessions and the cache file."""
        with self._sessions_lock:
            for session in self._sessions:
                session.close()
            self._sessions.clear()
        self.cache.close()

    def _get_json(self, endpoint: str, params: list[tuple[str, str]]) -> Any:
        key = cache_key(endpoint, params, self.base_url)
        # One lock per key stripe: two threads asking the same thing send one request, not two.
        with self._request_locks[hash(key) % len(self._request_locks)]:
            refreshed = self._refreshed
            again = refreshed is not None and key not in refreshed
            cached = None if again else self.cache.get(key)
            if cached is not None:
                self._bump(endpoint, cache_hits=1)
                return redact_key(json.loads(cached), self._key.reveal())[0]
            body_text, body = self._fetch(endpoint, params)
            self.cache.put(key, endpoint, params, body_text, replace=again)
            if refreshed is not None:
                refreshed.add(key)
            self._bump(endpoint, stored=1)
            return body

    def _retry_policy(self) -> Retry:
        """urllib3's ``Retry`` decides how many attempts, which statuses are retried and how long to back off
        (exponential, jittered, at most ``backoff_max``). It is consulted here rather than mounted in the HTTP
        adapter because its own sleeps cannot honour the request's total deadline, which bounds them here."""
        return Retry(
            total=self.max_retries,
            status_forcelist=RETRIED_STATUSES,
            backoff_factor=self.backoff_base,
            backoff_max=self.backoff_max,
            backoff_jitter=self.backoff_base / 4,
            raise_on_status=False,
        )

    def _fetch(self, endpoint: str, params: list[tuple[str, str]]) -> tuple[str, Any]:
        """Send the request with retries, all within the deadline; return (body text, parsed body) of a good answer."""
        url = self.base_url + endpoint
        described = describe_request(endpoint, params)
        deadline_at = time.monotonic() + self.deadline
        retry = self._retry_policy()
        attempts = self.max_retries + 1
        last_reason = ""
        for attempt in range(attempts):
            if attempt:
                self._bump(endpoint, retries=1)
            self._bump(endpoint, requests=1)
            log.debug("BabelNet request %s (attempt %d of %d)", described, attempt + 1, attempts)
            outcome = self._attempt(url, endpoint, params, described, deadline_at)
            if not isinstance(outcome, _Retry):
                return outcome
            last_reason = outcome.reason
            try:
                retry = retry.increment("GET", url)  # counts the attempt against ``total``
            except MaxRetryError:  # that was the last attempt
                break
            delay = min(max(retry.get_backoff_time(), outcome.wait_hint or 0.0), self.backoff_max)
            if time.monotonic() + delay >= deadline_at:
                raise LexiconUnavailableError(
                    self._scrub(
                        f"BabelNet request {described} failed after {attempt + 1} attempt(s): {last_reason}; "
                        f"no time left for another within its {self.deadline:g} s deadline."
                    )
                )
            log.info("BabelNet %s: %s; retrying in %.2f s", described, last_reason, delay)
            self._sleep(delay)
        raise LexiconUnavailableError(
            self._scrub(f"BabelNet request {described} failed after {attempts} attempts: {last_reason}.")
        )

    def _attempt(
        self, url: str, endpoint: str, params: list[tuple[str, str]], described: str, deadline_at: float
    ) -> tuple[str, Any] | _Retry:
        # Exceptions from requests embed the full URL (with the key), so only their type is reported and
        # nothing is raised while they are being handled (no implicit exception chaining).
        remaining = deadline_at - time.monotonic()
        per_read = max(0.001, min(self.timeout, remaining))
        failure: _Retry | None = None
        response: requests.Response | None = None
        content = b""
        too_large = passed = False
        watchdog = Watchdog(remaining)
        try:
            response = self._session().get(
                url,
                params=[*params, (API_KEY_PARAM, self._key.reveal())],
                timeout=(per_read, per_read),
                allow_redirects=False,  # a redirect would carry the key in the query string to another host
                stream=True,  # read in chunks: refused past the cap, never held whole
            )
            content = read_capped(response, self.max_answer_bytes, deadline_at)
        except TooLarge:
            too_large = True
        except DeadlinePassed:
            passed = True
        except requests.Timeout:
            failure = _Retry(f"no answer within {per_read:g} s")
        except requests.ConnectionError:
            failure = _Retry("could not connect to the server, or it dropped the connection")
        except requests.RequestException as exc:
            failure = _Retry(f"transport error ({type(exc).__name__})")
        finally:
            watchdog.stop()
            if response is not None:
                response.close()
        if passed or watchdog.fired or time.monotonic() >= deadline_at:
            raise LexiconUnavailableError(
                f"BabelNet request {described} gave no complete answer within its {self.deadline:g} s deadline "
                f"(set {DEADLINE_ENV} to change it); nothing was stored."
            )
        if too_large:
            raise LexiconError(
                f"BabelNet request {described} answered more than {self.max_answer_bytes / 1024 / 1024:.3g} MB "
                f"(set {MAX_ANSWER_ENV} to change the cap); refused, nothing was stored."
            )
        if failure is not None or response is None:
            return failure or _Retry("no response")
        return self._interpret(response, content, endpoint, described)

    def _interpret(
        self, response: requests.Response, content: bytes, endpoint: str, described: str
    ) -> tuple[str, Any] | _Retry:
        status = response.status_code
        secret = self._key.reveal()
        text = content.decode("utf-8", errors="replace")
        del content
        try:
            body: Any = json.loads(text)
            is_json = True
        except (ValueError, RecursionError):
            body, is_json = None, False
        if isinstance(body, dict) and "message" in body and "senses" not in body:
            message = self._scrub(" ".join(str(body["message"]).split()))
            if not is_refusal(status, message):
                raise LexiconError(f"BabelNet rejected the request {described}: {message}")
            raise LexiconQuotaError(
                f"BabelNet refused to answer: {message} (request {described}). Everything fetched so far is "
                "kept in the cache; run again once the key is valid or the daily limit has reset."
            )
        if 300 <= status < 400:
            raise LexiconError(self._redirect_message(response, described))
        if status in RETRIED_STATUSES:
            return _Retry(f"HTTP {status}", retry_after(response) if status == 429 else None)
        if status >= 400:
            raise LexiconError(f"BabelNet request {described} failed: HTTP {status}.")
        if not is_json:
            raise LexiconError(f"BabelNet request {described} answered something that is not JSON (HTTP {status}).")
        # Never use or store the key, even if the server echoed it back (in a gloss, a lemma, anywhere).
        body, echoed = redact_key(body, secret)
        if echoed or secret.lower() in text.lower():
            log.warning("BabelNet request %s: the answer contained the API key; it was blanked out", described)
            text = json.dumps(body, ensure_ascii=False)
        if endpoint in (SYNSET_IDS_ENDPOINT, EDGES_ENDPOINT) and not isinstance(body, list):
            raise LexiconError(f"BabelNet request {described} answered {type(body).__name__}, expected a list.")
        if endpoint == SYNSET_ENDPOINT:
            problem = synset_answer_problem(body)
            if problem is not None:
                raise LexiconError(
                    f"BabelNet request {described} answered {problem}; taken as an error (nothing recorded or "
                    "cached: a later run asks again)."
                )
        return text, body

    def _redirect_message(self, response: requests.Response, described: str) -> str:
        """Name where the redirect pointed (scheme, host and port only: its query may hold the key)."""
        location = urlparse(response.headers.get("Location", ""))
        host = location.netloc.rsplit("@", 1)[-1]  # never echo credentials a Location might carry
        where = f"{location.scheme}://{host}" if host else "another address"
        return self._scrub(
            f"BabelNet request {described} answered a redirect (HTTP {response.status_code}) to {where}; redirects "
            f"are not followed, so the API key is never sent anywhere but {self.base_url}. If the API has moved, "
            "set the lexicon base URL to its new address."
        )

    def _scrub(self, text: str) -> str:
        return KEY_IN_URL.sub(r"\1<redacted>", text).replace(self._key.reveal(), "<redacted>")


