"""Licences as data (issue 35): what each lexicon source's licence allows, and which licence a published dataset
may take over those sources.

A benchmark's candidates and glosses are an adaptation of the lexicon they came from, so its licence must keep
what every source asks: a non-commercial source forbids a licence allowing commercial use, a share-alike source
asks for the same licence (or a later version), a licence this table does not know can only be published as
``other`` with the sources listed. Pure: the providers say which licence their data has (``lexicon/licences.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

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
    #: Patterns (lower case, searched in the provider's licence text or URL) that name this licence.
    patterns: tuple[str, ...] = ()


def _cc(kind: str, version: str) -> Licence:
    """A Creative Commons licence from its short form (``by-sa``) and version (``4.0``)."""
    names = {"by": "Attribution", "by-sa": "Attribution-ShareAlike", "by-nc": "Attribution-NonCommercial"}
    names["by-nc-sa"] = "Attribution-NonCommercial-ShareAlike"
    title = f"Creative Commons {names[kind]} {version}" + (" International" if version == "4.0" else " Unported")
    url = f"https://creativecommons.org/licenses/{kind}/{version}/"
    spdx = f"cc-{kind}-{version}"
    return Licence(
        id=spdx,
        name=title,
        url=url,
        commercial="nc" not in kind.split("-"),
        share_alike=f"cc-{kind}" if kind.endswith("sa") else "",
        version=float(version),
        patterns=(f"creativecommons.org/licenses/{kind}/{version}", spdx, f"cc {kind} {version}"),
    )


#: Every licence publish knows. Order matters only for matching: the first licence whose pattern occurs wins,
#: so longer Creative Commons forms (``by-nc-sa``) come before shorter ones (``by``).
LICENCES: tuple[Licence, ...] = (
    Licence(
        id="babelnet-nc",
        name="BabelNet Non-Commercial License",
        url="https://babelnet.org/full-license",
        commercial=False,
        publishable=False,
        patterns=("babelnet",),
    ),
    *(_cc(kind, version) for kind in ("by-nc-sa", "by-nc", "by-sa", "by") for version in ("4.0", "3.0")),
    Licence(
        id="cc0-1.0",
        name="Creative Commons Zero 1.0 Universal",
        url="https://creativecommons.org/publicdomain/zero/1.0/",
        patterns=("publicdomain/zero/1.0", "cc0-1.0", "cc0"),
    ),
    Licence(
        id="odc-by",
        name="Open Data Commons Attribution License 1.0",
        url="https://opendatacommons.org/licenses/by/1-0/",
        patterns=("opendatacommons.org/licenses/by", "odc-by", "opendefinition.org/licenses/odc-by"),
    ),
    Licence(
        id="wordnet",
        name="WordNet License (Princeton WordNet 3.0 and WordNet-style licences)",
        url="https://wordnet.princeton.edu/license-and-commercial-use",
        publishable=False,
        patterns=("wordnet.princeton.edu/license", "wordnet"),
    ),
    Licence(
        id="apache-2.0",
        name="Apache License 2.0",
        url="https://www.apache.org/licenses/LICENSE-2.0",
        patterns=("apache.org/licenses/license-2.0", "apache-2.0"),
    ),
    Licence(id="mit", name="MIT License", url="https://opensource.org/license/mit", patterns=("mit",)),
)

_BY_ID = {licence.id: licence for licence in LICENCES}


def licence_by_id(licence_id: str) -> Licence | None:
    return _BY_ID.get(licence_id.strip().lower())


def publishable_ids() -> list[str]:
    """The ids ``--license`` accepts besides ``other``."""
    return [licence.id for licence in LICENCES if licence.publishable]


def identify(text: str | None) -> Licence:
    """The licence a provider's text names (an SPDX id, a URL, a name); an unknown licence keeps the text."""
    raw = (text or "").strip()
    lowered = re.sub(r"\s+", " ", raw.lower())
    words = re.sub(r"[^a-z0-9./-]+", " ", lowered)
    for licence in LICENCES:
        for pattern in licence.patterns:
            if "/" in pattern or "." in pattern or "-" in pattern:
                if pattern in lowered:
                    return licence
            elif re.search(rf"(^| ){re.escape(pattern)}( |$)", words):
                return licence
    return Licence(id="unknown", name=raw or "not stated", url=raw if raw.startswith("http") else "", known=False)


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
