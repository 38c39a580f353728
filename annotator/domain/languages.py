"""Language codes as data: checked against ISO 639, written the way the lexicons write them, shown with a name.

A project's languages are ISO 639-1 codes in upper case (``IT``, ``DE``, ``ZH``), as BabelNet and the open wordnets
name them; a language without a two-letter code keeps its three-letter one (``YUE``). ``langcodes`` (with its data
package ``language_data``, both offline) holds the registry, so a typo (``ZZ``) or another form of a code (``ITA``,
the retired ``IW``) is refused with the code a person most likely meant, before it becomes a language nobody can
curate. A country code (``CN``, ``JP``) is refused naming the country's language (``ZH``, ``JA``).

Refused as well: the project's source language (English: every item's sentence is English, so it is never a target),
the ISO 639 codes that name no language (``zxx`` no linguistic content, ``mul``, ``und``, ``mis``, the sign-language
collective ``sgn``, the local-use range ``qaa``–``qtz``), and any letter outside ASCII a–z: a code is read as typed,
never upper-cased into another (Turkish ``ıt`` is not ``IT``). A code given twice is refused, naming it.

The functions that consult the registry import ``langcodes`` themselves: a command that only opens a project (its
codes stored, already checked) does not load it.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache

from annotator.domain.iso639_1 import ENGLISH_NAMES, PROJECT_CODES
from annotator.errors import UserError

#: Every item's sentence is in this language: a project translates from it, never into it.
SOURCE_LANGUAGE = "EN"
#: ISO 639 codes that name no language a text can be translated into.
NOT_A_LANGUAGE = {
    "zxx": "no linguistic content",
    "mul": "multiple languages",
    "und": "undetermined language",
    "mis": "uncoded languages",
    "sgn": "sign languages, a collective with no written form of its own",
}


class LanguageCodeError(UserError):
    """A language code that is not a valid ISO 639 code as a project writes it; names the code and the closest."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def language_name(code: str) -> str:
    """The English name of a code (``IT`` → ``Italian``); the code itself when the registry has no name for it."""
    name = _name(code.strip().lower())
    return name or code.strip().upper()


def language_label(code: str) -> str:
    """How a language is shown wherever one is chosen: ``IT — Italian``."""
    upper = code.strip().upper()
    name = _name(upper.lower())
    return f"{upper} — {name}" if name else upper


def check_language(text: str) -> str:
    """``text`` as the project's code (upper case, shortest ISO 639 form), or ``LanguageCodeError`` saying why and
    which valid code is closest."""
    raw = text.strip()
    if not raw.isascii():
        odd = next(char for char in raw if not char.isascii())
        raise LanguageCodeError(
            raw,
            f"{raw!r} holds {odd!r} (U+{ord(odd):04X} {unicodedata.name(odd, 'unnamed')}), not a letter a–z: "
            "a language code is plain ISO 639 letters (IT, DE, ZH); retype it without that character.",
        )
    lower = raw.lower()
    if lower in NOT_A_LANGUAGE or ("qaa" <= lower <= "qtz" and len(lower) == 3):
        what = NOT_A_LANGUAGE.get(lower, "reserved for local use")
        raise LanguageCodeError(
            raw, f"{raw.upper()!r} is not a language ({what}): a project's languages are those its items are "
            "translated into."
        )  # fmt: skip
    if lower == SOURCE_LANGUAGE.lower():
        raise LanguageCodeError(
            raw, f"{language_label(SOURCE_LANGUAGE)} is the project's source language (every item's sentence is "
            "English): a target language is another one."
        )  # fmt: skip
    if _is_project_code(lower):
        return lower.upper()
    preferred = _preferred_form(lower)
    if preferred is not None and preferred != lower:
        name = _name(preferred)
        raise LanguageCodeError(
            raw,
            f"{raw.upper()!r} also names {name}, whose code here is {preferred.upper()} (ISO 639-1, as the "
            f"lexicons write it): use {preferred.upper()}.",
        )
    country = _country_language(lower)
    if country is not None:
        name, code = country
        raise LanguageCodeError(
            raw, f"{raw.upper()!r} is the country code of {name}, not a language code: {name}'s language is "
            f"{language_label(code)} (use {code})."
        )  # fmt: skip
    closest = closest_code(raw)
    hint = f" The closest valid code is {language_label(closest)}." if closest else ""
    raise LanguageCodeError(raw, f"{raw.upper()!r} is not an ISO 639 language code.{hint}")


