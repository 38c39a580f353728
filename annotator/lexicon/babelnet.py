"""BabelNet HTTP API provider (SPEC §4.2), with every answer kept in a persistent ``HttpCache``.

Wire shapes (checked against BabelNet's published API description and its official Python client):

* ``getSynsetIds?lemma=…&searchLang=EN&pos=NOUN&key=…`` answers ``[{"id": "bn:…n", "pos": "NOUN",
  "source": "BABELNET"}, …]``.
* ``getSynset?id=…&targetLang=EN&targetLang=IT…&key=…`` answers ``{"senses": [{"type": "WordNetSense" |
  "BabelSense", "properties": {"fullLemma", "simpleLemma", "source", "language", "pos", "synsetID": {…},
  "wordNetSenseNumber" (WordNetSense only), …}}, …], "glosses": [{"source", "sourceSense", "language",
  "gloss", "tokens"}, …], …}``. The WordNet sense number sits inside ``properties``.
* A refused key or a spent daily allowance answers ``{"message": "Your key is not valid or the daily
  requests limit has been reached. …"}`` — the same message for both.

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
import random
import re
import socket
import threading
import time
import tomllib
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import requests
import urllib3
from requests.adapters import HTTPAdapter

from annotator.lexicon.base import (
    ENGLISH,
    LexiconError,
    LexiconQuotaError,
    LexiconUnavailableError,
    LexSense,
    SynsetRecord,
)
from annotator.lexicon.http_cache import API_KEY_PARAM, HttpCache, cache_key

DEFAULT_BASE_URL = "https://babelnet.io/v9/"
DEFAULT_SECRETS_PATH = Path(".streamlit/secrets.toml")
API_KEY_ENV = "BABELNET_API_KEY"

SYNSET_IDS_ENDPOINT = "getSynsetIds"
SYNSET_ENDPOINT = "getSynset"
ENDPOINTS = (SYNSET_IDS_ENDPOINT, SYNSET_ENDPOINT)

#: getSynset accepts at most this many targetLang values besides English.
MAX_EXTRA_TARGET_LANGS = 3

#: Cache metadata entry recording which API version the cached answers come from.
CACHE_VERSION_META = "babelnet_api_version"

#: A request, its retries and their waits included, gives up after this many seconds (``$DEADLINE_ENV``).
DEFAULT_DEADLINE_S = 60.0
DEADLINE_ENV = "ANNOTATOR_BABELNET_DEADLINE"
#: Answers larger than this are refused unread (``$MAX_ANSWER_ENV``, in MB). Real getSynset answers for four
#: languages are tens to hundreds of kB; 16 MB leaves room while keeping a parse well under 300 MB of memory.
DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
MAX_ANSWER_ENV = "ANNOTATOR_BABELNET_MAX_MB"
_READ_CHUNK = 64 * 1024
#: BabelNet's answers are a handful of levels deep; deeper is refused (it could not be stored back either).
MAX_ANSWER_DEPTH = 64
REDACTED = "<redacted>"

_UPOS_BY_ID_SUFFIX = {"n": "NOUN", "v": "VERB", "a": "ADJ", "r": "ADV"}
_TRAILING_QUALIFIER = re.compile(r"^(?P<lemma>.*?\S)\s*\([^()]*\)$")
_KEY_IN_URL = re.compile(r"(?i)([?&]key=)[^&\s\"'#]*")

log = logging.getLogger(__name__)


# --- keeping the key out of logs ------------------------------------------------------------------------


class _RedactKeyFilter(logging.Filter):
    """Blanks ``key=…`` query parameters in log records (urllib3 logs full request URLs at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _KEY_IN_URL.search(message):
            record.msg = _KEY_IN_URL.sub(r"\1<redacted>", message)
            record.args = None
        return True


def _install_log_redaction() -> None:
    for name in ("urllib3.connectionpool", "urllib3", "requests"):
        logger = logging.getLogger(name)
        if not any(isinstance(existing, _RedactKeyFilter) for existing in logger.filters):
            logger.addFilter(_RedactKeyFilter())


_install_log_redaction()


class _Secret:
    """Holds the API key so that reprs, ``vars()`` dumps and f-strings never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<hidden>"

    __str__ = __repr__


def load_api_key(
    secrets_path: str | Path | None = DEFAULT_SECRETS_PATH, environ: Mapping[str, str] | None = None
) -> str | None:
    """The BabelNet key: ``$BABELNET_API_KEY`` first, then ``secrets.toml`` (top-level ``BABELNET_API_KEY``
    or ``[babelnet] api_key``). None when neither has one, so callers can say what to configure.
    """
    env = os.environ if environ is None else environ
    from_env = (env.get(API_KEY_ENV) or "").strip()
    if from_env:
        return from_env
    if secrets_path is None:
        return None
    path = Path(secrets_path)
    if not path.is_file():
        return None
    try:
        secrets = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        # The TOML error names a line and column, never the file's values.
        raise LexiconError(f"{path} is not valid TOML ({exc}); fix it or set {API_KEY_ENV}.") from None
    value = secrets.get(API_KEY_ENV)
    section = secrets.get("babelnet")
    if not value and isinstance(section, dict):
        value = section.get("api_key")
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


# --- parsing the wire format (shared with the snapshot export) -----------------------------------------


def clean_lemma(text: str) -> str:
    """BabelNet lemma → our lemma: underscores become spaces, whitespace collapses, and a trailing
    disambiguation qualifier (Wikipedia's ``Shot_(drink)``) is dropped because it is not a translation.
    """
    cleaned = " ".join(text.replace("_", " ").split())
    match = _TRAILING_QUALIFIER.match(cleaned)
    return match.group("lemma") if match else cleaned


def language_chunks(langs: Iterable[str]) -> list[tuple[str, ...]]:
    """Sorted non-English languages in groups of three: one getSynset call each (at least one call).

    Sorting makes the grouping — and so the cache keys — the same whatever order the caller used.
    """
    extra = sorted({lang.strip().upper() for lang in langs} - {ENGLISH, ""})
    if not extra:
        return [()]
    return [
        tuple(extra[start : start + MAX_EXTRA_TARGET_LANGS]) for start in range(0, len(extra), MAX_EXTRA_TARGET_LANGS)
    ]


def synset_request_params(synset_id: str, chunk: Sequence[str]) -> list[tuple[str, str]]:
    """getSynset parameters for one chunk: English always, then the chunk's languages."""
    return [("id", synset_id), ("targetLang", ENGLISH), *(("targetLang", lang) for lang in chunk)]


def synset_ids_request_params(lemma: str, lang: str, pos: str) -> list[tuple[str, str]]:
    return [("lemma", lemma.strip()), ("searchLang", lang.strip().upper()), ("pos", pos.strip().upper())]


def parse_synset_ids(body: Any, pos: str | None = None) -> list[str]:
    """Synset ids of a getSynsetIds answer, in BabelNet's order, restricted to ``pos``, without repeats."""
    if not isinstance(body, list):
        raise LexiconError(f"BabelNet getSynsetIds answered {type(body).__name__}, expected a list of synset ids.")
    wanted = pos.upper() if pos else None
    ids: dict[str, None] = {}
    for entry in body:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        entry_pos = entry.get("pos")
        if wanted is not None and isinstance(entry_pos, str) and entry_pos.upper() != wanted:
            continue
        ids.setdefault(entry["id"], None)
    return list(ids)


def _sense_number(raw: Mapping[str, Any], props: Mapping[str, Any]) -> int | None:
    # Real answers carry it in properties; accept a top-level copy too rather than lose the rank.
    value = props.get("wordNetSenseNumber", raw.get("wordNetSenseNumber"))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = int(value)
    return number if number > 0 else None


def parse_sense(raw: Any) -> LexSense | None:
    """One sense of a getSynset answer, or None if it lacks a lemma, language or source."""
    if not isinstance(raw, dict):
        return None
    props = raw.get("properties")
    if not isinstance(props, dict):
        props = raw
    lemma = props.get("fullLemma") or props.get("simpleLemma") or props.get("lemma")
    if isinstance(lemma, dict):
        lemma = lemma.get("lemma")
    lang, source = props.get("language"), props.get("source")
    if not (isinstance(lemma, str) and isinstance(lang, str) and isinstance(source, str)):
        return None
    lemma = clean_lemma(lemma)
    if not lemma:
        return None
    lang, source = lang.upper(), source.upper()
    number = None
    if raw.get("type") == "WordNetSense" and source == "WN" and lang == ENGLISH:
        number = _sense_number(raw, props)
    return LexSense(lemma=lemma, lang=lang, source=source, wordnet_sense_number=number)


def _synset_pos(synset_id: str, bodies: Sequence[Mapping[str, Any]]) -> str:
    for body in bodies:
        for raw in body.get("senses") or ():
            props = raw.get("properties") if isinstance(raw, dict) else None
            synset_ref = props.get("synsetID") if isinstance(props, dict) else None
            if isinstance(synset_ref, dict) and isinstance(synset_ref.get("pos"), str):
                return synset_ref["pos"].upper()
    return _UPOS_BY_ID_SUFFIX.get(synset_id[-1:].lower(), "") if synset_id else ""


def pick_glosses(raw_glosses: Iterable[Any], langs: Iterable[str] | None = None) -> dict[str, str]:
    """lang → the first gloss in that language; for English the first WordNet gloss is preferred."""
    wanted = None if langs is None else {lang.upper() for lang in langs}
    first: dict[str, str] = {}
    english_wordnet: str | None = None
    for raw in raw_glosses:
        if not isinstance(raw, dict):
            continue
        lang, text = raw.get("language"), raw.get("gloss")
        if not (isinstance(lang, str) and isinstance(text, str) and text.strip()):
            continue
        lang = lang.upper()
        if wanted is not None and lang not in wanted:
            continue
        first.setdefault(lang, text.strip())
        source = raw.get("source")
        if lang == ENGLISH and english_wordnet is None and isinstance(source, str) and source.upper() == "WN":
            english_wordnet = text.strip()
    if english_wordnet is not None:
        first[ENGLISH] = english_wordnet
    return first


def order_senses(senses: Iterable[LexSense]) -> tuple[LexSense, ...]:
    """Distinct senses, English first, then by language code, keeping BabelNet's order within a language.

    A fixed order makes the merged answer independent of how the languages were chunked.
    """
    distinct = list(dict.fromkeys(senses))
    return tuple(sorted(distinct, key=lambda sense: (sense.lang != ENGLISH, sense.lang)))


def build_synset_record(synset_id: str, bodies: Sequence[Any], langs: Iterable[str] | None = None) -> SynsetRecord:
    """Merge the getSynset answers of one synset (one per language chunk) into a ``SynsetRecord``.

    ``langs`` limits senses and glosses to English plus those languages (None keeps everything).
    """
    checked: list[Mapping[str, Any]] = []
    for body in bodies:
        if not isinstance(body, dict) or not isinstance(body.get("senses", []), list):
            raise LexiconError(f"BabelNet getSynset for {synset_id} answered an unexpected shape (no 'senses' list).")
        checked.append(body)
    wanted = None if langs is None else {ENGLISH, *(lang.upper() for lang in langs)}
    senses = (parse_sense(raw) for body in checked for raw in body.get("senses") or ())
    kept = [sense for sense in senses if sense is not None and (wanted is None or sense.lang in wanted)]
    glosses = pick_glosses((raw for body in checked for raw in body.get("glosses") or ()), wanted)
    return SynsetRecord(id=synset_id, pos=_synset_pos(synset_id, checked), glosses=glosses, senses=order_senses(kept))


def describe_request(endpoint: str, params: Iterable[tuple[str, str]]) -> str:
    """A readable request description for messages: ``getSynset id=bn:… targetLang=EN`` (never the key)."""
    shown = " ".join(f"{name}={value}" for name, value in params if name != API_KEY_PARAM)
    return f"{endpoint} {shown}".strip()


def api_version(base_url: str) -> str:
    """``v9`` from ``https://babelnet.io/v9/``; ``unknown`` when the URL has no version segment."""
    segments = [segment for segment in urlparse(base_url).path.split("/") if segment]
    for segment in reversed(segments):
        if re.fullmatch(r"v\d+", segment, flags=re.IGNORECASE):
            return segment.lower()
    return "unknown"


# --- a total deadline per request -------------------------------------------------------------------


class _ThreadLinks:
    """What one thread's HTTP exchanges run over: its connections (their ``sock`` is set from the start of
    ``connect``, the TLS handshake included) and the sockets they opened (still read after a connection that
    will close hands its socket over to the response and forgets it)."""

    def __init__(self) -> None:
        self.connections: weakref.WeakSet[urllib3.connection.HTTPConnection] = weakref.WeakSet()
        self.sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    def cut(self) -> None:
        """Shut every live socket down: a blocked read returns at once."""
        live = [connection.sock for connection in list(self.connections)] + list(self.sockets)
        for sock in live:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


_thread_links = threading.local()


def _links_of_this_thread() -> _ThreadLinks:
    found = getattr(_thread_links, "links", None)
    if found is None:
        found = _thread_links.links = _ThreadLinks()
    return found


class _TrackedHTTPConnection(urllib3.connection.HTTPConnection):
    """Registers itself and its socket with its thread, so the watchdog can cut it in any phase."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _links_of_this_thread().connections.add(self)

    def connect(self) -> None:
        super().connect()
        if self.sock is not None:
            _links_of_this_thread().sockets.add(self.sock)


class _TrackedHTTPSConnection(_TrackedHTTPConnection, urllib3.connection.HTTPSConnection):
    """The TLS twin of ``_TrackedHTTPConnection``: its tracking, then urllib3's TLS connection (by the MRO)."""


class _TrackedHTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection


class _TrackedHTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection


_TRACKED_POOLS = {"http": _TrackedHTTPPool, "https": _TrackedHTTPSPool}


class _TrackedAdapter(HTTPAdapter):
    """requests' adapter whose pools open tracked connections (its documented subclassing hook)."""

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_TRACKED_POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> urllib3.PoolManager:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if type(manager) is urllib3.ProxyManager:  # SOCKS managers keep their own connection classes
            manager.pool_classes_by_scheme = dict(_TRACKED_POOLS)
        return manager


class _Watchdog:
    """Shuts down the sockets of this thread's connections when ``seconds`` have passed, unless stopped first.

    A blocked read then returns at once, whatever the server is doing; ``fired`` tells the caller that what it
    got (an error, or a body cut short) is the deadline's doing.
    """

    def __init__(self, seconds: float) -> None:
        self._links = _links_of_this_thread()
        self._fired = threading.Event()
        self._timer = threading.Timer(max(0.0, seconds), self._cut)
        self._timer.daemon = True
        self._timer.start()

    @property
    def fired(self) -> bool:
        return self._fired.is_set()

    def _cut(self) -> None:
        self._fired.set()
        self._links.cut()

    def stop(self) -> None:
        self._timer.cancel()


class _DeadlinePassed(Exception):
    """The request ran out of its total time (raised inside the transport, turned into a message by it)."""


class _TooLarge(Exception):
    """The answer is larger than the cap."""


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


def redact_key(body: Any, secret: str) -> tuple[Any, bool]:
    """``body`` (parsed JSON) with every occurrence of ``secret`` (any case) in strings and object keys blanked
    out, and whether there was one. Iterative; a body nested deeper than ``MAX_ANSWER_DEPTH`` is refused.
    """
    pattern = re.compile(re.escape(secret), re.IGNORECASE)
    found = False

    def clean(text: str) -> str:
        nonlocal found
        cleaned = pattern.sub(REDACTED, text)
        found = found or cleaned != text
        return cleaned

    if isinstance(body, str):
        return clean(body), found
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_ANSWER_DEPTH:
            raise LexiconError(f"BabelNet answered JSON nested more than {MAX_ANSWER_DEPTH} levels deep; refused.")
        if isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, str):
                    node[index] = clean(value)
                elif isinstance(value, list | dict):
                    stack.append((value, depth + 1))
        elif isinstance(node, dict):
            for name in list(node):
                value = node[name]
                if isinstance(value, str):
                    value = clean(value)
                elif isinstance(value, list | dict):
                    stack.append((value, depth + 1))
                new_name = clean(name)
                if new_name != name:
                    del node[name]
                node[new_name] = value
    return body, found


def synset_answer_problem(body: Any) -> str | None:
    """Why a getSynset answer cannot be used (None when it can): not an object, no senses, no English sense.

    Every getSynset request asks for English, and every synset pre-population asks about has an English
    lemma, so an answer without one is a broken or hostile server, never a fact to record.
    """
    if not isinstance(body, dict):
        return f"{type(body).__name__}, expected an object"
    senses = body.get("senses")
    if not senses:
        return "no senses"
    if not isinstance(senses, list):
        return "'senses' that is not a list"
    if not any(sense is not None and sense.lang == ENGLISH for sense in map(parse_sense, senses)):
        return "no English sense"
    return None


# --- the client ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EndpointCounts:
    """Per-endpoint traffic: HTTP requests sent (retries included), of which retries, and cache hits."""

    requests: int = 0
    retries: int = 0
    cache_hits: int = 0
    stored: int = 0


class _Retry:
    """A transient failure worth another attempt (time-outs, connection errors, HTTP 5xx and 429), if time is left."""

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
        self._key = _Secret(api_key.strip())
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
    def requests_made(self) -> int:
        return sum(count.requests for count in self.counts.values())

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
            session.mount("http://", _TrackedAdapter())
            session.mount("https://", _TrackedAdapter())
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

    def _backoff(self, attempt: int, wait_hint: float | None) -> float:
        delay = self.backoff_base * (2**attempt) * (1 + random.random() / 4)
        if wait_hint is not None:
            delay = max(delay, wait_hint)
        return min(delay, self.backoff_max)

    def _fetch(self, endpoint: str, params: list[tuple[str, str]]) -> tuple[str, Any]:
        """Send the request with retries, all within the deadline; return (body text, parsed body) of a good answer."""
        url = self.base_url + endpoint
        described = describe_request(endpoint, params)
        deadline_at = time.monotonic() + self.deadline
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
            if attempt + 1 < attempts:
                delay = self._backoff(attempt, outcome.wait_hint)
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
        watchdog = _Watchdog(remaining)
        try:
            response = self._session().get(
                url,
                params=[*params, (API_KEY_PARAM, self._key.reveal())],
                timeout=(per_read, per_read),
                allow_redirects=False,  # a redirect would carry the key in the query string to another host
                stream=True,  # read in chunks: refused past the cap, never held whole
            )
            content = self._read_capped(response, deadline_at)
        except _TooLarge:
            too_large = True
        except _DeadlinePassed:
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

    def _read_capped(self, response: requests.Response, deadline_at: float) -> bytes:
        """The (decoded) body, read a chunk at a time: ``_TooLarge`` past the cap, ``_DeadlinePassed`` past the
        deadline (the watchdog's back-up, for connections it cannot reach, e.g. through a SOCKS proxy)."""
        announced = response.headers.get("Content-Length", "")
        if announced.isdigit() and int(announced) > self.max_answer_bytes:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_content(_READ_CHUNK):
            size += len(chunk)
            if size > self.max_answer_bytes:
                raise _TooLarge
            if time.monotonic() >= deadline_at:
                raise _DeadlinePassed
            chunks.append(chunk)
        return b"".join(chunks)

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
            if not _is_refusal(status, message):
                raise LexiconError(f"BabelNet rejected the request {described}: {message}")
            raise LexiconQuotaError(
                f"BabelNet refused to answer: {message} (request {described}). Everything fetched so far is "
                "kept in the cache; run again once the key is valid or the daily limit has reset."
            )
        if 300 <= status < 400:
            raise LexiconError(self._redirect_message(response, described))
        if status == 429 or status >= 500:
            return _Retry(f"HTTP {status}", _retry_after(response) if status == 429 else None)
        if status >= 400:
            raise LexiconError(f"BabelNet request {described} failed: HTTP {status}.")
        if not is_json:
            raise LexiconError(f"BabelNet request {described} answered something that is not JSON (HTTP {status}).")
        # Never use or store the key, even if the server echoed it back (in a gloss, a lemma, anywhere).
        body, echoed = redact_key(body, secret)
        if echoed or secret.lower() in text.lower():
            log.warning("BabelNet request %s: the answer contained the API key; it was blanked out", described)
            text = json.dumps(body, ensure_ascii=False)
        if endpoint == SYNSET_IDS_ENDPOINT and not isinstance(body, list):
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
        return _KEY_IN_URL.sub(r"\1<redacted>", text).replace(self._key.reveal(), "<redacted>")


def _is_refusal(status: int, message: str) -> bool:
    """Is a ``{"message": ...}`` answer the key/daily-limit refusal (stop the run) rather than a bad request?

    BabelNet uses one message for an invalid key and a spent allowance; it names the key and the limit.
    Other messages ("Wrong parameters.") on a 400/404 are plain errors in this request.
    """
    lowered = message.lower()
    return status in (401, 403) or "key" in lowered or "limit" in lowered


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
