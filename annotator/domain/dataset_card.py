"""The dataset card of a published benchmark (``README.md``), written from plain data.

The YAML header is what the Hugging Face Hub reads (licence, languages, task, size, configurations and their
files); the prose says how this project built the data (the DiBiMT process as it ran here), its counts, the
refinement statistics, agreement, discards, provenance, every source's licence and how to cite. Pure: the export's
figures and the sources' licences are given, so the text is tested without a project.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotator.domain.agreement import format_figure
from annotator.domain.licences import OTHER, SourceLicence
from annotator.domain.output_text import latex_escape, markdown_escape
from annotator.domain.refinement_stats import format_value
from annotator.errors import UserError

#: Project language → ISO 639-1 code on the Hub (the project's codes are upper case).
SENTENCE_LANGUAGE = "en"
DISCARD_REASON_NAMES = {
    "idiom": "idiom (the target is part of an idiom)",
    "proper_noun": "proper noun",
    "insufficient_context": "insufficient context to tell the sense",
    "other": "other (see the note)",
}
#: Item sources named in the card; the rest are counted (a corpus may have one source per document).
SHOWN_SOURCES = 10
FILTER_NAMES = {
    "polysemy": "δ(λ) ≥ 3 (the target lemma has at least three senses)",
    "one_per_sense": "one sentence per sense and source",
    "target_language": "no translation of σ in a target language is also a word of another sense of λ",
}


#: Marks what the project cannot know and a lead must write before release; the publish command counts them.
TO_FILL = "TO FILL"
#: A percentage over fewer done item-languages than this says little; the card says so (as significance.md does).
FEW = 30
HUB_URL = "https://huggingface.co/datasets/"


@dataclass(frozen=True)
class CardData:
    """Everything the card says, as plain values (the export's manifest and stats, the project, the sources)."""

    name: str
    licence: str
    licence_name: str
    licence_url: str
    languages: tuple[str, ...]
    rows: Mapping[str, int]
    items: int
    table1: Mapping[str, Mapping[str, int]]
    refinement: Mapping[str, Any]
    agreement: Mapping[str, Any]
    discards: Mapping[str, Mapping[str, int]]
    left_out: Mapping[str, int]
    options: Mapping[str, bool]
    lexicon: Mapping[str, Any]
    allowed_sources: Sequence[str]
    filters: Mapping[str, int]
    items_total: int
    excluded: int
    double_curated: int
    item_sources: Mapping[str, int]
    sources: Sequence[SourceLicence]
    tool_version: str
    manifest_id: str
    exported_at: str
    published_at: str
    #: Whether the selection filters ever ran on the project (the audit trail says so): "0 flagged" means
    #: nothing when they never checked an item.
    filters_run: bool = True
    #: Per language configuration, what its rows are (``RowFacts.to_json``: rows by status, empty GOOD, usable,
    #: failing each selection rule, changed by a person), tallied from the Parquet rows as written.
    facts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Per language, the item-languages left out as not usable, by reason (a status, or ``empty_good``).
    unusable: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    #: Per language, the lexicons' coverage: ``item_languages`` and ``empty_initial_good`` (no GOOD word given).
    coverage: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    #: Per language, the people who changed its item-languages, by role (from the history; never names).
    annotators: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    #: How many different people changed item-languages (one person may work in several languages).
    people: int = 0
    #: ``OWNER/NAME`` on the Hugging Face Hub, when the lead gave it.
    hub_id: str | None = None
    authors: tuple[str, ...] = ()


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value for ``n`` examples."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def slug(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return "-".join(part for part in cleaned.split("-") if part) or "dataset"


# --- names: refused when they hold control characters, escaped for each format they reach -----------------------

#: A Hub repository id: OWNER/NAME, letters, digits, ``-``, ``_``, ``.``; neither part starts or ends with ``-`` or
#: ``.``, nor holds ``--`` or ``..``; at most 96 characters each (the Hub's own rule).
_HUB_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9])?")


class CardTextError(UserError):
    """A name the card would carry (dataset name, author, Hub id) that no format can hold as it is."""


def control_character(text: str) -> tuple[int, str] | None:
    """The first C0 (tab and line breaks included), DEL or C1 control character in ``text`` with its index: a
    name is one line of text, and YAML refuses DEL and C1 characters in a document."""
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cc":
            return index, char
    return None


