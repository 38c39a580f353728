"""Lexicon lemmas as the lexicon means them: markers some wordnets write inside a lemma, resolved by rule.

A wordnet's lemma is not always a word as a translation writes it. Some lexicons mark parts of a form with
characters of their own, and a candidate that keeps the marker can never match a translation. Each rule below
belongs to the lexicons (by id, lower case) whose files use that marker, and turns one written lemma into the form
(or forms) the lexicon means; a lemma no rule concerns is kept as written. Rules apply in the order listed, each to
the forms the previous ones left. Found by reading the Open Multilingual Wordnet files (COW ``omw-cmn``,
ItalWordNet ``omw-iwn``, MultiWordNet ``omw-it``, the Wiktionary extractions ``wikt-de`` / ``wikt-ru``):

- ``optional_suffix`` (COW): ``平行+的`` — ``+`` joins an optional particle (的, 地, …) to the word. The form is
  the word alone, ``平行``: Chinese matching finds a candidate inside a longer word, so ``平行`` also matches
  ``平行的``.
- ``gap`` (COW, Wiktionary): ``邀请...外出`` — ``...`` stands for the words an object takes. Inside a lemma it
  becomes the candidate wildcard (``邀请 * 外出``); at an edge it is dropped.
- ``open_parenthesis`` (COW): ``亚比月(公历11月`` — an explanation cut off after ``(``: the text before it.
- ``bracketed`` (COW): ``尘[粉]状`` — a bracketed alternative inside the word: the form without it, ``尘状``.
- ``parenthesised`` (ItalWordNet): ``Russia (URSS)``, ``cartina al (di) tornasole`` — a remark in parentheses:
  the form without it.
- ``accent_apostrophe`` (ItalWordNet): ``attivita'`` — an apostrophe after a word's last vowel writes its accent:
  ``attività`` (``è``, and ``é`` after ``ch`` and ``tr``: ``perché``, ``ventitré``).
- ``hyphen_joined`` (ItalWordNet): ``a-cielo-aperto`` — words joined by hyphens where Italian writes spaces; as
  some are true hyphenated words (``check-up``), both forms are kept: ``a cielo aperto`` and ``a-cielo-aperto``.
- ``combining_form`` (Wiktionary): ``Aorta-`` — a trailing hyphen marks the first part of compounds: ``Aorta``.
- ``placeholder_word`` (Wiktionary, Russian): ``какую-л.`` / ``кого-н.`` — "some(one)": the candidate wildcard.
- ``trailing_punctuation`` (every lexicon): ``侵占者;`` — a trailing ``;`` or ``,``: dropped.

Pure: the wordnet and snapshot providers apply ``resolve`` to every non-English lemma they read and count what each
rule changed (``use-wordnet`` reports the counts).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

#: Bumped whenever a rule changes what a lemma becomes: kept suggestions stamped with an older one are stale.
RULES_VERSION = 1
#: Every lexicon a rule marked ``ANY`` applies to.
ANY = "*"
COW = frozenset({"omw-cmn", "cow"})
ITALWORDNET = frozenset({"omw-iwn", "iwn"})
WIKTIONARY = frozenset({"wikt-de", "wikt-ru", "wikt"})


class FormRule(NamedTuple):
    name: str
    #: Lexicon ids (lower case) whose lemmas use the marker, or ``{ANY}``.
    lexicons: frozenset[str]
    description: str
    #: One form → the forms it stands for (the form itself when the rule does not concern it).
    apply: Callable[[str], tuple[str, ...]]


def _spaces(text: str) -> str:
    return " ".join(text.split())


def _optional_suffix(form: str) -> tuple[str, ...]:
    head, plus, tail = form.partition("+")
    if not plus or not head.strip() or not tail.strip():
        return (form,)
    return (_spaces(head),)


def _gap(form: str) -> tuple[str, ...]:
    if "..." not in form and "…" not in form:
        return (form,)
    parts = [_spaces(part) for part in re.split(r"\.\.\.|…", form)]
    inner = [part for part in parts if part]
    if not inner:
        return (form,)
    return (" * ".join(inner),)


def _open_parenthesis(form: str) -> tuple[str, ...]:
    for opening, closing in (("(", ")"), ("（", "）")):
        if opening in form and closing not in form:
            head = _spaces(form.split(opening, 1)[0])
            return (head,) if head else (form,)
    return (form,)


def _drop_groups(form: str, pattern: str) -> tuple[str, ...]:
    stripped = _spaces(re.sub(pattern, " ", form)).strip("-").strip()
    return (stripped,) if stripped and stripped != form else (form,)


def _bracketed(form: str) -> tuple[str, ...]:
    if "[" not in form:
        return (form,)
    stripped = re.sub(r"\[[^\[\]]*\]", "", form)
    return (_spaces(stripped),) if stripped.strip() and stripped != form else (form,)


def _parenthesised(form: str) -> tuple[str, ...]:
    if "(" not in form and "（" not in form:
        return (form,)
    return _drop_groups(form, r"\s*[(（][^()（）]*[)）]\s*")


_GRAVE = {"a": "à", "e": "è", "i": "ì", "o": "ò", "u": "ù", "A": "À", "E": "È", "I": "Ì", "O": "Ò", "U": "Ù"}
_ACCENTED_WORD_END = re.compile(r"(\w*?)([aeiouAEIOU])'(?=$|[\s-])")


def _accent(match: re.Match[str]) -> str:
    before, vowel = match.group(1), match.group(2)
    if vowel in "eE" and before.lower().endswith(("ch", "tr")):
        return before + ("é" if vowel == "e" else "É")
    return before + _GRAVE[vowel]


def _accent_apostrophe(form: str) -> tuple[str, ...]:
    if "'" not in form:
        return (form,)
    return (_ACCENTED_WORD_END.sub(_accent, form),)


def _hyphen_joined(form: str) -> tuple[str, ...]:
    if "-" not in form.strip("-"):
        return (form,)
    spaced = _spaces(form.replace("-", " "))
    return (spaced, form) if spaced and spaced != form else (form,)


def _combining_form(form: str) -> tuple[str, ...]:
    if len(form) > 1 and form.endswith("-") and not form.endswith(" -") and form[-2].isalpha():
        return (form[:-1],)
    return (form,)


_PLACEHOLDER_WORD = re.compile(r"(?<!\S)\w+-(?:л|н|нибудь|либо)\.?(?=\s|$)")


def _placeholder_word(form: str) -> tuple[str, ...]:
    if "-" not in form:
        return (form,)
    replaced = _spaces(_PLACEHOLDER_WORD.sub(" * ", form))
    tokens = replaced.split()
    if replaced == form or not tokens or tokens[0] == "*" or tokens[-1] == "*":
        return (form,)  # a wildcard at an edge is no candidate: left for the candidate rules to refuse
    return (replaced,)


def _trailing_punctuation(form: str) -> tuple[str, ...]:
    stripped = form.rstrip(";,；，").rstrip()
    return (stripped,) if stripped and stripped != form else (form,)


RULES: tuple[FormRule, ...] = (
    FormRule("trailing_punctuation", frozenset({ANY}), "a trailing ';' or ',' dropped", _trailing_punctuation),
    FormRule("optional_suffix", COW, "'X+的' (an optional particle after '+'): the word X", _optional_suffix),
    FormRule("open_parenthesis", COW, "'X(…' (a cut-off explanation): X", _open_parenthesis),
    FormRule("bracketed", COW, "'X[Y]Z' (a bracketed alternative): XZ", _bracketed),
    FormRule("gap", COW | WIKTIONARY, "'X...Y' (an object's place): the wildcard 'X * Y'", _gap),
    FormRule("parenthesised", ITALWORDNET, "'X (remark)': X", _parenthesised),
    FormRule("accent_apostrophe", ITALWORDNET, "'attivita'' (apostrophe for accent): attività", _accent_apostrophe),
    FormRule("hyphen_joined", ITALWORDNET, "'a-cielo-aperto': 'a cielo aperto' and as written", _hyphen_joined),
    FormRule("combining_form", WIKTIONARY, "'Aorta-' (first part of compounds): Aorta", _combining_form),
    FormRule("placeholder_word", WIKTIONARY, "'какую-л.' (some-): the wildcard", _placeholder_word),
)


def rules_for(lexicon_id: str) -> tuple[FormRule, ...]:
    """The rules that concern a lexicon (its id, or a BabelNet-style source name, any case)."""
    wanted = lexicon_id.strip().lower()
    return tuple(rule for rule in RULES if ANY in rule.lexicons or wanted in rule.lexicons)


def resolve(lemma: str, rules: tuple[FormRule, ...], counts: Counter[str] | None = None) -> tuple[str, ...]:
    """The forms ``lemma`` stands for under ``rules`` (``rules_for``), first the main one; ``counts`` gets one more
    for each rule that changed it. A lemma no rule concerns comes back as ``(lemma,)``."""
    forms: tuple[str, ...] = (lemma,)
    for rule in rules:
        changed: list[str] = []
        for form in forms:
            changed.extend(rule.apply(form))
        found = tuple(dict.fromkeys(changed))
        if found != forms:
            if counts is not None:
                counts[rule.name] += 1
            forms = found
    return forms


def describe(rule_name: str) -> str:
    for rule in RULES:
        if rule.name == rule_name:
            return rule.description
    return rule_name
