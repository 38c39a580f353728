"""Licences as data: what each lexicon source's licence allows, and which licence a published dataset
may take over those sources.

A benchmark's candidates and glosses are an adaptation of the lexicon they came from, so its licence must keep
what every source asks: a non-commercial source forbids a licence allowing commercial use, a share-alike source
asks for the same licence (or a later version), a licence this table does not know can only be published as
``other`` with the sources listed. A licence is identified only by its exact id, a known URL or a full known name
(``identify``): a text that merely holds a licence's words is unknown. Pure: the providers say which licence their
data has (``lexicon/licences.py``); the project records each source as it was when used (``SourceRecord``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

#: The licence id a dataset card uses when none of the known ones fits; the card then lists every source's licence.
OTHER = "other"


@dataclass(frozen=True)
class Licence:
    """One licence. ``id`` is the Hugging Face / SPDX-style id (lower case) a dataset card names."""

    id: str
    name: str
    url: str
    #: Whether data under it may be used commercially.
    commercial: bool = True
    #: Share-alike family (``cc-by-sa``): an adaptation must be released in the same family, same or later version.
    share_alike: str = ""
    version: float = 0.0
    #: A licence a dataset may be published under (``--license``); source-only licences (WordNet's) are not.
    publishable: bool = True
    #: Known terms: False for a licence text this table does not recognise.
    known: bool = True
    #: What identifies it, each compared whole (``identify``): other ids (SPDX spellings), full names, URLs.
    aliases: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    #: Whether the licence asks for its notice (its full text) in every copy: publish bundles its text.
    notice: bool = False


def _cc(kind: str, version: str) -> Licence:
    """A Creative Commons licence from its short form (``by-sa``) and version (``4.0``)."""
    names = {"by": "Attribution", "by-sa": "Attribution-ShareAlike", "by-nc": "Attribution-NonCommercial"}
    names["by-nc-sa"] = "Attribution-NonCommercial-ShareAlike"
    scope = " International" if version == "4.0" else " Unported"
    title = f"Creative Commons {names[kind]} {version}{scope}"
    url = f"https://creativecommons.org/licenses/{kind}/{version}/"
    spdx = f"cc-{kind}-{version}"
    short = f"CC {kind.upper()} {version}"
    return Licence(
        id=spdx,
        name=title,
        url=url,
        commercial="nc" not in kind.split("-"),
        share_alike=f"cc-{kind}" if kind.endswith("sa") else "",
        version=float(version),
        # the legal code's own title (its first line), the name with "License" / "Public License", the short form
        aliases=(
            f"{names[kind]} {version}{scope}",
            title + " License",
            title + " Public License",
            short,
            f"CC-{kind.upper()} {version}",
            short + scope,
        ),
        urls=(url, url + "legalcode", url + "deed.en"),
    )


#: Every licence publish knows. Each is identified only by its id, one of its full names or one of its URLs,
#: compared with the whole text (``identify``): a text that merely contains a licence's words is not that licence.
LICENCES: tuple[Licence, ...] = (
    Licence(
        id="babelnet-nc",
        name="BabelNet Non-Commercial License",
        url="https://babelnet.org/full-license",
        commercial=False,
        publishable=False,
        aliases=("BabelNet Non-Commercial License", "BabelNet NC License"),
        urls=("https://babelnet.org/full-license", "https://babelnet.org/license"),
    ),
    *(_cc(kind, version) for kind in ("by-nc-sa", "by-nc", "by-sa", "by") for version in ("4.0", "3.0")),
    Licence(
        id="cc0-1.0",
        name="Creative Commons Zero 1.0 Universal",
        url="https://creativecommons.org/publicdomain/zero/1.0/",
        aliases=(
            "CC0",
            "CC0 1.0 Universal",
            "Creative Commons Zero v1.0 Universal",
            "CC0 1.0",
            "CC0 1.0 Universal Public Domain Dedication",
        ),
        urls=(
            "https://creativecommons.org/publicdomain/zero/1.0/",
            "https://creativecommons.org/publicdomain/zero/1.0/legalcode",
        ),
    ),
    Licence(
        id="odc-by",
        name="Open Data Commons Attribution License 1.0",
        url="https://opendatacommons.org/licenses/by/1-0/",
        aliases=("odc-by-1.0", "Open Data Commons Attribution License", "Open Data Commons Attribution License v1.0"),
        urls=(
            "https://opendatacommons.org/licenses/by/1-0/",
            "https://opendatacommons.org/licenses/by/1.0/",
            "https://opendatacommons.org/licenses/by/",
            "http://www.opendefinition.org/licenses/odc-by",
        ),
    ),
    Licence(
        id="wordnet",
        name="WordNet 3.0 License (Princeton University)",
        url="https://wordnet.princeton.edu/license-and-commercial-use",
        publishable=False,
        aliases=("WordNet License", "WordNet 3.0 License", "Princeton WordNet License", "WordNet 3.0 license"),
        urls=(
            "https://wordnet.princeton.edu/license-and-commercial-use",
            "https://wordnet.princeton.edu/wordnet/license/",
        ),
        notice=True,
    ),
    Licence(
        id="cow",
        name="Chinese Open Wordnet License (WordNet-style, F. Bond and S. Wang)",
        url="https://github.com/omwn/omw-data/blob/main/wns/cow/LICENSE",
        publishable=False,
        aliases=("Chinese Open Wordnet License", "COW License"),
        urls=("https://github.com/omwn/omw-data/blob/main/wns/cow/LICENSE",),
        notice=True,
    ),
    Licence(
        id="apache-2.0",
        name="Apache License 2.0",
        url="https://www.apache.org/licenses/LICENSE-2.0",
        aliases=("Apache License 2.0", "Apache License, Version 2.0", "Apache 2.0"),
        urls=("https://www.apache.org/licenses/LICENSE-2.0", "https://www.apache.org/licenses/LICENSE-2.0.txt"),
    ),
    Licence(
        id="mit",
        name="MIT License",
        url="https://opensource.org/license/mit",
        aliases=("MIT License", "The MIT License"),
        urls=("https://opensource.org/license/mit", "https://opensource.org/licenses/MIT"),
    ),
)

_BY_ID = {licence.id: licence for licence in LICENCES}
#: An id that stands for no known licence: the terms are unknown, only ``other`` can be published over it.
UNKNOWN = "unknown"


def licence_by_id(licence_id: str) -> Licence | None:
    return _BY_ID.get(licence_id.strip().lower())


def publishable_ids() -> list[str]:
    """The ids ``--license`` accepts besides ``other``."""
    return [licence.id for licence in LICENCES if licence.publishable]


def _normal(text: str) -> str:
    """A name or id compared whole: case, spacing and a final full stop do not matter."""
    return " ".join(text.split()).casefold().rstrip(".").strip()


def _url_key(url: str) -> str:
    """A URL compared whole: scheme, ``www.`` and a final slash do not matter."""
    key = _normal(url)
    key = re.sub(r"^https?://", "", key)
    key = re.sub(r"^www\.", "", key)
    return key.rstrip("/")


_BY_NAME = {_normal(name): licence for licence in LICENCES for name in (licence.id, licence.name, *licence.aliases)}
_BY_URL = {_url_key(url): licence for licence in LICENCES for url in licence.urls}


def unknown_licence(text: str) -> Licence:
    """A licence whose terms publish cannot check: it keeps the text it was stated as."""
    raw = text.strip()
    return Licence(
        id=UNKNOWN, name=raw or "not stated", url=raw if raw.startswith(("http://", "https://")) else "", known=False
    )


def identify(text: str | None) -> Licence:
    """The licence a text names, compared whole: an exact id (SPDX spelling), a known URL or a full known name.

    Anything else is unknown, whatever words it holds: "Not CC0: research use only" is not CC0, a German text
    holding "mit" is not MIT, "same terms as the Princeton WordNet" is not the WordNet licence.
    """
    raw = (text or "").strip()
    if not raw:
        return unknown_licence("")
    found = _BY_URL.get(_url_key(raw)) if re.match(r"^https?://\S+$", raw) else _BY_NAME.get(_normal(raw))
    return found or unknown_licence(raw)


#: The first line of a legal code that is not yet its title (Creative Commons 3.0 legal codes).
_PREAMBLE = {"creative commons legal code"}


def identify_document(text: str, known_texts: dict[str, str] | None = None) -> Licence:
    """The licence a LICENSE file holds: its whole text when it is one of ``known_texts`` (licence id → full text,
    compared with spacing ignored), else its title (first line, after a Creative Commons preamble) when that is a
    full known name, else the whole text when it is an id, a URL or a name. Anything else is unknown."""
    flat = " ".join(text.split())
    for licence_id, known in (known_texts or {}).items():
        if flat and flat == " ".join(known.split()):
            return _BY_ID.get(licence_id) or unknown_licence(flat[:200])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and _normal(lines[0]) in _PREAMBLE:
        lines = lines[1:]
    if lines:
        title = identify(lines[0])
        if title.known:
            return title
    whole = identify(flat) if len(flat) <= 300 else unknown_licence("")
    return whole if whole.known else unknown_licence(lines[0][:200] if lines else "")


_STATEMENT = re.compile(r"^\W*licen[cs]e\W*?[:：]\s*(?P<value>.+)$", re.I)
_URL = re.compile(r"https?://[^\s)>\]`'\"]+")


def identify_statement(readme: str) -> Licence | None:
    """The licence a README states on a "Licence: …" line (Markdown marks ignored), or None when it has none.

    The line identifies a licence when its value, whole, is an id, a URL or a full name, or when the value's head
    (before a bracket or a dash) is one and the line links that same licence's known URL: two statements that
    agree. Anything else on a licence line is unknown (its text kept).
    """
    for raw_line in readme.splitlines():
        line = re.sub(r"[*_`]", "", raw_line).strip()
        match = _STATEMENT.match(line)
        if not match:
            continue
        value = match.group("value").strip()
        whole = identify(value)
        if whole.known:
            return whole
        head = identify(re.split(r"\s[(\[—–]|\s-\s", value, maxsplit=1)[0])
        linked = {_BY_URL.get(_url_key(url.rstrip(".,;"))) for url in _URL.findall(raw_line)}
        if head.known and head in linked:
            return head
        return unknown_licence(value)
    return None


@dataclass(frozen=True)
class SourceLicence:
    """One source the data came from (a lexicon, a snapshot) and its licence, as the provider states it."""

    source: str
    #: What the dataset took from it, e.g. "English synsets and glosses", "IT candidates".
    provided: str
    licence: Licence
    #: The licence as the provider wrote it (its LMF ``license`` attribute, a snapshot header).
    stated: str = ""
    url: str = ""
    citation: str = ""
    #: The licence text the source ships with its data, when it has one (published in ``LICENSES/``).
    notice: str = ""


class SourceRecord(NamedTuple):
    """A source as a project records it when its data is used (``store.provenance``): ``key`` names it
    (``corpus:<import id>``, ``lexicon:wordnet:<id>:<version>``, ``lexicon:babelnet:<version>``,
    ``lexicon:snapshot:<file>:<version>``), ``licence`` is a licence id or ``unknown``; ``notice`` the licence text the
    source ships when it asks for it to travel with every copy (or when publish cannot identify it)."""

    key: str
    kind: str
    label: str
    provided: str
    licence: str
    stated: str
    url: str = ""
    citation: str = ""
    notice: str = ""

    def source_licence(self) -> SourceLicence:
        licence = licence_by_id(self.licence) or unknown_licence(self.stated)
        return SourceLicence(self.label, self.provided, licence, self.stated, self.url, self.citation, self.notice)


def refusals(requested: str, sources: Sequence[SourceLicence]) -> list[str]:
    """Why the dataset cannot be published under ``requested`` over ``sources`` (empty: it can).

    ``other`` is always possible: the card then names no licence of its own and lists every source's licence.
    """
    wanted = requested.strip().lower()
    if wanted == OTHER:
        return []
    target = licence_by_id(wanted)
    if target is None or not target.publishable:
        choices = ", ".join([*publishable_ids(), OTHER])
        return [f"'{requested}' is not a licence publish knows; use one of: {choices}."]
    reasons: list[str] = []
    for source in sources:
        licence = source.licence
        if not licence.known:
            reasons.append(
                f"{source.source} does not state a licence publish recognises ({licence.name}): its terms cannot be "
                f"checked against {target.id}."
            )
            continue
        if not licence.commercial and target.commercial:
            reasons.append(
                f"{source.source} is under the {licence.name}, which forbids commercial use; "
                f"{target.id} would allow it."
            )
        elif licence.id == "babelnet-nc":
            reasons.append(
                f"{source.source} is under the {licence.name}, whose terms are its own: {target.id} cannot carry them."
            )
        if licence.share_alike and (target.share_alike != licence.share_alike or target.version < licence.version):
            reasons.append(
                f"{source.source} is under the {licence.name} (share-alike): data adapted from it must be released "
                f"under {licence.id} or a later version of it, not {target.id}."
            )
    return reasons


def suggested(sources: Sequence[SourceLicence]) -> str:
    """The most open licence the sources allow (``other`` when no known licence fits): publish's default."""
    for licence in ("cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc-by-nc-sa-4.0"):
        if not refusals(licence, sources):
            return licence
    return OTHER