def check_name(label: str, text: str) -> None:
    """Refuse a name holding a control character, naming the box and the character (exit 2 on the CLI)."""
    found = control_character(text)
    if found is not None:
        index, char = found
        raise CardTextError(
            f"The {label} holds the control character U+{ord(char):04X} ({_control_name(char)}) at character "
            f"{index + 1}: a name is one line of printable text (it is written into the card's YAML and Markdown, "
            "croissant.json and the BibTeX entry); remove it. Nothing was written."
        )
    if not text.strip():
        raise CardTextError(f"The {label} is empty. Nothing was written.")


def _control_name(char: str) -> str:
    names = {"\t": "tab", "\n": "line feed", "\r": "carriage return", "\x7f": "DEL", "\x85": "next line"}
    if char in names:
        return names[char]
    return "C0 control" if ord(char) < 0x20 else "C1 control"


def check_hub_id(hub_id: str) -> None:
    """``OWNER/NAME`` as the Hub spells a dataset repository; anything else refused saying the rule."""
    check_name("Hub id", hub_id)
    parts = hub_id.split("/")
    if len(parts) != 2 or not all(
        _HUB_PART.fullmatch(part) and "--" not in part and ".." not in part for part in parts
    ):
        raise CardTextError(
            f"The Hub id {hub_id!r} is not OWNER/NAME as the Hugging Face Hub spells a dataset repository "
            "(letters, digits, '-', '_', '.'; neither part starts or ends with '-' or '.'; at most 96 characters "
            "each). Nothing was written."
        )


def hub_url(hub_id: str | None) -> str | None:
    return HUB_URL + hub_id if hub_id else None


def _q(value: str) -> str:
    """A YAML scalar: JSON's double-quoted string is valid YAML once every character YAML would refuse raw (C0, DEL,
    C1, line and paragraph separators, unpaired surrogates) is written as a ``\\u`` escape, which YAML reads back."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs") else ch for ch in text)


def annotations_creators(data: CardData) -> list[str]:
    """The Hub's ``annotations_creators``: ``expert-generated`` when people changed published rows (translators who
    speak the language), ``machine-generated`` when published rows are the lexicon's output untouched."""
    changed = sum(int(f.get("changed_by_people", 0)) for f in data.facts.values())
    rows = sum(int(f.get("rows", 0)) for f in data.facts.values())
    found = []
    if changed:
        found.append("expert-generated")
    if rows > changed:
        found.append("machine-generated")
    return found or ["no-annotation"]


def published_configs(data: CardData) -> list[str]:
    """The configurations the card declares: those with rows (a file of 0 rows is not written, ``datasets`` cannot
    load one)."""
    return [config for config in [*data.languages, "discarded"] if data.rows.get(config, 0) > 0]


def languages_with_rows(data: CardData) -> list[str]:
    """The target languages the published data holds (a language without a row is not the dataset's)."""
    return [lang for lang in data.languages if data.rows.get(lang, 0) > 0]


def yaml_header(data: CardData) -> str:
    langs = sorted({SENTENCE_LANGUAGE, *(lang.lower() for lang in languages_with_rows(data))})
    lines = ["---", f"license: {_q(data.licence)}"]
    if data.licence == OTHER:
        lines += [f"license_name: {_q('lexicon-sources')}", f"license_link: {_q('LICENSES/README.md')}"]
    lines += ["language:", *(f"- {_q(lang)}" for lang in langs)]
    lines += ["multilinguality:", f"- {_q('multilingual')}"]
    lines += ["annotations_creators:", *(f"- {_q(kind)}" for kind in annotations_creators(data))]
    # the sentences were found in corpora, the candidates come from lexicons: both named in the card's prose
    lines += ["language_creators:", f"- {_q('found')}", "source_datasets:", f"- {_q('extended|other')}"]
    lines += ["task_categories:", f"- {_q('translation')}"]
    lines += ["tags:", *(f"- {_q(t)}" for t in ("word-sense-disambiguation", "lexical-ambiguity", "dibimt"))]
    lines += ["size_categories:", f"- {_q(size_category(data.items))}", f"pretty_name: {_q(data.name)}"]
    lines.append("configs:")
    for config in published_configs(data):
        lines += [
            f"- config_name: {_q(config)}",
            "  data_files:",
            f"  - split: {_q('test')}",
            f"    path: {_q(f'data/{config}/test.parquet')}",
        ]
    lines.append("---")
    return "\n".join(lines) + "\n"


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return [*out, ""]


def _text(value: object) -> str:
    return markdown_escape(str(value))


def _code(value: object) -> str:
    """Text in a Markdown code span (a backtick in it would end the span)."""
    return "`" + " ".join(str(value).replace("`", "'").split()) + "`"


def _to_fill(what: str) -> str:
    """A placeholder a lead must replace, visible in the rendered card and easy to search."""
    return f"**[{TO_FILL}: {what}]**"


