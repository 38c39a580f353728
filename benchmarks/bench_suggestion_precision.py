"""Benchmark: how often a suggestion is right, the way a translator meets it (leave-one-out on the open wordnets).

Run: ``python benchmarks/bench_suggestion_precision.py [--data ../shared/data] [--sample 4000] [--seed 42]
[--kinds] [--show 40]``.

For every item-language whose G0 is *not* empty, σ's own lexicalizations in the language are hidden, the
suggestions are computed as if G0 were empty (B0 then holds every word of the other senses of λ, as for a real
empty-GOOD item), and a suggestion counts as right when it is one of the hidden words (same candidate identity,
SPEC §3: a cross-PoS form ``[x]_POS`` is never a word of σ). Figures: precision@1, precision@3 and recall@3 (the
share of the hidden words found in the first three) per language, and per source and relation (the share of right
suggestions among those shown in the first three), before (the ranking of the related part as it was kept: relation
order, bare words of any part of speech) and after (``domain.suggestions.rank_suggestions``, cross-PoS forms).

Two sets: the 42D WSD instances (single gold key) and a larger one drawn from WordNet 3.0 (``--sample`` English
senses of polysemous lemmas, fixed seed). The lexicons are read straight from the shared WN-LMF files; the relations
with the project's own reader (``lexicon.wordnet_relations``), so the related synsets are the ones a project gets.
Only the lexicon routes can be measured this way (the team's curation and MT words need a curated project).
"""

from __future__ import annotations

import argparse
import lzma
import random
import re
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotator.domain.candidates import CandidateError, key_string, parse_candidate
from annotator.domain.lexicon_records import LexSense, SynsetRecord
from annotator.domain.model import CandidateEntry, ItemLanguage, Origin
from annotator.domain.suggestions import (
    GOOD,
    MOVE_TO_GOOD,
    RELATED,
    Suggestion,
    final_suggestions,
    kind_of,
    rank_suggestions,
    related_suggestions,
    valid_candidate,
)
from annotator.lexicon.wordnet_relations import WordnetRelations, write_relations

LANGS = ("IT", "ZH", "DE", "RU")
FILES = {"IT": ["omw-it", "omw-iwn"], "ZH": ["omw-cmn"], "DE": ["wikt-de"], "RU": ["wikt-ru"]}
DC = "{https://globalwordnet.github.io/schemas/dc/}"
UPOS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}
_OWN_ID = re.compile(r"-(\d{8})-([nvasr])$")
OLD_RELATION_ORDER = ("similar", "also", "verb_group", "entails", "hypernym", "instance_hypernym", "hyponym",
                      "derivation")  # fmt: skip


def wn_id(own: str) -> str | None:
    match = _OWN_ID.search(own)
    if not match:
        return None
    offset, letter = match.groups()
    return f"wn:{offset}{'a' if letter == 's' else letter}"


class English:
    """The English WordNet: sense keys, each (lemma, PoS)'s synsets in sense order, glosses."""

    def __init__(self, path: Path) -> None:
        self.key_synset: dict[str, str] = {}
        self.senses: dict[tuple[str, str], list[str]] = {}
        self.gloss: dict[str, str] = {}
        with lzma.open(path) as handle:
            for _event, element in ET.iterparse(handle):
                if element.tag == "LexicalEntry":
                    lemma = element.find("Lemma")
                    assert lemma is not None
                    written, pos = lemma.get("writtenForm", ""), UPOS.get(lemma.get("partOfSpeech", ""), "X")
                    for sense in element.findall("Sense"):
                        synset = wn_id(sense.get("synset", ""))
                        if synset is None:
                            continue
                        key = sense.get(DC + "identifier")
                        if key:
                            self.key_synset[key] = synset
                        self.senses.setdefault((written.casefold(), pos), []).append(synset)
                    element.clear()
                elif element.tag == "Synset":
                    own = wn_id(element.get("id", ""))
                    definition = element.find("Definition")
                    if own and definition is not None and definition.text:
                        self.gloss[own] = definition.text
                    element.clear()


