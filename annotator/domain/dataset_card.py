"""The dataset card of a published benchmark (``README.md``, issue 35), written from plain data.

The YAML header is what the Hugging Face Hub reads (licence, languages, task, size, configurations and their
files); the prose says how this project built the data (the DiBiMT process as it ran here), its counts, the
refinement statistics, agreement, discards, provenance, every source's licence and how to cite. Pure: the export's
figures and the sources' licences are given, so the text is tested without a project.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.domain.agreement import format_figure
from annotator.domain.licences import OTHER, SourceLicence
from annotator.domain.output_text import markdown_escape
from annotator.domain.refinement_stats import format_value

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
    "target_language": "σ lexicalised in every target language",
}


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


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value for ``n`` examples."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def slug(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return "-".join(part for part in cleaned.split("-") if part) or "dataset"


def _q(value: str) -> str:
    """A YAML scalar: JSON's double-quoted string is valid YAML, and safe whatever the text holds."""
    return json.dumps(value, ensure_ascii=False)


def yaml_header(data: CardData) -> str:
    langs = sorted({SENTENCE_LANGUAGE, *(lang.lower() for lang in data.languages)})
    lines = ["---", f"license: {_q(data.licence)}"]
    if data.licence == OTHER:
        lines += [f"license_name: {_q('lexicon-sources')}", f"license_link: {_q('LICENSES/README.md')}"]
    lines += ["language:", *(f"- {_q(lang)}" for lang in langs)]
    lines += ["multilinguality:", f"- {_q('multilingual')}", "task_categories:", f"- {_q('translation')}"]
    lines += ["tags:", *(f"- {_q(t)}" for t in ("word-sense-disambiguation", "lexical-ambiguity", "dibimt"))]
    lines += ["size_categories:", f"- {_q(size_category(data.items))}", f"pretty_name: {_q(data.name)}"]
    lines.append("configs:")
    for config in [*data.languages, "discarded"]:
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


def _lexicon_sentence(lexicon: Mapping[str, Any]) -> str:
    provider = lexicon.get("provider")
    version = lexicon.get("version") or "not stated"
    if provider == "wordnet":
        lexicons = ", ".join(f"`{spec}`" for spec in lexicon.get("lexicons") or []) or "none"
        return f"open wordnets read with the `wn` library (lexicons {lexicons})"
    if provider == "babelnet":
        return f"BabelNet through its HTTP API (version {_text(version)})"
    label = lexicon.get("label") or lexicon.get("snapshot") or "a lexicon snapshot"
    source = lexicon.get("source") or "not stated"
    return f"an offline lexicon snapshot (provider: {_text(source)}; version {_text(version)}; “{_text(label)}”)"


def how_it_was_built(data: CardData) -> list[str]:
    """The card's "How the data was built" section: the DiBiMT process as this project ran it."""
    ranked = sorted(data.item_sources.items(), key=lambda entry: (-entry[1], entry[0]))
    sources = ", ".join(f"{_text(name or '(no source)')}: {n}" for name, n in ranked[:SHOWN_SOURCES])
    if len(ranked) > SHOWN_SOURCES:
        sources += f" and {len(ranked) - SHOWN_SOURCES} more sources (the `source` column)"
    flagged = "; ".join(f"{FILTER_NAMES.get(rule, rule)}: {n} item(s) flagged" for rule, n in data.filters.items())
    if not data.filters_run:
        flagged = "The selection filters were not run on this project: no item was checked against them"
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
        f"- **Selection filters.** {flagged or 'No filter flagged an item'}. A lead excluded {data.excluded} "
        "item(s); excluded items are never published.",
        "- **Curation.** Translators who speak the language refined G0 and B0 into the final GOOD and BAD sets: "
        "they added missing translations (`origin` = `translator`), removed wrong ones, marked an item-language "
        "DISCUSS to settle it with the lead, and discarded an item-language that cannot make a fair test "
        "(reasons below).",
    ]
    if data.double_curated:
        out.append(
            f"- **Double curation.** {data.double_curated} item-language(s) were curated by two translators "
            "independently and then adjudicated; their agreement is below."
        )
    else:
        out.append("- **Double curation.** Not used: each item-language was curated by one translator.")
    rule = "An item is published when it is done in every language."
    if data.options.get("include_incomplete"):
        rule = "Items not yet done in every language are published too: a row's `status` says how far it got."
    kept = (
        " Items discarded in some language keep their other languages."
        if data.options.get("keep_partially_discarded")
        else " An item discarded in any language is left out."
    )
    left = ", ".join(f"{n} {why}" for why, n in data.left_out.items() if n) or "none"
    out += [
        f"- **Release.** {rule}{kept} Left out: {left}.",
        "",
    ]
    return out