def placeholders(card: str) -> int:
    """How many placeholders a card still holds."""
    return card.count(f"[{TO_FILL}:")


def _lexicon_sentence(lexicon: Mapping[str, Any]) -> str:
    provider = lexicon.get("provider")
    version = lexicon.get("version") or "not stated"
    if provider == "wordnet":
        lexicons = ", ".join(_code(spec) for spec in lexicon.get("lexicons") or []) or "none"
        return f"open wordnets read with the `wn` library (lexicons {lexicons})"
    if provider == "babelnet":
        return f"BabelNet through its HTTP API (version {_text(version)})"
    label = lexicon.get("label") or lexicon.get("snapshot") or "a lexicon snapshot"
    source = lexicon.get("source") or "not stated"
    return f"an offline lexicon snapshot (provider: {_text(source)}; version {_text(version)}; “{_text(label)}”)"


def _total(data: CardData, key: str) -> int:
    return sum(int(facts.get(key, 0)) for facts in data.facts.values())


def _curation(data: CardData) -> str:
    """What people did to the published rows, from the history: never more than happened."""
    rows, changed = _total(data, "rows"), _total(data, "changed_by_people")
    done = sum(int(facts.get("status", {}).get("done", 0)) for facts in data.facts.values())
    untouched = rows - changed
    if not changed:
        return (
            f"- **Curation.** No person changed any of the {rows} published row(s): their GOOD and BAD lists are the "
            "lexicon's pre-population output (G0 and B0) as the tool wrote it, not checked by a translator."
        )
    text = (
        f"- **Curation.** People changed {changed} of the {rows} published row(s) (item-languages): an edit of "
        f"GOOD or BAD or a status, {data.people} person(s) in all (see *Who annotated*); {done} row(s) are marked "
        "done. A translator who speaks the language could add missing translations (`origin` = `translator`), "
        "move a word between GOOD and BAD (it keeps `origin` = `lexicon`), remove wrong ones, mark an "
        "item-language DISCUSS to settle it with a lead, or discard one that cannot make a fair test."
    )
    if untouched:
        text += f" The other {untouched} row(s) are the lexicon's output as pre-populated: no person changed them."
    return text


def _filters(data: CardData) -> str:
    if not data.filters_run:
        return (
            "- **Selection filters.** The selection filters were not run on this project: no item was checked "
            f"against them. A lead excluded {data.excluded} item(s); excluded items are never published."
        )
    flagged = "; ".join(f"{FILTER_NAMES.get(rule, rule)}: {n} item(s) flagged" for rule, n in data.filters.items())
    failing = {
        rule: sum(int(f.get("filters_failed", {}).get(rule, 0)) for f in data.facts.values()) for rule in data.filters
    }
    published = ", ".join(f"{_code(rule)} {n}" for rule, n in failing.items() if n)
    text = (
        f"- **Selection filters.** {flagged or 'No filter flagged an item'}. A lead excluded {data.excluded} "
        "item(s); excluded items are never published."
    )
    if published:
        text += (
            f" Flagged items a lead did not exclude are published, their rule in the `filters_failed` column: "
            f"published rows failing a rule: {published} (per language in *What the data is*)."
        )
    return text


def how_it_was_built(data: CardData) -> list[str]:
    """The card's "How the data was built" section: the DiBiMT process as this project ran it."""
    ranked = sorted(data.item_sources.items(), key=lambda entry: (-entry[1], entry[0]))
    sources = ", ".join(f"{_text(name or '(no source)')}: {n}" for name, n in ranked[:SHOWN_SOURCES])
    if len(ranked) > SHOWN_SOURCES:
        sources += f" and {len(ranked) - SHOWN_SOURCES} more sources (the `source` column)"
    out = [
        "## How the data was built",
        "",
        "The data follows the DiBiMT process (Campolungo et al., ACL 2022). An item is an English sentence with one "
        "ambiguous target word λ (lemma and part of speech) and the synset σ it means there; for each target "
        "language the item holds GOOD translations of λ (they render σ) and BAD ones (they render another sense).",
        "",
        f"- **Items.** {data.items_total} item(s) were imported; the published ones come from (source: items) "
        f"{sources or 'nowhere: none is published'}.",
        f"- **Lexicon.** The senses and their translations come from {_lexicon_sentence(data.lexicon)}.",
        "- **Allowed sources.** Translations were taken only from these sources (machine-translated sources are "
        "never used): " + "; ".join(_code(line) for line in data.allowed_sources) + ".",
        "- **Pre-population.** For each item the lexicon gave Ω(λ), the senses of λ ranked in WordNet sense-number "
        "order (δ(λ) = their number, μ(σ) = the rank of σ). In each language, G0 holds the lexicalisations of σ "
        "and B0 those of the other senses of λ, less any also in G0.",
        _filters(data),
        _curation(data),
    ]
    if data.double_curated:
        out.append(
            f"- **Double curation.** {data.double_curated} item-language(s) were curated by two translators "
            "independently and then adjudicated; their agreement is below."
        )
    else:
        out.append("- **Double curation.** Not used: no item-language was curated by two translators.")
    rule = "An item is published when it is done in every language."
    if data.options.get("include_incomplete"):
        rule = "Items not yet done in every language are published too."
    if data.options.get("usable_only"):
        rule += (
            " Only usable rows are published: done, with something in GOOD (a row without GOOD would score every "
            "translation MISS or BAD)."
        )
    else:
        rule += " Rows that are not usable are published too: the `usable` and `status` columns say which."
    kept = (
        " Items discarded in some language keep their other languages."
        if data.options.get("keep_partially_discarded")
        else " An item discarded in any language is left out."
    )
    left = ", ".join(f"{n} {why}" for why, n in data.left_out.items() if n) or "none"
    out += [f"- **Release.** {rule}{kept} Items left out: {left}.", ""]
    return out


