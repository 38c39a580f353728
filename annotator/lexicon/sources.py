"""Allowed lexicon sources per language (SPEC §4.3): which BabelNet senses may become candidates.

DiBiMT keeps only high-quality, language-specific sources so that pre-populated GOOD/BAD sets start
clean; machine-translated sources (``WNTR``, ``WIKITR``) are refused whatever the project settings say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from annotator.errors import UserError
from annotator.lexicon.base import LexSense, SynsetRecord

#: Sources produced by machine translation: never used, even if a project configures them.
MACHINE_TRANSLATED_SOURCES: frozenset[str] = frozenset({"WNTR", "WIKITR"})

#: An override entry meaning "every source except the machine-translated ones".
ANY_SOURCE = "*"

#: SPEC §4.3 defaults. BabelNet has no German or Russian wordnet, so DE and RU fall back to Wiktionary.
DEFAULT_ALLOWED_SOURCES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "EN": frozenset({"WN"}),
        "IT": frozenset({"OMWN_IT", "IWN"}),
        "ES": frozenset({"MCR_ES"}),
        "ZH": frozenset({"OMWN_ZH"}),
        "DE": frozenset({"WIKT", "WIKTLB"}),
        "RU": frozenset({"WIKT", "WIKTLB"}),
    }
)


@dataclass(frozen=True)
class SourcePolicy:
    """The sources allowed for one language.

    ``sources`` is ``None`` when every source except the machine-translated ones is allowed (a language
    without a default, or an explicit ``*`` override). ``refused`` lists machine-translated sources a
    project configured and that were dropped, so the settings page can say so instead of hiding it.
    """

    lang: str
    sources: frozenset[str] | None
    refused: frozenset[str] = frozenset()

    def allows(self, source: str) -> bool:
        source = source.strip().upper()
        if source in MACHINE_TRANSLATED_SOURCES:
            return False
        return self.sources is None or source in self.sources

    def describe(self) -> str:
        """One line for settings pages and reports, e.g. ``IT: IWN OMWN_IT``."""
        if self.sources is None:
            allowed = "any source except " + " ".join(sorted(MACHINE_TRANSLATED_SOURCES))
        else:
            allowed = " ".join(sorted(self.sources)) or "no source"
        return f"{self.lang}: {allowed}"


def _split_sources(value: Sequence[str] | str, lang: str) -> list[str]:
    if isinstance(value, str):
        parts = value.replace(",", " ").split()
    elif isinstance(value, Sequence):
        parts = []
        for entry in value:
            if not isinstance(entry, str):
                raise UserError(f"Allowed sources for {lang}: {entry!r} is not a source name (use e.g. OMWN_IT).")
            parts.extend(entry.replace(",", " ").split())
    else:
        raise UserError(f"Allowed sources for {lang}: expected a list of source names, got {value!r}.")
    return [part.upper() for part in parts]


def normalize_overrides(overrides: Mapping[str, Sequence[str] | str] | None) -> dict[str, tuple[str, ...]]:
    """Project-settings overrides, cleaned: upper-case language keys and sources, strings split on spaces/commas.

    An empty list means "no override" (use the default) rather than "allow nothing", because a cleared
    settings field should not silently empty every pre-populated set.
    """
    cleaned: dict[str, tuple[str, ...]] = {}
    for raw_lang, value in (overrides or {}).items():
        if not isinstance(raw_lang, str) or not raw_lang.strip():
            raise UserError(f"Allowed sources: {raw_lang!r} is not a language code.")
        lang = raw_lang.strip().upper()
        if value is None:
            continue
        sources = _split_sources(value, lang)
        if sources:
            cleaned[lang] = tuple(dict.fromkeys(sources))
    return cleaned


def allowed_sources(
    lang: str,
    overrides: Mapping[str, Sequence[str] | str] | None = None,
    defaults: Mapping[str, frozenset[str]] | None = None,
) -> SourcePolicy:
    """The source policy for ``lang``: the project override if any, else the provider's or the SPEC default.

    ``defaults`` replaces SPEC §4.3's BabelNet source names for a provider with its own (a wordnet's lexicon ids).

    A language with neither (e.g. FR) allows every source except the machine-translated ones: there is
    no curated list to prefer, and refusing everything would leave the translator with empty sets.
    """
    lang = lang.strip().upper()
    configured = normalize_overrides(overrides).get(lang)
    if configured is None:
        default = (DEFAULT_ALLOWED_SOURCES if defaults is None else defaults).get(lang)
        return SourcePolicy(lang, default)
    refused = frozenset(source for source in configured if source in MACHINE_TRANSLATED_SOURCES)
    if ANY_SOURCE in configured:
        return SourcePolicy(lang, None, refused)
    kept = frozenset(source for source in configured if source not in MACHINE_TRANSLATED_SOURCES)
    return SourcePolicy(lang, kept, refused)


def filter_senses(
    record: SynsetRecord, lang: str, overrides: Mapping[str, Sequence[str] | str] | None = None
) -> tuple[LexSense, ...]:
    """The senses of ``record`` in ``lang`` that come from an allowed source, in the record's order."""
    policy = allowed_sources(lang, overrides)
    return tuple(sense for sense in record.senses if sense.lang == policy.lang and policy.allows(sense.source))


def allowed_lemmas(
    record: SynsetRecord, lang: str, overrides: Mapping[str, Sequence[str] | str] | None = None
) -> list[str]:
    """Λ_L(σ): distinct lemmas of the allowed senses (case-insensitive; the first spelling is kept)."""
    seen: dict[str, str] = {}
    for sense in filter_senses(record, lang, overrides):
        seen.setdefault(sense.lemma.casefold(), sense.lemma)
    return list(seen.values())


__all__ = [
    "ANY_SOURCE",
    "DEFAULT_ALLOWED_SOURCES",
    "MACHINE_TRANSLATED_SOURCES",
    "SourcePolicy",
    "allowed_lemmas",
    "allowed_sources",
    "filter_senses",
    "normalize_overrides",
]
