"""A real local HTTP server that answers like the BabelNet HTTP API (v9), fed from snapshot-format data.

Tests point ``BabelNetLexicon`` at it instead of babelnet.io: requests go over real sockets, with the
real JSON shapes (senses wrapped as ``{"type", "properties"}``, ``wordNetSenseNumber`` inside
``properties``, underscores in lemmas, the ``{"message": ...}`` refusal). The server records every
request, enforces the three-extra-languages limit and the key, and can be told to misbehave: refuse
after N requests (quota), fail the next K requests with 500/429, or answer slowly (timeouts). Hostile or
broken servers too: drip the answer one byte every few seconds (body or headers), stream a huge answer (made
on the fly, never held in memory: 400 MB costs the server a few kB), answer a fixed body such as ``{}``, or
echo the API key back inside glosses and lemmas.

It parses its data on its own (not with ``annotator.lexicon.snapshot``), so a bug in the code under test
cannot hide itself. Usable as a context manager; ``fake_babelnet`` is a ready pytest fixture.
"""

from __future__ import annotations

import copy
import gzip
import json
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

QUOTA_MESSAGE = "Your key is not valid or the daily requests limit has been reached. Please visit http://babelnet.org."
TOO_MANY_LANGUAGES_MESSAGE = "Wrong parameters: targetLang accepts at most 3 languages besides English."
DEFAULT_KEY = "fake-babelnet-key-7f3a9c21e5"
MAX_EXTRA_TARGET_LANGS = 3


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it. The key is not kept, only whether it was right."""

    endpoint: str
    params: tuple[tuple[str, str], ...]
    key_ok: bool

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.params if key == name]

    def value(self, name: str) -> str | None:
        found = self.values(name)
        return found[0] if found else None


@dataclass
class _Fault:
    """A misbehaviour for the next ``remaining`` requests (None: every request) to ``endpoint`` (None: any)."""

    kind: str  # "drip", "huge", "answer", "echo_key"
    endpoint: str | None
    remaining: int | None
    options: dict[str, Any] = field(default_factory=dict)


#: A huge answer is streamed in blocks of about this size.
_HUGE_BLOCK = 1024 * 1024


def _lemma_key(text: str) -> str:
    return " ".join(text.replace("_", " ").split()).casefold()


class FakeBabelNet:
    """The fake server. ``base_url`` is what a client uses; ``requests`` is the request log."""

    def __init__(
        self,
        data: Mapping[str, Any],
        api_key: str = DEFAULT_KEY,
        *,
        api_version: str = "v9",
        refusal_status: int = 403,
        decoy_english_gloss: bool = False,
    ) -> None:
        self.api_key = api_key
        self.api_version = api_version
        self.refusal_status = refusal_status
        self.decoy_english_gloss = decoy_english_gloss
        self._lock = threading.Lock()
        self.set_data(data)
        #: Bytes of huge answers written to the socket, compressed or not (a client that refuses early stops them).
        self.streamed_bytes = 0
        self._log: list[RecordedRequest] = []
        self._quota_remaining: int | None = None
        self._failures: list[int] = []
        self._delays: list[float] = []
        self._redirects: list[tuple[int, str]] = []
        self._faults: list[_Fault] = []
        self._stopping = threading.Event()
        self._sense_counter = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifetime -----------------------------------------------------------------------------------

    def start(self) -> FakeBabelNet:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        self._stopping.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-babelnet", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # dripping and streaming handlers end too
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeBabelNet:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/{self.api_version}/"

    # --- controls -----------------------------------------------------------------------------------

    def set_data(self, data: Mapping[str, Any]) -> None:
        """Serve this data from now on (BabelNet's data changed)."""
        synsets = {record["id"]: record for record in copy.deepcopy(data["synsets"])}
        lemmas = {
            (_lemma_key(entry["lemma"]), entry["lang"].upper(), entry["pos"].upper()): list(entry["synsets"])
            for entry in data.get("lemmas", [])
        }
        with self._lock:
            self._synsets, self._lemmas = synsets, lemmas

    def exhaust_quota_after(self, answered: int) -> None:
        """Answer the next ``answered`` requests normally, then refuse every request with the quota message."""
        with self._lock:
            self._quota_remaining = answered

    def lift_quota(self) -> None:
        with self._lock:
            self._quota_remaining = None

    def fail_next(self, count: int, status: int = 500) -> None:
        """The next ``count`` requests fail with HTTP ``status`` (500, 503, 429, ...)."""
        with self._lock:
            self._failures.extend([status] * count)

    def redirect_next(self, count: int, base: str, status: int = 302) -> None:
        """The next ``count`` requests are answered with a redirect to ``base`` + the request's path and query (the
        key included, as a moved server would)."""
        with self._lock:
            self._redirects.extend([(status, base.rstrip("/"))] * count)

    def delay_next(self, count: int, seconds: float) -> None:
        """The next ``count`` requests are answered only after ``seconds`` (to provoke client timeouts)."""
        with self._lock:
            self._delays.extend([seconds] * count)

    def drip_next(
        self, count: int | None, interval: float = 5.0, *, phase: str = "body", endpoint: str | None = None
    ) -> None:
        """Answer the next ``count`` requests (None: all) one byte every ``interval`` seconds: ``phase="body"``
        sends the headers at once and drips the body; ``"headers"`` drips everything from the status line on."""
        assert phase in ("body", "headers")
        self._add_fault(_Fault("drip", endpoint, count, {"interval": interval, "phase": phase}))

    def huge_next(
        self,
        count: int | None,
        size: int,
        *,
        content_length: bool = True,
        compressed: bool = False,
        endpoint: str | None = None,
    ) -> None:
        """Answer with a valid JSON body of ``size`` bytes (a getSynset object or a getSynsetIds list, made of one
        repeated entry), streamed as it is made. ``content_length=False`` sends no length (the body ends when the
        connection closes); ``compressed`` gzips it on the fly (a small transfer that decodes to ``size`` bytes)."""
        options = {"size": size, "content_length": content_length and not compressed, "compressed": compressed}
        self._add_fault(_Fault("huge", endpoint, count, options))

    def answer_next(self, count: int | None, body: Any, *, status: int = 200, endpoint: str | None = None) -> None:
        """Answer the next ``count`` requests (None: all) with this JSON ``body`` (e.g. ``{}``)."""
        self._add_fault(_Fault("answer", endpoint, count, {"body": body, "status": status}))

    def echo_key_next(self, count: int | None, *, endpoint: str | None = None) -> None:
        """Answer normally, but with the request's key inside every gloss, and upper-cased inside every
        non-English lemma (where it would become a GOOD/BAD candidate)."""
        self._add_fault(_Fault("echo_key", endpoint, count))

    def _add_fault(self, fault: _Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def _take_fault(self, endpoint: str) -> _Fault | None:
        """The first queued fault that applies to ``endpoint``, counted down (call with the lock held)."""
        for fault in self._faults:
            if fault.endpoint is None or fault.endpoint == endpoint:
                if fault.remaining is not None:
                    fault.remaining -= 1
                    if fault.remaining <= 0:
                        self._faults.remove(fault)
                return fault
        return None

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    # --- inspection ---------------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._log)

    def count(self, endpoint: str | None = None) -> int:
        return sum(1 for request in self.requests if endpoint is None or request.endpoint == endpoint)

    @property
    def counts(self) -> Counter[str]:
        return Counter(request.endpoint for request in self.requests)

    # --- serving ------------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        endpoint = parts.path.rstrip("/").rsplit("/", 1)[-1]
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        keys = [value for name, value in pairs if name == "key"]
        key_ok = keys == [self.api_key]
        with self._lock:
            self._log.append(RecordedRequest(endpoint, tuple((n, v) for n, v in pairs if n != "key"), key_ok))
            delay = self._delays.pop(0) if self._delays else 0.0
            failure = self._failures.pop(0) if self._failures else None
            redirect = self._redirects.pop(0) if self._redirects else None
            fault = self._take_fault(endpoint) if failure is None and redirect is None else None
            refuse = False
            if failure is None and key_ok and self._quota_remaining is not None:
                if self._quota_remaining <= 0:
                    refuse = True
                else:
                    self._quota_remaining -= 1
        if delay:
            time.sleep(delay)
        if redirect is not None:
            status, base = redirect
            self._send(handler, status, b"", "text/plain", {"Location": base + handler.path})
            return
        if failure is not None:
            headers = {"Retry-After": "0"} if failure == 429 else {}
            self._send(handler, failure, b"<html><body>Server trouble</body></html>", "text/html", headers)
            return
        if not key_ok or refuse:
            self._send_json(handler, self.refusal_status, {"message": QUOTA_MESSAGE})
            return
        if fault is not None and fault.kind == "huge":
            self._send_huge(handler, endpoint, **fault.options)
            return
        if fault is not None and fault.kind == "answer":
            self._send_json(handler, fault.options["status"], fault.options["body"])
            return
        params: dict[str, list[str]] = {}
        for name, value in pairs:
            params.setdefault(name, []).append(value)
        if endpoint == "getSynsetIds":
            status, body = self._synset_ids(params)
        elif endpoint == "getSynset":
            status, body = self._synset(params)
        elif endpoint == "getOutgoingEdges":
            status, body = self._edges(params)
        else:
            status, body = 404, {"message": f"Unknown method {endpoint}."}
        if fault is not None and fault.kind == "echo_key":
            body = _echo_key(body, keys[0])
        if fault is not None and fault.kind == "drip":
            self._drip(handler, status, json.dumps(body, ensure_ascii=False).encode("utf-8"), **fault.options)
            return
        self._send_json(handler, status, body, gzip_ok="gzip" in (handler.headers.get("Accept-Encoding") or ""))

    def _drip(self, handler: BaseHTTPRequestHandler, status: int, payload: bytes, interval: float, phase: str) -> None:
        """Send the answer one byte per ``interval`` (each byte is flushed: a per-read time-out never fires)."""
        head = (
            f"HTTP/1.0 {status} OK\r\nContent-Type: application/json;charset=UTF8\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        ).encode("ascii")
        try:
            if phase == "body":
                handler.wfile.write(head)
                handler.wfile.flush()
                slow = payload
            else:
                slow = head + payload
            for index in range(len(slow)):
                if self._stopping.wait(interval):
                    return
                handler.wfile.write(slow[index : index + 1])
                handler.wfile.flush()
        except OSError:
            pass  # the client gave up: what the test wants

    def _send_huge(
        self, handler: BaseHTTPRequestHandler, endpoint: str, size: int, content_length: bool, compressed: bool
    ) -> None:
        """Stream a valid JSON answer of ``size`` bytes, one block at a time (memory: one block)."""
        if endpoint == "getSynsetIds":
            head, last, tail = b"[", b'{"id": "bn:00000001n", "pos": "NOUN", "source": "BABELNET"}', b"]"
            unit = last + b", "
        else:
            head, tail = b'{"senses": [', b'], "glosses": []}'
            last = json.dumps(
                {"type": "BabelSense", "properties": {"fullLemma": "x", "language": "EN", "source": "WIKI"}}
            ).encode()
            unit = last + b", "
        repeats = max(0, (size - len(head) - len(last) - len(tail)) // len(unit))
        total = len(head) + repeats * len(unit) + len(last) + len(tail)
        block = unit * max(1, _HUGE_BLOCK // len(unit))
        per_block = len(block) // len(unit)
        packer = zlib.compressobj(wbits=31) if compressed else None  # 31: gzip framing

        def pieces() -> Iterator[bytes]:
            yield head
            left = repeats
            while left > 0:
                take = min(left, per_block)
                yield block if take == per_block else unit * take
                left -= take
            yield last + tail

        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json;charset=UTF8")
            if content_length:
                handler.send_header("Content-Length", str(total))
            if packer is not None:
                handler.send_header("Content-Encoding", "gzip")
            handler.end_headers()
            for piece in pieces():
                if self._stopping.is_set():
                    return
                wire = packer.compress(piece) if packer is not None else piece
                handler.wfile.write(wire)
                with self._lock:
                    self.streamed_bytes += len(wire)
            if packer is not None:
                handler.wfile.write(packer.flush())
        except OSError:
            pass  # the client refused the rest: what the test wants

    def _send_json(self, handler: BaseHTTPRequestHandler, status: int, body: Any, gzip_ok: bool = False) -> None:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {}
        if gzip_ok:
            payload = gzip.compress(payload)
            headers["Content-Encoding"] = "gzip"
        self._send(handler, status, payload, "application/json;charset=UTF8", headers)

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler, status: int, payload: bytes, content_type: str, headers: Mapping[str, str]
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test); nothing to answer

    def _synset_ids(self, params: dict[str, list[str]]) -> tuple[int, Any]:
        lemmas, search_langs = params.get("lemma", []), params.get("searchLang", [])
        if len(lemmas) != 1 or not search_langs:
            return 400, {"message": "Wrong parameters."}
        wanted_pos = {pos.upper() for pos in params.get("pos", [])}
        lemma = _lemma_key(lemmas[0])
        found: dict[str, str] = {}
        for lang in (value.upper() for value in search_langs):
            for pos in sorted(wanted_pos) or sorted({record["pos"] for record in self._synsets.values()}):
                ids = self._lemmas.get((lemma, lang, pos))
                if ids is None:  # no explicit entry: every synset with a sense of that lemma in that language
                    ids = [
                        record["id"]
                        for record in self._synsets.values()
                        if record["pos"] == pos
                        and any(
                            _lemma_key(sense["lemma"]) == lemma and sense["lang"].upper() == lang
                            for sense in record["senses"]
                        )
                    ]
                for synset_id in ids:
                    found.setdefault(synset_id, self._synsets[synset_id]["pos"])
        return 200, [{"id": synset_id, "pos": pos, "source": "BABELNET"} for synset_id, pos in found.items()]

    def _synset(self, params: dict[str, list[str]]) -> tuple[int, Any]:
        ids = params.get("id", [])
        if len(ids) != 1:
            return 400, {"message": "Wrong parameters."}
        target_langs = list(dict.fromkeys(lang.upper() for lang in params.get("targetLang", ["EN"])))
        if len([lang for lang in target_langs if lang != "EN"]) > MAX_EXTRA_TARGET_LANGS:
            return 400, {"message": TOO_MANY_LANGUAGES_MESSAGE}
        record = self._synsets.get(ids[0])
        if record is None:
            return 400, {"message": f"Wrong parameters: no synset {ids[0]}."}
        langs = set(target_langs)
        return 200, {
            "senses": [self._sense_json(record, sense) for sense in record["senses"] if sense["lang"].upper() in langs],
            "wnOffsets": [],
            "glosses": self._glosses_json(record, langs),
            "examples": [],
            "images": [],
            "synsetType": "CONCEPT",
            "categories": [],
            "translations": {},
            "domains": {},
            "lnToCompound": {},
            "lnToOtherForm": {},
            "filterLangs": target_langs,
            "bkeyConcepts": False,
        }

    def _edges(self, params: dict[str, list[str]]) -> tuple[int, Any]:
        """getOutgoingEdges: the record's ``edges`` ([[kind, target], …]) as BabelNet sends them, every edge with its
        pointer (WordNet symbol, name, group) — a kind not in ``_POINTERS`` is sent as Wikipedia's "semantically
        related" edge, which BabelNet has for most synsets and a client must not follow."""
        ids = params.get("id", [])
        if len(ids) != 1:
            return 400, {"message": "Wrong parameters."}
        record = self._synsets.get(ids[0])
        if record is None:
            return 400, {"message": f"Wrong parameters: no synset {ids[0]}."}
        edges = []
        for kind, target in record.get("edges", []):
            symbol, name, group = _POINTERS.get(kind, ("r", "Semantically related form", "OTHER"))
            pointer = {"fSymbol": symbol, "name": name, "shortName": name.lower(), "relationGroup": group,
                       "isAutomatic": symbol == "r"}  # fmt: skip
            edges.append({"language": "EN", "pointer": pointer, "target": target, "weight": 0.0,
                          "normalizedWeight": 0.0})  # fmt: skip
        return 200, edges

    def _sense_json(self, record: Mapping[str, Any], sense: Mapping[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._sense_counter += 1
            sense_id = self._sense_counter
        source, lang = sense["source"].upper(), sense["lang"].upper()
        full_lemma = sense["lemma"].replace(" ", "_")
        properties: dict[str, Any] = {
            "fullLemma": full_lemma,
            "simpleLemma": full_lemma.lower(),
            "lemma": {"lemma": full_lemma, "type": "HIGH_QUALITY"},
            "source": source,
            "senseKey": f"{full_lemma.lower()}%{sense_id}",
            "frequency": 0,
            "language": lang,
            "pos": record["pos"],
            "synsetID": {"id": record["id"], "pos": record["pos"], "source": "BABELNET"},
            "translationInfo": "",
            "pronunciations": {"audios": [], "transcriptions": []},
            "bKeySense": False,
            "idSense": sense_id,
        }
        # Like BabelNet, wordnet-derived senses (WN and the OMW wordnets) are typed WordNetSense. Only the
        # English WN ones carry a meaningful number; OMW ones get a decoy the client must ignore.
        if source == "WN" or source.startswith("OMWN"):
            number = sense.get("wordnet_sense_number") if source == "WN" and lang == "EN" else 1
            properties["wordNetOffset"] = f"{sense_id:08d}{record['pos'][0].lower()}"
            properties["wordNetSynsetPosition"] = 1
            if number is not None:
                properties["wordNetSenseNumber"] = number
            return {"type": "WordNetSense", "properties": properties}
        return {"type": "BabelSense", "properties": properties}

    def _glosses_json(self, record: Mapping[str, Any], langs: set[str]) -> list[dict[str, Any]]:
        glosses: list[dict[str, Any]] = []
        for lang, text in record.get("glosses", {}).items():
            lang = lang.upper()
            if lang not in langs:
                continue
            if lang == "EN" and self.decoy_english_gloss:
                glosses.append(
                    {"source": "WIKIDATA", "sourceSense": 1, "language": "EN", "gloss": f"(decoy) {text}", "tokens": []}
                )
            source = "WN" if lang == "EN" else "OMWN"
            glosses.append({"source": source, "sourceSense": 2, "language": lang, "gloss": text, "tokens": []})
        return glosses


#: Relation kinds as BabelNet's pointers: (WordNet symbol, name, relation group).
_POINTERS = {
    "hypernym": ("@", "Hypernym", "HYPERNYM"),
    "instance_hypernym": ("@i", "Instance hypernym", "HYPERNYM"),
    "hyponym": ("~", "Hyponym", "HYPONYM"),
    "similar": ("&", "Similar to", "OTHER"),
    "also": ("^", "Also See", "OTHER"),
    "derivation": ("+", "Derivationally related form", "OTHER"),
    "meronym": ("%p", "Part meronym", "MERONYM"),
}


def _echo_key(body: Any, key: str) -> Any:
    """A normal answer with the key in every gloss and (upper-cased) in every non-English lemma."""
    if not isinstance(body, dict):
        return body
    body = copy.deepcopy(body)
    for gloss in body.get("glosses", []):
        gloss["gloss"] = f"{gloss['gloss']} (key {key})"
    for sense in body.get("senses", []):
        props = sense["properties"]
        if props["language"] != "EN":
            props["fullLemma"] = f"{props['fullLemma']}_{key.upper()}"
            props["simpleLemma"] = props["fullLemma"].lower()
            props["lemma"]["lemma"] = props["fullLemma"]
    return body


# --- sample data --------------------------------------------------------------------------------------


def _sense(lemma: str, lang: str, source: str, number: int | None = None) -> dict[str, Any]:
    sense: dict[str, Any] = {"lemma": lemma, "lang": lang, "source": source}
    if number is not None:
        sense["wordnet_sense_number"] = number
    return sense


_SAMPLE: dict[str, Any] = {
    "format": "annotator-lexicon-snapshot",
    "format_version": 1,
    "label": "Hand-built test data shaped like BabelNet answers; not BabelNet output.",
    "provider": "hand-built test sample",
    "version": "test-1",
    # BabelNet's order is not the WordNet sense order: ranks must come from wordNetSenseNumber.
    "lemmas": [
        {
            "lemma": "shot",
            "lang": "EN",
            "pos": "NOUN",
            "synsets": ["bn:00057755n", "bn:00070983n", "bn:00070966n", "bn:00070986n", "bn:00070978n"],
        }
    ],
    "synsets": [
        {
            "id": "bn:00070966n",
            "pos": "NOUN",
            "glosses": {"EN": "The act of firing a projectile.", "IT": "L'atto di sparare un proiettile."},
            "senses": [
                _sense("shot", "EN", "WN", 1),
                _sense("gunshot", "EN", "WN", 1),
                _sense("sparo", "IT", "OMWN_IT"),
                _sense("colpo di pistola", "IT", "IWN"),
                _sense("tiro", "IT", "WNTR"),
                _sense("disparo", "ES", "MCR_ES"),
                _sense("tiro", "ES", "MCR_ES"),
                _sense("Schuss", "DE", "WIKT"),
                _sense("Abschuss", "DE", "WIKITR"),
                _sense("выстрел", "RU", "WIKT"),
                _sense("射击", "ZH", "OMWN_ZH"),
                _sense("coup de feu", "FR", "WIKT"),
            ],
        },
        {
            "id": "bn:00070978n",
            "pos": "NOUN",
            "glosses": {"EN": "An attempt to do something."},
            "senses": [
                _sense("shot", "EN", "WN", 2),
                _sense("attempt", "EN", "WN", 1),
                _sense("tentativo", "IT", "OMWN_IT"),
                _sense("intento", "ES", "MCR_ES"),
                _sense("Versuch", "DE", "WIKT"),
                _sense("попытка", "RU", "WIKT"),
                _sense("尝试", "ZH", "OMWN_ZH"),
            ],
        },
        {
            "id": "bn:00057755n",
            "pos": "NOUN",
            "glosses": {"EN": "A small drink of liquor.", "DE": "Eine kleine Menge Schnaps."},
            "senses": [
                _sense("shot", "EN", "WN", 3),
                _sense("nip", "EN", "WN", 1),
                _sense("Shot (drink)", "EN", "WIKI"),
                _sense("goccio", "IT", "OMWN_IT"),
                _sense("bicchierino", "IT", "IWN"),
                _sense("trago", "ES", "MCR_ES"),
                _sense("chupito", "ES", "MCR_ES"),
                _sense("Schnaps", "DE", "WIKT"),
                _sense("Kurzer", "DE", "WIKTLB"),
                _sense("стопка", "RU", "WIKT"),
                _sense("一口", "ZH", "OMWN_ZH"),
            ],
        },
        {
            "id": "bn:00070986n",
            "pos": "NOUN",
            "glosses": {"EN": "The act of putting a liquid into the body with a syringe."},
            "senses": [
                _sense("shot", "EN", "WN", 4),
                _sense("injection", "EN", "WN", 1),
                _sense("iniezione", "IT", "OMWN_IT"),
                _sense("puntura", "IT", "IWN"),
                _sense("inyección", "ES", "MCR_ES"),
                _sense("Spritze", "DE", "WIKT"),
                _sense("укол", "RU", "WIKT"),
                _sense("注射", "ZH", "OMWN_ZH"),
            ],
        },
        {
            "id": "bn:00070983n",
            "pos": "NOUN",
            "glosses": {"EN": "An informal photograph."},
            "senses": [
                _sense("shot", "EN", "WN", 5),
                _sense("snapshot", "EN", "WN", 1),
                _sense("istantanea", "IT", "OMWN_IT"),
                _sense("instantánea", "ES", "MCR_ES"),
                _sense("Schnappschuss", "DE", "WIKT"),
                _sense("снимок", "RU", "WIKT"),
                _sense("快照", "ZH", "OMWN_ZH"),
            ],
        },
    ],
}


def sample_snapshot_data() -> dict[str, Any]:
    """A fresh copy of the test sample (snapshot format): five noun synsets of "shot" in seven languages."""
    return copy.deepcopy(_SAMPLE)


@pytest.fixture
def fake_babelnet() -> Iterator[FakeBabelNet]:
    """A running fake BabelNet serving the sample data; stopped after the test."""
    with FakeBabelNet(sample_snapshot_data()) as server:
        yield server