def language_words(paths: Sequence[Path]) -> dict[str, list[tuple[str, str]]]:
    """``wn:`` id → [(lemma, lexicon id)] of one language's lexicons (lexicalized senses only)."""
    words: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path in paths:
        lexicon = ""
        with lzma.open(path) as handle:
            for event, element in ET.iterparse(handle, events=("start", "end")):
                if event == "start":
                    if element.tag == "Lexicon":
                        lexicon = element.get("id", "")
                    continue
                if element.tag == "LexicalEntry":
                    lemma = element.find("Lemma")
                    written = lemma.get("writtenForm", "") if lemma is not None else ""
                    for sense in element.findall("Sense"):
                        synset = wn_id(sense.get("synset", ""))
                        if synset and sense.get("lexicalized", "true") != "false":
                            words[synset].append((written, lexicon))
                    element.clear()
                elif element.tag == "Synset":
                    element.clear()
    return words


class Lexicons:
    def __init__(self, data: Path, scratch: Path) -> None:
        wordnets = data / "open-wordnets"
        t0 = time.perf_counter()
        self.english = English(wordnets / "wn30-en.xml.xz")
        self.words = {lang: language_words([wordnets / f"{n}.xml.xz" for n in FILES[lang]]) for lang in LANGS}
        xml = scratch / "wn30-en.xml"
        with lzma.open(wordnets / "wn30-en.xml.xz") as source, xml.open("wb") as target:
            shutil.copyfileobj(source, target)
        written = write_relations(xml, scratch)
        xml.unlink()
        ids = [tuple(p.name.split("-", 2)[2].removesuffix(".json.gz").rsplit("-", 1)) for p in written]
        self.relations = WordnetRelations(scratch, [(i, v) for i, v in ids])
        print(f"  (lexicons and relations read in {time.perf_counter() - t0:.0f} s)")

    def close_words(
        self, synset: str, lang: str, others: Sequence[str], hidden_synset: str | None = None
    ) -> list[tuple[str, SynsetRecord]]:
        """What the project's finder gives (``_Finder.close_words``): words of λ's other senses that also lexicalize a
        synset two relations from σ (σ's own words hidden: σ is no such synset)."""
        if not hasattr(self, "_reverse"):
            self._reverse: dict[str, dict[str, list[str]]] = {}
        if lang not in self._reverse:
            reverse: dict[str, list[str]] = defaultdict(list)
            for wn, words in self.words[lang].items():
                for word, _source in words:
                    reverse[word.casefold()].append(wn)
            self._reverse[lang] = reverse
        direct = {other for _relation, other in self.relations.related(synset)}
        near = {far for other in direct for _relation, far in self.relations.related(other)} - direct - {synset}
        found = []
        for other in others:
            for word, _source in self.words[lang].get(other, ()):
                tied = next((wn for wn in self._reverse[lang].get(word.casefold(), ()) if wn in near
                             and wn[-1] == synset[-1]), None)  # fmt: skip
                if tied is not None:
                    found.append((word, self.record(tied, lang, hidden=hidden_synset)))
        return found

    def record(self, synset: str, lang: str, hidden: str | None = None) -> SynsetRecord:
        senses = () if synset == hidden else tuple(LexSense(w, lang, s) for w, s in self.words[lang].get(synset, ()))
        return SynsetRecord(synset, UPOS[synset[-1]], {"EN": self.english.gloss.get(synset, "")}, senses)


def entries(texts: Sequence[str], synset: str) -> tuple[CandidateEntry, ...]:
    found: dict[str, CandidateEntry] = {}
    for text in texts:
        canonical = valid_candidate(text)
        if canonical is None:
            continue
        candidate = parse_candidate(canonical)
        entry = CandidateEntry(candidate.text, candidate.pos, Origin.LEXICON, (synset,))
        found.setdefault(entry.key, entry)
    return tuple(found.values())


