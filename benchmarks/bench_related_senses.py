"""Benchmark (issue 33, acceptance 1): on the 42D project built from the shared open wordnets, the share of
item-languages with an empty G0 that get at least one related-sense suggestion, next to the same share read
straight from the LMF files.

Run: ``python benchmarks/bench_related_senses.py [--data ../shared/data] [--work DIR] [--reuse-wordnet DIR]``.

The project is built with the real command line (child processes: ``init --languages IT,ZH,DE,RU``, ``lexicon
use-wordnet`` with the six files, ``import`` of 42D, ``prepopulate``, then ``suggestions --out``). The independent
reading parses the WN-LMF files with ElementTree (as ``bench_open_data.py`` does for G0): gold sense key → English
synset → its synset relations (hypernym, instance hypernym, hyponym, similar, also, verb group, entails) and the
derivation relations of its senses → the related synsets' ILIs → does a lexicon of the language have a lexicalized
sense of one of them. The two shares must agree within ±2 points per language.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_open_data import FILES, LANGS, lmf_lexicalized_ilis, step, use_wordnet

SYNSET_RELATIONS = {"hypernym", "instance_hypernym", "hyponym", "similar", "also", "verb_group", "entails"}
SENSE_RELATIONS = {"derivation"}
DC = "{https://globalwordnet.github.io/schemas/dc/}"


def english_relations(path: Path) -> tuple[dict[str, str], dict[str, str], dict[str, set[str]]]:
    """(sense key → synset, synset → ILI, synset → related synsets) from the English LMF file."""
    key_synset: dict[str, str] = {}
    synset_ili: dict[str, str] = {}
    related: dict[str, set[str]] = {}
    sense_synset: dict[str, str] = {}
    derivations: list[tuple[str, str]] = []  # (source synset, target sense)
    with lzma.open(path) as handle:
        for _event, element in ET.iterparse(handle):
            if element.tag == "LexicalEntry":
                for sense in element.findall("Sense"):
                    synset = sense.get("synset", "")
                    sense_synset[sense.get("id", "")] = synset
                    key = sense.get(DC + "identifier")
                    if key:
                        key_synset[key] = synset
                    for link in sense.findall("SenseRelation"):
                        if link.get("relType") in SENSE_RELATIONS:
                            derivations.append((synset, link.get("target", "")))
                element.clear()
            elif element.tag == "Synset":
                own = element.get("id", "")
                synset_ili[own] = element.get("ili", "")
                for link in element.findall("SynsetRelation"):
                    if link.get("relType") in SYNSET_RELATIONS:
                        related.setdefault(own, set()).add(link.get("target", ""))
                element.clear()
    for source, target_sense in derivations:
        target = sense_synset.get(target_sense)
        if target and target != source:
            related.setdefault(source, set()).add(target)
    return key_synset, synset_ili, related


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", default="../shared/data", help="folder with open-wordnets/ and wsd-hard-benchmark-42D/"
    )
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed after)")
    parser.add_argument("--reuse-wordnet", help="copy this wordnet folder instead of adding the six files")
    args = parser.parse_args()
    scratch = None if args.work else tempfile.mkdtemp(prefix="bench-related-")
    work = Path(args.work or scratch)
    project = work / "p42"
    if project.exists():
        shutil.rmtree(project)
    try:
        run(args, work, project)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def run(args: argparse.Namespace, work: Path, project: Path) -> None:
    wordnets = Path(args.data) / "open-wordnets"
    wsd = Path(args.data) / "wsd-hard-benchmark-42D"
    print("Steps (each a child process)")
    step("init (IT ZH DE RU)", "init", "--data", str(project), "--languages", ",".join(LANGS))
    if args.reuse_wordnet:
        shutil.copytree(args.reuse_wordnet, project / "wordnet", dirs_exist_ok=True)
        os.chmod(project / "wordnet", 0o700)
        use_wordnet(project)
    else:
        files = [str(wordnets / f"{name}.xml.xz") for names in FILES.values() for name in names]
        step("use-wordnet (6 WN-LMF files)", "lexicon", "use-wordnet", "--data", str(project), *files)
    gold = wsd / "42D.gold.key.txt"
    step("import 42D", "import", "--data", str(project), str(wsd / "42D.data.xml"), "--gold", str(gold))
    step("pre-populate", "prepopulate", "--data", str(project))
    out = work / "suggestions.jsonl"
    step("suggestions --out (every item-language)", "suggestions", "--data", str(project), "--out", str(out))

    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    t0 = time.perf_counter()
    key_synset, synset_ili, related = english_relations(wordnets / "wn30-en.xml.xz")
    lang_ilis = {
        lang: set().union(*(lmf_lexicalized_ilis(wordnets / f"{name}.xml.xz") for name in FILES[lang]))
        for lang in LANGS
    }
    print(f"  (reading the LMF files directly: {time.perf_counter() - t0:.1f} s)\n")
    gold_keys = {
        instance: keys.split()
        for instance, keys in (line.split(maxsplit=1) for line in gold.read_text(encoding="utf-8").splitlines() if line)
    }
    from annotator.project import Project

    opened = Project.open(project)
    with opened.db.read() as conn:
        empty = {
            (s.item_id, s.lang) for s in opened.repo.iter_item_languages(conn) if s.prepopulated and not s.initial_good
        }
    opened.db.dispose()
    relation_labels = SYNSET_RELATIONS | SENSE_RELATIONS
    print(f"  {'lang':<5} {'empty G0':>9} {'≥1 related (suggestions)':>25} {'≥1 related (LMF)':>17} {'diff':>6}")
    for lang in LANGS:
        mine = [line for line in lines if line["lang"] == lang and (line["id"], lang) in empty]
        with_related = sum(
            1 for line in mine if any(s["source"] == "related" and s["relation"] in relation_labels
                                      for s in line["suggestions"])
        )  # fmt: skip
        from_lmf = 0
        for line in mine:
            synset = key_synset.get(gold_keys[line["id"]][0], "")
            ilis = {synset_ili.get(other, "") for other in related.get(synset, ())}
            from_lmf += bool(ilis & lang_ilis[lang])
        total = len(mine) or 1
        ours, theirs = 100 * with_related / total, 100 * from_lmf / total
        print(f"  {lang:<5} {len(mine):>9} {ours:>24.1f}% {theirs:>16.1f}% {ours - theirs:>+6.1f}")


if __name__ == "__main__":
    main()