def _what_the_data_is(data: CardData) -> list[str]:
    """Per configuration, what its rows are: the same counts as the Parquet's columns (tested)."""
    statuses = sorted({status for facts in data.facts.values() for status in facts.get("status", {})})
    rules = list(FILTER_NAMES)
    out = [
        "## What the data is",
        "",
        "One row per item-language. `status` is `done` when a translator or a lead marked it so, otherwise how far "
        "curation got (`pending`: nobody touched it); `usable` is true when the row is done and its GOOD list "
        "holds something; `filters_failed` lists the selection rules its item broke (flagged, not excluded). Per "
        "configuration:",
        "",
    ]
    headers = ["configuration", "rows", *statuses, "empty GOOD", "usable", *(f"fails {r}" for r in rules)]
    headers.append("changed by people")
    rows = []
    for config in data.languages:
        facts = data.facts.get(config, {})
        rows.append(
            [
                config,
                facts.get("rows", 0),
                *(facts.get("status", {}).get(status, 0) for status in statuses),
                facts.get("empty_good", 0),
                facts.get("usable", 0),
                *(facts.get("filters_failed", {}).get(rule, 0) for rule in rules),
                facts.get("changed_by_people", 0),
            ]
        )
    out += _table(headers, rows)
    out += ["Rules: " + "; ".join(f"{_code(rule)} = {name}" for rule, name in FILTER_NAMES.items()) + ".", ""]
    empty = [config for config in data.languages if not data.rows.get(config)]
    if empty:
        out += [
            f"No row was published for {', '.join(empty)}: no configuration is declared for it (a file without rows "
            "cannot be loaded).",
            "",
        ]
    left = {lang: reasons for lang, reasons in data.unusable.items() if sum(reasons.values())}
    if left:
        reasons = sorted({reason for by_reason in left.values() for reason in by_reason})
        names = {"empty_good": "done, GOOD empty"}
        out += ["Rows left out as not usable (`publish --include-unusable` publishes them):", ""]
        out += _table(
            ["language", *(names.get(r, r) for r in reasons)],
            [[lang, *(by_reason.get(r, 0) for r in reasons)] for lang, by_reason in left.items()],
        )
    return out


def _annotators(data: CardData) -> list[str]:
    out = ["## Who annotated", ""]
    if not data.people:
        return [*out, "Nobody: no person changed an item-language of this project (the history records none).", ""]
    roles = sorted({role for by_role in data.annotators.values() for role in by_role})
    out += [
        f"{data.people} person(s) changed item-languages, counted from the project's history (names are never "
        "published; a role is the account's today, `unknown` for a deleted account). People per language and role "
        "(one person may work in several languages):",
        "",
    ]
    out += _table(
        ["language", *roles, "all"],
        [
            [lang, *(by_role.get(role, 0) for role in roles), sum(by_role.values())]
            for lang, by_role in sorted(data.annotators.items())
        ],
    )
    out += [
        "Translators' backgrounds, how they were recruited and paid: "
        + _to_fill("who the translators are (native speakers? professionals?), how they were recruited and paid"),
        "",
    ]
    return out


def _counts(data: CardData) -> list[str]:
    out = ["## Counts", "", f"{data.items} item(s). Rows per configuration:", ""]
    out += _table(
        ["configuration", "rows"], [[config, n or "0 (no file, not declared)"] for config, n in data.rows.items()]
    )
    columns = list(data.table1)
    out += ["Items, lemmas and synsets by part of speech (DiBiMT Table 1):", ""]
    out += _table(
        ["", *columns], [[row, *(data.table1[c][row] for c in columns)] for row in ("items", "lemmas", "synsets")]
    )
    return out