def before_ranking(lang: str, target: SynsetRecord, related: list[tuple[str, SynsetRecord]],
                   state: ItemLanguage) -> list[Suggestion]:  # fmt: skip
    """The ranking as it was: relations in a fixed order, each synset's words in lexicon order, bare words of any part
    of speech; a word in BAD offered as a move."""
    found: list[Suggestion] = []
    seen: set[str] = set()
    order = {relation: n for n, relation in enumerate(OLD_RELATION_ORDER)}
    for relation, record in sorted(related, key=lambda pair: order.get(pair[0], 99)):
        for sense in record.senses:
            text = valid_candidate(sense.lemma)
            if text is None:
                continue
            key = key_string(*_key_parts(text))
            if key in seen:
                continue
            seen.add(key)
            found.append(Suggestion(text, GOOD, RELATED, relation, record.id, ""))
    return final_suggestions(state, [], found, [], [])


def _key_parts(text: str) -> tuple[str, str | None]:
    try:
        candidate = parse_candidate(text)
    except CandidateError:
        return text, None
    return candidate.text, candidate.pos


class Tally:
    """Precision@1/@3 and recall@3 over item-languages; right/shown among the first three per kind."""

    def __init__(self) -> None:
        self.cases = 0
        self.offered = 0
        self.p1 = self.p3 = self.r3 = 0.0
        self.kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.all_kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.cross_pos_bare_top3 = 0

    def add(self, ranked: Sequence[Suggestion], hidden: set[str], target_pos: str) -> None:
        self.cases += 1
        if not ranked:
            return
        self.offered += 1
        right = [s.key in hidden for s in ranked]
        self.p1 += right[0]
        top = right[:3]
        self.p3 += sum(top) / len(top)
        self.r3 += len({s.key for s in ranked[:3] if s.key in hidden}) / len(hidden)
        for number, suggestion in enumerate(ranked):
            kind = bench_kind(suggestion)
            for label in (kind, *evidence(suggestion)):
                self.all_kinds[label][0] += right[number]
                self.all_kinds[label][1] += 1
            if number < 3:
                self.kinds[kind][0] += right[number]
                self.kinds[kind][1] += 1
                pos = _key_parts(suggestion.text)[1]
                moved = suggestion.side == MOVE_TO_GOOD  # its word stands in BAD: of the target's PoS
                if pos is None and not moved and suggestion.synset and UPOS.get(suggestion.synset[-1]) != target_pos:
                    self.cross_pos_bare_top3 += 1

    def line(self, label: str) -> str:
        n = self.offered or 1
        return (
            f"  {label:<8} {self.cases:>6} {self.offered:>8} {100 * self.p1 / n:>6.1f} {100 * self.p3 / n:>6.1f} "
            f"{100 * self.r3 / n:>6.1f} {self.cross_pos_bare_top3:>9}"
        )


def evidence(suggestion: Suggestion) -> list[str]:
    """Evidence labels beyond the kind (measured to weigh them)."""
    found = []
    if suggestion.routes > 1:
        found.append(f"any kind, {min(suggestion.routes, 3)}+ related synsets")
    if suggestion.lexicons > 1:
        found.append("any kind, 2+ lexicons")
    return found


def bench_kind(suggestion: Suggestion) -> str:
    return kind_of(suggestion)