def parse_language_list(text: str) -> tuple[str, ...]:
    """``"it, de"`` → ``("IT", "DE")``: every code checked (the first bad one named); a code given twice is refused
    (``IT,IT`` is more likely a typo for another language than a wish to say it twice)."""
    parts = [part for part in text.replace(" ", ",").split(",") if part.strip()]
    if not parts:
        raise UserError("Give at least one language.")
    codes = [check_language(part) for part in parts]
    twice = [code for code in dict.fromkeys(codes) if codes.count(code) > 1]
    if twice:
        raise LanguageCodeError(
            twice[0], f"{language_label(twice[0])} is given {codes.count(twice[0])} times in {text.strip()!r}: "
            "give each language once (was another one meant?)."
        )  # fmt: skip
    return tuple(codes)


def check_in_project(languages: Iterable[str], project_languages: Iterable[str]) -> tuple[str, ...]:
    """``languages`` checked as codes and as languages of this project (an account may only work in those)."""
    known = tuple(project_languages)
    checked = tuple(dict.fromkeys(check_language(code) for code in languages))
    outside = [code for code in checked if code not in known]
    if outside:
        raise LanguageCodeError(
            outside[0],
            f"{language_label(outside[0])} is not one of this project's languages "
            f"({', '.join(known)}); a lead adds it on the Project page first.",
        )
    return checked


def closest_code(text: str) -> str | None:
    """The valid code a person most likely meant by ``text``: a name (``Italian``), else the codes one letter away,
    the most spoken first."""
    import langcodes

    lower = text.strip().lower()
    if len(lower) > 3:
        try:
            found = langcodes.find(lower).language
        except LookupError:
            found = None
        preferred = _preferred_form(found) if found else None
        if preferred is not None:
            return preferred.upper()
    pool = sorted(_two_letter_codes())
    near = [code for code in pool if _one_letter_apart(code, lower)]
    if not near:
        near = difflib.get_close_matches(lower, pool, n=5, cutoff=0.5)
    if not near:
        return None
    return max(near, key=lambda code: (_population(code), code)).upper()


def _country_language(lower: str) -> tuple[str, str] | None:
    """(country name, its main language's code) when ``lower`` is a two-letter country code that is no language
    code (``cn`` → China, ``ZH``); None otherwise, or when that language is the source language."""
    import langcodes

    if len(lower) != 2 or not lower.isalpha() or _is_project_code(lower):
        return None
    try:
        region = langcodes.Language.get("und-" + lower.upper())
        if not langcodes.tag_is_valid("und-" + lower.upper()):
            return None
        code = region.maximize().language
        name = region.territory_name("en")
    except (LookupError, ValueError):
        return None
    if not code or not _is_project_code(code) or code == SOURCE_LANGUAGE.lower() or name.startswith("Unknown"):
        return None
    return name, code.upper()


def _one_letter_apart(a: str, b: str) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _preferred_form(lower: str) -> str | None:
    """The registry's own form of a code (``ita`` → ``it``, ``iw`` → ``he``), None when it is not a language."""
    import langcodes

    if not lower.isascii() or not lower.isalpha() or not 2 <= len(lower) <= 3:
        return None
    try:
        language = langcodes.Language.get(lower)
    except (LookupError, ValueError):
        return None
    code = language.language
    return code if code and _is_project_code(code) else None


@cache
def _two_letter_codes() -> frozenset[str]:
    """Every valid ISO 639-1 code (the pool suggestions come from); built once from the registry in a few ms."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return frozenset(code for code in (a + b for a in letters for b in letters) if _is_project_code(code))


@lru_cache(maxsize=1024)
def _is_project_code(lower: str) -> bool:
    """A registered language (not private use, not retired) in its own shortest form."""
    return lower in PROJECT_CODES or registered(lower)


def registered(lower: str) -> bool:
    """``_is_project_code`` asked of the registry itself (``PROJECT_CODES`` holds its two-letter answers)."""
    import langcodes

    if not lower.isascii() or not lower.isalpha() or not 2 <= len(lower) <= 3:
        return False
    try:
        language = langcodes.Language.get(lower)
        return langcodes.tag_is_valid(lower) and language.language == lower and registry_name(lower) is not None
    except (LookupError, ValueError):
        return False


def registry_name(code: str) -> str | None:
    """The English name the registry gives ``code`` (``ENGLISH_NAMES`` holds its two-letter answers)."""
    import langcodes

    name = langcodes.Language.get(code).display_name("en")
    return None if name.startswith("Unknown language") else name


@lru_cache(maxsize=512)
def _name(lower: str) -> str | None:
    known = ENGLISH_NAMES.get(lower)
    if known is not None:
        return known
    if not lower.isascii() or not lower.isalpha() or not 2 <= len(lower) <= 3:
        return None
    try:
        return registry_name(lower)
    except (LookupError, ValueError):
        return None


def _population(code: str) -> int:
    import langcodes

    try:
        return int(langcodes.Language.get(code).speaking_population())
    except (LookupError, ValueError):
        return 0