def _refinement(data: CardData) -> list[str]:
    languages = data.refinement.get("languages", {})
    mean = data.refinement.get("mean", {})
    out = [
        "## Refinement statistics",
        "",
        "How much curation changed the pre-populated GOOD sets (DiBiMT Table 2), over every done item-language of "
        "the items not excluded (published or not): % added = share of the final GOOD translations that were not "
        "in G0 — typed or accepted by a translator (`origin` = `translator`) or moved from BAD by a translator "
        "(`origin` stays `lexicon`: the lexicon gave the word for another sense; the *moved* column counts them); "
        "% removed = share of the G0 translations that translators removed; % shared = share of the pairs of items "
        "with the same σ whose final GOOD sets are identical; Jaccard = the mean Jaccard similarity of those pairs' "
        "GOOD sets (n/a: nothing to count).",
        "",
    ]
    rows = [
        [
            lang,
            row["item_languages"],
            format_value(row["added_pct"]),
            f"{row.get('added', 0)} / {row.get('added_moved', 0)}",
            format_value(row["removed_pct"]),
            row["pairs"],
            format_value(row["shared_pct"]),
            format_value(row["mean_jaccard"], 3),
        ]
        for lang, row in languages.items()
    ]
    rows.append(
        [
            "Mean",
            "",
            format_value(mean.get("added_pct")),
            "",
            format_value(mean.get("removed_pct")),
            "",
            format_value(mean.get("shared_pct")),
            format_value(mean.get("mean_jaccard"), 3),
        ]
    )
    out += _table(
        ["language", "done", "% added", "added / moved", "% removed", "same-σ pairs", "% shared", "Jaccard"], rows
    )
    few = [f"{lang} ({row['item_languages']})" for lang, row in languages.items() if row["item_languages"] < FEW]
    if few:
        out += [
            f"Fewer than {FEW} done item-languages: {', '.join(few)}. A percentage over so few says little about "
            "the language.",
            "",
        ]
    return out


def _agreement(data: CardData) -> list[str]:
    out = ["## Agreement", ""]
    if not data.agreement.get("item_languages"):
        return [*out, "Not measured: no item-language was curated by two translators.", ""]
    out += [
        f"Between translators over {data.agreement['item_languages']} double-curated item-language(s) "
        "(% of pairs; α = Krippendorff's alpha, nominal):",
        "",
    ]
    rows = []
    for name, fig in [*data.agreement.get("languages", {}).items(), ("all", data.agreement.get("overall", {}))]:
        rows.append(
            [
                name,
                fig.get("decision_pairs", 0),
                format_figure(fig.get("decision_agreement")),
                format_figure(fig.get("exact_good_agreement")),
                format_figure(fig.get("mean_jaccard_good"), percent=False),
                format_figure(fig.get("alpha"), percent=False),
            ]
        )
    return out + _table(["language", "pairs", "% same decision", "% same GOOD", "Jaccard GOOD", "α"], rows)


def _discards(data: CardData) -> list[str]:
    out = ["## Discarded item-languages", ""]
    reasons = sorted({reason for by_lang in data.discards.values() for reason in by_lang})
    if not reasons:
        return [*out, "None.", ""]
    out += [
        "The `discarded` configuration lists them (who discarded is not published). Reasons per language:",
        "",
    ]
    rows = [
        [DISCARD_REASON_NAMES.get(r, r), *(data.discards.get(lang, {}).get(r, 0) for lang in data.languages)]
        for r in reasons
    ]
    return out + _table(["reason", *data.languages], rows)


def _uses(data: CardData) -> list[str]:
    forbidden = ""
    if "nc" in data.licence.split("-"):
        forbidden = " Commercial use: the licence forbids it."
    elif data.licence == OTHER:
        forbidden = " Any use a source's licence forbids (see *Licences*)."
    return [
        "## Uses",
        "",
        "- **Intended.** Testing machine translation systems (English into "
        f"{', '.join(data.languages)}) for lexical-ambiguity errors, DiBiMT-style: a translation is scored by "
        "whether it renders the target with a GOOD translation (the sense meant), a BAD one (another sense of the "
        "word) or neither (MISS), per language and part of speech; comparing systems on the same rows.",
        "- **Out of scope.** Training or tuning a system on it (it is a test set: trained-on, its scores mean "
        "nothing); reading GOOD and BAD as complete lists of a word's translations (they hold what the lexicon "
        "gave and translators checked; a correct translation outside them scores MISS); judging a language or a "
        "system on rows that are not usable or on the few rows of a language with little data; judging the "
        f"people who curated it.{forbidden}",
        "",
    ]