def run_set(name: str, cases: list[tuple[str, str, str]], lexicons: Lexicons, show: int, seed: int) -> None:
    """``cases``: (lemma, UPOS, σ) items; every language with a non-empty G0 is one leave-one-out case."""
    before = {lang: Tally() for lang in LANGS}
    after = {lang: Tally() for lang in LANGS}
    examples: list[str] = []
    for lemma, pos, synset in cases:
        omega = lexicons.english.senses.get((lemma.casefold(), pos), [])
        if synset not in omega:
            continue
        related_ids = lexicons.relations.related(synset)
        for lang in LANGS:
            own = entries([w for w, _s in lexicons.words[lang].get(synset, ())], synset)
            if not own:
                continue
            hidden = {entry.key for entry in own}
            bad_words = [w for other in omega if other != synset for w, _s in lexicons.words[lang].get(other, ())]
            state = ItemLanguage("x", lang, good=(), bad=entries(bad_words, "other"), prepopulated=True)
            target = lexicons.record(synset, lang, hidden=synset)
            related = [(relation, lexicons.record(other, lang, hidden=synset)) for relation, other in related_ids]
            old = before_ranking(lang, target, related, state)
            before[lang].add(old, hidden, pos)
            close = lexicons.close_words(synset, lang, [o for o in omega if o != synset], hidden_synset=synset)
            offered = related_suggestions(lang, target, related, lambda _s: True, target_pos=pos, close=close)
            new = rank_suggestions(state, pos, [], offered, [], [])
            after[lang].add(new, hidden, pos)
            if new:
                examples.append(f"{lang} {lemma}/{pos} {synset}: hidden {sorted(hidden)[:4]} → "
                                f"{[(s.text, bench_kind(s), s.key in hidden) for s in new[:3]]}")  # fmt: skip
    header = f"  {'lang':<8} {'cases':>6} {'offered':>8} {'P@1':>6} {'P@3':>6} {'R@3':>6} {'bare-xPoS':>9}"
    for label, tallies in (("before", before), ("after", after)):
        print(f"\n{name} — {label} (cases: item-languages with G0 ≠ ∅; P/R over those offered ≥ 1 suggestion; "
              "bare-xPoS: bare words of another PoS in the first three)")  # fmt: skip
        print(header)
        total = Tally()
        for lang in LANGS:
            print(tallies[lang].line(lang))
            _merge(total, tallies[lang])
        print(total.line("all"))
        print("  first three, per source/relation and language: right / shown (precision %)")
        kinds = sorted({k for t in tallies.values() for k in t.kinds})
        print(f"  {'kind':<34}" + "".join(f"{lang:>16}" for lang in (*LANGS, "all")))
        for kind in kinds:
            cells = []
            for lang in (*LANGS, "all"):
                right, shown = total.kinds[kind] if lang == "all" else tallies[lang].kinds[kind]
                cells.append(f"{right:>5}/{shown:<5}{(100 * right / shown if shown else 0):>5.1f}" if shown else
                             f"{'-':>16}")  # fmt: skip
            print(f"  {kind:<34}" + "".join(f"{c:>16}" for c in cells))
        if label == "after":
            print("  every suggestion (any rank), per kind: right / offered (precision %) — what the ranking weighs")
            merged: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for tally in tallies.values():
                for kind, (right, shown) in tally.all_kinds.items():
                    merged[kind][0] += right
                    merged[kind][1] += shown
            for kind, (right, shown) in sorted(merged.items(), key=lambda e: -e[1][1]):
                print(f"  {kind:<34} {right:>6}/{shown:<7} {100 * right / shown:>5.1f}")
    if show:
        print(f"\n  {show} examples (after, first three; True = a hidden word of σ):")
        for line in random.Random(seed).sample(examples, min(show, len(examples))):
            print("   ", line)


def _merge(total: Tally, tally: Tally) -> None:
    total.cases += tally.cases
    total.offered += tally.offered
    total.p1 += tally.p1
    total.p3 += tally.p3
    total.r3 += tally.r3
    total.cross_pos_bare_top3 += tally.cross_pos_bare_top3
    for kind, (right, shown) in tally.kinds.items():
        total.kinds[kind][0] += right
        total.kinds[kind][1] += shown