def _counts(data: CardData) -> list[str]:
    out = ["## Counts", "", f"{data.items} item(s). Rows per configuration:", ""]
    out += _table(["configuration", "rows"], [[config, n] for config, n in data.rows.items()])
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
        "the items not excluded: % added = share of the final GOOD translations that were not in G0 (translators "
        "added them); % removed = share of the G0 translations that translators removed; % shared = share of the "
        "pairs of items with the same σ whose final GOOD sets are identical; Jaccard = the mean Jaccard similarity "
        "of those pairs' GOOD sets (n/a: nothing to count).",
        "",
    ]
    rows = [
        [
            lang,
            row["item_languages"],
            format_value(row["added_pct"]),
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
            format_value(mean.get("removed_pct")),
            "",
            format_value(mean.get("shared_pct")),
            format_value(mean.get("mean_jaccard"), 3),
        ]
    )
    return out + _table(["language", "done", "% added", "% removed", "same-σ pairs", "% shared", "Jaccard"], rows)


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


def _licences(data: CardData) -> list[str]:
    if data.licence == OTHER:
        head = (
            "This dataset is released under the terms of the sources it was built from (licence `other`): "
            "anyone using it must respect each of the licences below."
        )
    else:
        head = f"This dataset is released under [{_text(data.licence_name)}]({data.licence_url}) (`{data.licence}`)."
    out = ["## Licences", "", head, "", "Sources the data came from (texts or links in `LICENSES/`):", ""]
    rows = [
        [_text(s.source), _text(s.provided), _text(s.licence.name if s.licence.known else s.stated), s.licence.id]
        for s in data.sources
    ]
    out += _table(["source", "what the dataset took from it", "licence", "id"], rows)
    cited = [f"- {_text(s.source)}: {_text(s.citation)}" for s in data.sources if s.citation]
    if cited:
        out += ["Cite the sources:", "", *cited, ""]
    return out


def _provenance(data: CardData) -> list[str]:
    options = ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in data.options.items())
    return [
        "## Provenance",
        "",
        f"- Built with annotator {_text(data.tool_version)}; export manifest `{data.manifest_id}` "
        f"(exported {data.exported_at}, published {data.published_at}); export options: {options}.",
        "- `export/` holds that export as written (`dataset.jsonl`, `discarded.jsonl`, `stats.json`, "
        "`manifest.json` and their JSON Schemas); `croissant.json` is the Croissant 1.0 metadata.",
        "",
    ]


def _usage(data: CardData) -> list[str]:
    first = data.languages[0] if data.languages else "discarded"
    return [
        "## Using and uploading it",
        "",
        "```python",
        "from datasets import load_dataset",
        f'rows = load_dataset("path/or/hub-id", "{first}", split="test")',
        "```",
        "",
        "Each language row has the sentence, the target (`target`, `target_start`, `target_end`, `lemma`, `pos`), "
        "σ (`synset`, `gloss`), Ω(λ) (`senses`, `sense_ranks`, `polysemy_degree`, `sense_rank`), and `good` / `bad` "
        "as lists of strings (a cross-POS candidate is written `[text]_POS`) with their `*_origin` "
        "(`lexicon` or `translator`) and `*_synsets` (space-separated) in the same order.",
        "",
        "Upload the folder to the Hugging Face Hub with:",
        "",
        "```sh",
        f"hf upload --repo-type dataset YOUR-NAME/{slug(data.name)} .",
        "```",
        "",
    ]


def _bibtex(text: str) -> str:
    """A BibTeX field value: braces and backslashes would end or escape it, line breaks split the entry."""
    return " ".join(text.replace("{", "(").replace("}", ")").replace("\\", "/").split())


def _citation(data: CardData) -> list[str]:
    year = data.published_at[:4]
    return [
        "## Citation",
        "",
        "Cite this dataset, and DiBiMT for the method:",
        "",
        "```bibtex",
        f"@misc{{{slug(data.name).replace('-', '_')}_{year},",
        f"  title = {{{_bibtex(data.name)}}},",
        f"  year = {{{year}}},",
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
    body = [
        f"# {_text(data.name)}",
        "",
        f"A DiBiMT-style benchmark of lexical ambiguity in machine translation from English into "
        f"{', '.join(data.languages)}: {data.items} item(s), one configuration per language and one for the "
        "discarded item-languages.",
        "",
        *how_it_was_built(data),
        *_counts(data),
        *_refinement(data),
        *_agreement(data),
        *_discards(data),
        *_licences(data),
        *_provenance(data),
        *_usage(data),
        *_citation(data),
    ]
    return yaml_header(data) + "\n" + "\n".join(body).rstrip() + "\n"