def _limitations(data: CardData) -> list[str]:
    rows = []
    for lang in data.languages:
        cover = data.coverage.get(lang, {})
        total, empty = int(cover.get("item_languages", 0)), int(cover.get("empty_initial_good", 0))
        facts = data.facts.get(lang, {})
        untouched = int(facts.get("rows", 0)) - int(facts.get("changed_by_people", 0))
        share = f"{100 * (total - empty) / total:.1f}" if total else "n/a"
        rows.append([lang, total, empty, share, facts.get("rows", 0), facts.get("usable", 0), untouched])
    out = [
        "## Limitations",
        "",
        "- **Coverage per language.** The lexicons do not have a word for every sense: where G0 is empty a "
        "translator must supply GOOD, or the row stays unusable. Over the project's item-languages (items not "
        "excluded, not discarded):",
        "",
    ]
    out += _table(
        [
            "language",
            "item-languages",
            "lexicon gave no GOOD word",
            "% with a GOOD word from the lexicon",
            "published rows",
            "usable",
            "published, no person changed them",
        ],
        rows,
    )
    out += [
        "- **Lexicon noise.** Candidates come from the lexicons as they are: a wordnet built by translating or "
        "linking senses (through the ILI), or from Wiktionary, holds wrong or over-general words for a sense; a "
        "row no person changed carries that noise unchecked (the last column above), and so does any row "
        "whose lexicon words a translator kept without checking each one. Measured where people checked: "
        + _noise(data)
        + ".",
        "- **Senses.** Ω(λ) and μ(σ) follow the English WordNet 3.0 sense order; a target has one sense per item; "
        "the English sentences come from the corpora in the `source` column with their own domains and biases.",
        "- **Known gaps.** " + _to_fill("anything the team knows is wrong or missing (languages, domains, rules)"),
        "",
    ]
    return out


def _noise(data: CardData) -> str:
    """How much of the lexicon's GOOD lists translators removed in the done rows (SPEC §6 % removed), per language."""
    languages = data.refinement.get("languages", {})
    parts = [
        f"{lang} {format_value(row.get('removed_pct'))} % of G0 removed over {row.get('item_languages', 0)} done row(s)"
        for lang, row in languages.items()
        if row.get("item_languages")
    ]
    return "; ".join(parts) if parts else "nowhere, no row is done"


def _personal(data: CardData) -> list[str]:
    return [
        "## Personal and sensitive information",
        "",
        "- The people who curated the data are not named: the Parquet files hold no user name (the discarded "
        "rows leave out who discarded), and the counts above come from the history without names.",
        "- The English sentences are published as the corpora in the `source` column hold them; the tool does not "
        "look for names, contact details or other personal information in them. "
        + _to_fill("whether the sentences hold personal or sensitive information, and what was done about it"),
        "",
    ]


def _licences(data: CardData) -> list[str]:
    if data.licence == OTHER:
        head = (
            "This dataset is released under the terms of the sources it was built from (licence `other`): "
            "anyone using it must respect each of the licences below."
        )
    else:
        link = f"[{_text(data.licence_name)}](<{_link(data.licence_url)}>)"
        head = f"This dataset is released under {link} (`{data.licence}`)."
    out = ["## Licences", "", head, "", "Sources the data came from (texts or links in `LICENSES/`):", ""]
    rows = [
        [
            _text(s.source),
            _text(s.provided),
            _text(s.licence.name if s.licence.known else s.stated),
            _code(s.licence.id),
        ]
        for s in data.sources
    ]
    out += _table(["source", "what the dataset took from it", "licence", "id"], rows)
    cited = [f"- {_text(s.source)}: {_text(s.citation)}" for s in data.sources if s.citation]
    if cited:
        out += ["Cite the sources:", "", *cited, ""]
    return out


def _link(url: str) -> str:
    """A link destination between ``<`` and ``>``: nothing in it may close or break it."""
    return "".join(ch for ch in url if ch not in "<>\\" and not ch.isspace() and unicodedata.category(ch) != "Cc")


def _maintenance(data: CardData) -> list[str]:
    where = f"the Hub repository `{data.hub_id}`" if data.hub_id else "its Hub repository"
    return [
        "## Maintenance",
        "",
        f"- A new release is a new `annotator publish` of the project, uploaded to {where}: its export manifest id "
        "(under *Provenance*) changes with any change of a published row, so a result names the release it used.",
        "- Who maintains it and where to report an error: "
        + _to_fill("the maintainers' contact and how errors are reported and fixed"),
        "",
    ]