def spot_check(data: Path, lexicons: Lexicons, count: int, seed: int) -> None:
    """``count`` random suggestions among the first three of 42D's empty-GOOD item-languages, with the sentence, for
    a bilingual reader to judge (not leave-one-out: the lexicons as a project has them)."""
    wsd = data / "wsd-hard-benchmark-42D"
    sentences: dict[str, str] = {}
    for _event, element in ET.iterparse(wsd / "42D.data.xml"):
        if element.tag == "sentence":
            words = [(w.get("id"), w.text or "") for w in element]
            for own, _text in words:
                if own:
                    sentences[own] = " ".join(f"*{t}*" if i == own else t for i, t in words)
    pool = []
    for number, (lemma, pos, synset) in enumerate(cases_42d(data, lexicons.english, with_ids=True)):
        instance, omega = lemma.split("\t")[0], lexicons.english.senses.get((lemma.split("\t")[1].casefold(), pos), [])
        for lang in LANGS:
            if entries([w for w, _s in lexicons.words[lang].get(synset, ())], synset):
                continue  # G0 not empty
            bad_words = [w for other in omega if other != synset for w, _s in lexicons.words[lang].get(other, ())]
            state = ItemLanguage("x", lang, good=(), bad=entries(bad_words, "other"), prepopulated=True)
            target = lexicons.record(synset, lang)
            related = [
                (relation, lexicons.record(other, lang)) for relation, other in lexicons.relations.related(synset)
            ]
            close = lexicons.close_words(synset, lang, [o for o in omega if o != synset])
            offered = related_suggestions(lang, target, related, lambda _s: True, target_pos=pos, close=close)
            ranked = rank_suggestions(state, pos, [], offered, [], [])
            for suggestion in ranked[:3]:
                pool.append((number, lang, instance, synset, suggestion))
    print(f"\nSpot check: {count} of {len(pool)} suggestions among the first three of 42D's empty-GOOD item-languages")
    for n, (_number, lang, instance, synset, suggestion) in enumerate(random.Random(seed).sample(pool, count), 1):
        print(f"{n:>3}. [{lang}] {sentences.get(instance, instance)}")
        print(f"     σ {synset}: {lexicons.english.gloss.get(synset, '')}")
        related_gloss = lexicons.english.gloss.get(suggestion.synset, "")
        print(f"     → {suggestion.text}  ({bench_kind(suggestion)}; {suggestion.synset}: {related_gloss})")


def cases_42d(data: Path, english: English, with_ids: bool = False) -> list[tuple[str, str, str]]:
    wsd = data / "wsd-hard-benchmark-42D"
    gold = {}
    for line in (wsd / "42D.gold.key.txt").read_text(encoding="utf-8").splitlines():
        instance, *keys = line.split()
        if len(keys) == 1:
            gold[instance] = keys[0]
    found = []
    for _event, element in ET.iterparse(wsd / "42D.data.xml"):
        if element.tag == "instance" and element.get("id") in gold:
            synset = english.key_synset.get(gold[element.get("id", "")])
            if synset:
                lemma = element.get("lemma", "")
                found.append((f"{element.get('id')}\t{lemma}" if with_ids else lemma, element.get("pos", ""), synset))
    return found


def cases_sampled(english: English, count: int, seed: int) -> list[tuple[str, str, str]]:
    """English senses of polysemous lemmas, drawn with a fixed seed."""
    senses = [(lemma, pos, synset) for (lemma, pos), synsets in sorted(english.senses.items()) if len(synsets) > 1
              for synset in synsets]  # fmt: skip
    return random.Random(seed).sample(senses, min(count, len(senses)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="../shared/data", help="folder with open-wordnets/ and the 42D set")
    parser.add_argument("--sample", type=int, default=4000, help="WordNet senses in the larger set")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--show", type=int, default=0, help="print this many random examples per set")
    parser.add_argument("--spot-check", type=int, default=0, help="print this many 42D empty-GOOD suggestions only")
    args = parser.parse_args()
    data = Path(args.data)
    with tempfile.TemporaryDirectory(prefix="bench-precision-") as scratch:
        lexicons = Lexicons(data, Path(scratch))
        if args.spot_check:
            spot_check(data, lexicons, args.spot_check, args.seed)
            return
        run_set("42D", cases_42d(data, lexicons.english), lexicons, args.show, args.seed)
        run_set(f"WordNet sample ({args.sample} senses of polysemous lemmas, seed {args.seed})",
                cases_sampled(lexicons.english, args.sample, args.seed), lexicons, args.show, args.seed)  # fmt: skip


if __name__ == "__main__":
    main()