def _provenance(data: CardData) -> list[str]:
    options = ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in data.options.items())
    return [
        "## Provenance",
        "",
        f"- Built with annotator {_text(data.tool_version)}; export manifest `{data.manifest_id}` "
        f"(exported {_text(data.exported_at)}, published {_text(data.published_at)}); export options: {options}.",
        "- `export/` holds that export as written (`dataset.jsonl`, `discarded.jsonl`, `stats.json`, "
        "`manifest.json` and their JSON Schemas); `croissant.json` is the Croissant 1.0 metadata.",
        "",
    ]


def _usage(data: CardData) -> list[str]:
    configs = published_configs(data)
    first = configs[0] if configs else "discarded"
    where = data.hub_id or "OWNER/NAME"
    note = "" if data.hub_id else "  # OWNER/NAME: the Hub id (annotator publish --hub-id fills it)"
    return [
        "## Using and uploading it",
        "",
        "```python",
        "from datasets import load_dataset",
        f'rows = load_dataset({json.dumps(where)}, {json.dumps(first)}, split="test"){note}',
        'usable = rows.filter(lambda row: row["usable"])',
        "```",
        "",
        "Each language row has the sentence, the target (`target`, `target_start`, `target_end`, `lemma`, `pos`), "
        "σ (`synset`, `gloss`), Ω(λ) (`senses`, `sense_ranks`, `polysemy_degree`, `sense_rank`), and `good` / `bad` "
        "as lists of strings (a cross-POS candidate is written `[text]_POS`) with their `*_origin` "
        "(`lexicon`: pre-populated, in G0 or B0 — a word a translator moved keeps it; `translator`: typed or "
        "accepted by a translator) and `*_synsets` (space-separated) in the same order, then `status`, "
        "`filters_failed` and `usable`.",
        "",
        "Upload the folder to the Hugging Face Hub with:",
        "",
        "```sh",
        f"hf upload --repo-type dataset {data.hub_id or 'OWNER/' + slug(data.name)} .",
        "```",
        "",
    ]


def _bibtex(text: str) -> str:
    """A BibTeX field value: braces and backslashes would end or escape it, line breaks split the entry, and LaTeX
    reads ``& % $ # _ ~ ^`` as commands (escaped as such)."""
    return latex_escape(" ".join(text.replace("{", "(").replace("}", ")").replace("\\", "/").split()))


def _citation(data: CardData) -> list[str]:
    year = data.published_at[:4]
    key = "".join(ch for ch in slug(data.name).replace("-", "_") if ch.isascii()).strip("_") or "dataset"
    authors = " and ".join(_bibtex(author) for author in data.authors) or f"{TO_FILL}: the authors (--author)"
    url = f"\\url{{{hub_url(data.hub_id)}}}" if data.hub_id else f"{TO_FILL}: the dataset's URL (--hub-id)"
    return [
        "## Citation",
        "",
        "Cite this dataset, and DiBiMT for the method:",
        "",
        "```bibtex",
        f"@misc{{{key}_{year},",
        f"  title = {{{_bibtex(data.name)}}},",
        f"  author = {{{authors}}},",
        f"  year = {{{year}}},",
        f"  howpublished = {{{url}}},",
        f"  note = {{Export manifest {data.manifest_id}}}",
        "}",
        "@inproceedings{campolungo-etal-2022-dibimt,",
        "  title = {{D}i{B}i{MT}: A Novel Benchmark for Measuring {W}ord {S}ense {D}isambiguation Biases in "
        "{M}achine {T}ranslation},",
        "  author = {Campolungo, Niccol{\\`o} and Martelli, Federico and Saina, Francesco and Navigli, Roberto},",
        "  booktitle = {Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics},",
        "  year = {2022},",
        "  pages = {4331--4352}",
        "}",
        "```",
        "",
        "and each source in the licence table (their citations are in `LICENSES/README.md`).",
        "",
    ]


def dataset_card(data: CardData) -> str:
    """The whole ``README.md``: YAML header, then the sections in the order a reviewer reads them."""
    rows, usable = _total(data, "rows"), _total(data, "usable")
    authors = ", ".join(_text(a) for a in data.authors) or _to_fill("the authors (annotator publish --author)")
    with_rows = languages_with_rows(data)
    without = [lang for lang in data.languages if lang not in with_rows]
    body = [
        f"# {_text(data.name)}",
        "",
        f"A DiBiMT-style benchmark of lexical ambiguity in machine translation from English into "
        f"{', '.join(with_rows) or 'no language'}: {data.items} item(s), {rows} language row(s) of which {usable} "
        "usable (done, with something in GOOD), one configuration per language"
        + (" and one for the discarded item-languages." if data.rows.get("discarded") else ".")
        + (
            f" The project's {', '.join(without)} rows are not published (none matches the selection)."
            if without
            else ""
        ),
        "",
        f"- Authors: {authors}",
        f"- URL: {hub_url(data.hub_id) or _to_fill('the Hub URL (annotator publish --hub-id OWNER/NAME)')}",
        "",
        *_what_the_data_is(data),
        *how_it_was_built(data),
        *_annotators(data),
        *_counts(data),
        *_refinement(data),
        *_agreement(data),
        *_discards(data),
        *_uses(data),
        *_limitations(data),
        *_personal(data),
        *_licences(data),
        *_maintenance(data),
        *_provenance(data),
        *_usage(data),
        *_citation(data),
    ]
    return yaml_header(data) + "\n" + "\n".join(body).rstrip() + "\n"


def rai_fields(data: CardData) -> dict[str, str]:
    """Croissant's Responsible-AI properties (RAI 1.0, without the ``rai:`` prefix) from the same facts as the card;
    what the project cannot know starts with ``TO FILL``, as in the card."""
    rows, changed = _total(data, "rows"), _total(data, "changed_by_people")
    usable = _total(data, "usable")
    per_language = "; ".join(
        f"{lang}: {sum(roles.values())} person(s)" for lang, roles in sorted(data.annotators.items())
    )
    coverage = "; ".join(
        f"{lang}: {int(c.get('empty_initial_good', 0))} of {int(c.get('item_languages', 0))} item-languages without "
        "a GOOD word from the lexicon"
        for lang, c in data.coverage.items()
    )
    return {
        "dataCollection": "English sentences with one ambiguous target word each, imported from the corpora named "
        "in the source column; senses and candidate translations pre-populated from the lexicons listed in the "
        "card (no machine translation is used as a source).",
        "dataCollectionType": "Secondary data analysis (existing corpora and lexicons); manual curation.",
        "dataPreprocessingProtocol": "Selection filters (DiBiMT): polysemy degree at least 3, one sentence per sense "
        "and source, no translation of the sense also a word of another sense of the target lemma; flagged items a "
        "lead did not exclude are published with the rules in filters_failed.",
        "dataAnnotationProtocol": f"People changed {changed} of the {rows} published rows (an edit of GOOD or BAD "
        f"or a status); the other {rows - changed} are the lexicon's pre-population output. {usable} rows are "
        "usable (done, with something in GOOD). Translators may add translations (origin translator), move a "
        "word between GOOD and BAD (origin stays lexicon), remove wrong ones, discuss or discard an item-language.",
        "dataAnnotationPlatform": "annotator (a web tool for DiBiMT-style curation), version " + data.tool_version,
        "dataAnnotationAnalysis": (
            f"Agreement measured on {data.agreement.get('item_languages')} double-curated item-languages."
            if data.agreement.get("item_languages")
            else "Not measured: no item-language was curated by two translators."
        ),
        "annotationsPerItem": "Two translators then a lead's adjudication for double-curated item-languages, one "
        "translator otherwise."
        if data.double_curated
        else "One translator per item-language (or none: the row's status says pending).",
        "annotatorDemographics": f"{data.people} person(s) changed item-languages ({per_language or 'none'}); "
        "names never published. TO FILL: who the translators are and how they were recruited and paid.",
        "machineAnnotationTools": "Candidate translations pre-populated from the lexicons (origin lexicon).",
        "dataBiases": "Senses follow the English WordNet 3.0 sense order; candidates are only what the lexicons and "
        "translators gave; the sentences carry their corpora's domains.",
        "dataLimitations": f"Lexicon coverage per language: {coverage or 'not measured'}. Rows no person changed "
        "carry the lexicon's noise unchecked. TO FILL: known gaps.",
        "dataUseCases": "Testing machine translation from English for lexical-ambiguity errors (GOOD, BAD or MISS "
        "per row). Not for training or tuning systems; GOOD and BAD are not complete lists of translations.",
        "personalSensitiveInformation": "No curator is named. The sentences are published as their corpora hold "
        "them and were not checked for personal information. TO FILL: whether they hold any.",
        "dataSocialImpact": "TO FILL: the dataset's expected social impact.",
        "dataReleaseMaintenancePlan": "Each release is a new publish with a new export manifest id "
        f"({data.manifest_id} for this one). TO FILL: the maintainers and how errors are reported.",
    }
