"""A tiny open wordnet (WN-LMF 1.4) and a tiny WSD-framework corpus, written by tests into tmp_path.

The synsets, offsets, ILIs, sense keys and lemmas are WordNet 3.0's and OMW's own (Princeton WordNet 3.0, MultiWordNet,
ItalWordNet, Chinese Open Wordnet), a few of them only: "shot" (8 noun senses, the DiBiMT Figure 1 item is sense 8),
"living" (a head adjective and three satellites), "belong" (verbs). English senses are written out of sense order
(with ``n``) so a test can see that Ω(λ) follows the sense numbers, not the file.
"""

from __future__ import annotations

import gzip
import lzma
from pathlib import Path
from xml.sax.saxutils import quoteattr

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE LexicalResource SYSTEM "https://globalwordnet.github.io/schemas/WN-LMF-1.4.dtd">\n'
    '<LexicalResource xmlns:dc="https://globalwordnet.github.io/schemas/dc/">\n'
)

#: (offset-type, ILI, definition, English members as (lemma, sense key, sense number))
ENGLISH = [
    ("13773250-n", "i109286", "a small drink of liquor", [("nip", "nip%1:13:00::", 1), ("shot", "shot%1:23:00::", 8)]),
    ("00122661-n", "i36049", "the act of firing a projectile",
     [("shooting", "shooting%1:04:00::", 1), ("shot", "shot%1:04:00::", 1)]),
    ("04205759-n", "i58852", "a solid missile discharged from a firearm",
     [("shot", "shot%1:06:00::", 2), ("pellet", "pellet%1:06:00::", 2)]),
    ("00565302-n", "i38366", "(sports) the act of swinging or striking at a ball",
     [("stroke", "stroke%1:04:00::", 3), ("shot", "shot%1:04:06::", 3)]),
    ("14485673-n", "i113124", "a chance to do something", [("shot", "shot%1:26:00::", 4)]),
    ("10593115-n", "i92966", "a person who shoots", [("shot", "shot%1:18:00::", 5)]),
    ("06614729-n", "i71225", "a consecutive series of pictures that constitutes a unit of action in a film",
     [("shot", "shot%1:10:01::", 6)]),
    ("00697365-n", "i39101", "the act of putting a liquid into the body by means of a syringe",
     [("injection", "injection%1:04:00::", 1), ("shot", "shot%1:04:03::", 7)]),
    ("02756129-a", "i15540", "pertaining to living persons", [("living", "living%3:01:00::", 1)]),
    ("01941274-s", "i10629", "true to life; lifelike", [("living", "living%5:00:00:realistic:00", 2)]),
    ("00005839-s", "i26", "(informal) absolute", [("living", "living%5:00:00:absolute:00", 3)]),
    ("00928874-s", "i5090", "still in existence",
     [("surviving", "surviving%5:00:00:extant:00", 1), ("living", "living%5:00:00:extant:00", 4)]),
    ("02301680-v", "i33240", "be owned by; be in the possession of", [("belong", "belong%2:40:00::", 1)]),
    ("02737724-v", "i35356", "be suitable or acceptable", [("belong", "belong%2:42:02::", 2)]),
    ("02737876-v", "i35357", "be in the right place or situation",
     [("belong", "belong%2:42:03::", 3), ("go", "go%2:42:01::", 9)]),
]  # fmt: skip

#: Other lexicons: id, language, {offset-type: lemmas}
OTHERS = {
    "tiny-it": ("it", {
        "13773250-n": ["bicchierino", "cicchetto"], "00122661-n": ["colpo"],
        "04205759-n": ["colpo", "pallino", "piombo", "sparo"], "00565302-n": ["colpo"], "10593115-n": ["fucile"],
        "06614729-n": ["scena"], "00697365-n": ["iniezione", "puntura"], "02301680-v": ["appartenere"],
        "02737876-v": ["appartenere", "andare"],
    }),
    "tiny-iwn": ("it", {"00122661-n": ["sparata", "tiro", "sparo", "colpo"], "10593115-n": ["tiratore"]}),
    "tiny-cmn": ("cmn-Hans", {
        "13773250-n": ["一杯"], "00122661-n": ["发射", "射击"], "14485673-n": ["机会"], "00697365-n": ["注射"],
        "01941274-s": ["栩栩如生的"], "02301680-v": ["属于"], "02737876-v": ["属于"],
    }),
}  # fmt: skip

SHOT_DRINK = "wn:13773250n"


def _ili(offset_type: str) -> str:
    return next(ili for key, ili, _d, _m in ENGLISH if key == offset_type)


def english_lmf(lexicon_id: str = "tiny-en", version: str = "3.0", offset_ids: bool = True) -> str:
    entries: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
    for offset_type, _ili_id, _definition, members in ENGLISH:
        pos = "a" if offset_type[-1] in "as" else offset_type[-1]
        for lemma, key, number in members:
            entries.setdefault((lemma, pos), []).append((offset_type, key, number))
    lines = [
        HEADER,
        f'  <Lexicon id="{lexicon_id}" label="tiny English" language="en" email="t@example.org" '
        f'license="https://wordnet.princeton.edu/license-and-commercial-use" version="{version}">\n',
    ]

    def synset_id(offset_type: str) -> str:
        return f"{lexicon_id}-{offset_type}" if offset_ids else f"{lexicon_id}-x{offset_type.replace('-', '')}"

    for (lemma, pos), senses in entries.items():
        lines.append(
            f'    <LexicalEntry id="{lexicon_id}-{lemma}-{pos}">\n'
            f'      <Lemma writtenForm="{lemma}" partOfSpeech="{pos}"/>\n'
        )
        for offset_type, key, number in reversed(senses):  # file order is not sense order
            sense_id = f"{lexicon_id}-" + key.replace("%", "__").replace(":", ".")
            lines.append(
                f'      <Sense id="{sense_id}" synset="{synset_id(offset_type)}" n="{number}" '
                f"dc:identifier={quoteattr(key)}/>\n"
            )
        lines.append("    </LexicalEntry>\n")
    for offset_type, ili, definition, _members in ENGLISH:
        lines.append(
            f'    <Synset id="{synset_id(offset_type)}" ili="{ili}" partOfSpeech="{offset_type[-1]}">\n'
            f"      <Definition>{definition}</Definition>\n    </Synset>\n"
        )
    lines.append("  </Lexicon>\n</LexicalResource>\n")
    return "".join(lines)


def other_lmf(lexicon_id: str) -> str:
    language, synsets = OTHERS[lexicon_id]
    lines = [
        HEADER,
        f'  <Lexicon id="{lexicon_id}" label="tiny {lexicon_id}" language="{language}" '
        f'email="t@example.org" license="https://creativecommons.org/licenses/by/3.0/" version="1.0">\n',
    ]
    by_lemma: dict[tuple[str, str], list[str]] = {}
    for offset_type, lemmas in synsets.items():
        pos = "a" if offset_type[-1] in "as" else offset_type[-1]
        for lemma in lemmas:
            by_lemma.setdefault((lemma, pos), []).append(offset_type)
    for number, ((lemma, pos), offsets) in enumerate(by_lemma.items()):
        lines.append(
            f'    <LexicalEntry id="{lexicon_id}-e{number}">\n'
            f'      <Lemma writtenForm={quoteattr(lemma)} partOfSpeech="{pos}"/>\n'
        )
        lines.extend(f'      <Sense id="{lexicon_id}-e{number}-{o}" synset="{lexicon_id}-{o}"/>\n' for o in offsets)
        lines.append("    </LexicalEntry>\n")
    for offset_type in synsets:
        lines.append(
            f'    <Synset id="{lexicon_id}-{offset_type}" ili="{_ili(offset_type)}" '
            f'partOfSpeech="{offset_type[-1]}"/>\n'
        )
    lines.append("  </Lexicon>\n</LexicalResource>\n")
    return "".join(lines)


def write_tiny_wordnet(folder: Path) -> list[Path]:
    """English (plain .xml), Italian ×2 (.xml.gz and .xml) and Chinese (.xml.xz): every supported file form."""
    folder.mkdir(parents=True, exist_ok=True)
    english = folder / "tiny-en.xml"
    english.write_text(english_lmf(), encoding="utf-8")
    italian = folder / "tiny-it.xml.gz"
    italian.write_bytes(gzip.compress(other_lmf("tiny-it").encode()))
    iwn = folder / "tiny-iwn.xml"
    iwn.write_text(other_lmf("tiny-iwn"), encoding="utf-8")
    chinese = folder / "tiny-cmn.xml.xz"
    chinese.write_bytes(lzma.compress(other_lmf("tiny-cmn").encode()))
    return [english, italian, iwn, chinese]


TINY_WSD = """<?xml version="1.0" encoding="UTF-8"?>
<corpus language="en" source="tiny">
  <text domain="FOOD_AND_DRINK" id="tiny.d000">
    <sentence id="tiny.d000.s000">
      <wf lemma="he" pos="PRON">He</wf>
      <wf lemma="pour" pos="VERB">poured</wf>
      <wf lemma="a" pos="DET">a</wf>
      <instance id="tiny.d000.s000.t003" lemma="shot" pos="NOUN">shot</instance>
      <wf lemma="of" pos="ADP">of</wf>
      <wf lemma="whiskey" pos="NOUN">whiskey</wf>
      <wf lemma="." pos=".">.</wf>
    </sentence>
    <sentence id="tiny.d000.s001">
      <wf lemma="the" pos="DET">The</wf>
      <wf lemma="vast" pos="ADJ">vast</wf>
      <wf lemma="majority" pos="NOUN">majority</wf>
      <wf lemma="of" pos="ADP">of</wf>
      <instance id="tiny.d000.s001.t004" lemma="living" pos="ADJ">living</instance>
      <wf lemma="fish" pos="NOUN">fish</wf>
      <instance id="tiny.d000.s001.t006" lemma="belong" pos="VERB">belong</instance>
      <wf lemma="here" pos="ADV">here</wf>
      <wf lemma="(" pos=".">(</wf>
      <wf lemma="18,000" pos="NUM">18,000</wf>
      <wf lemma="species" pos="NOUN">species</wf>
      <wf lemma=")" pos=".">)</wf>
      <wf lemma="," pos=".">,</wf>
      <wf lemma="they" pos="PRON">they</wf>
      <wf lemma="say" pos="VERB">say</wf>
      <wf lemma="." pos=".">.</wf>
    </sentence>
  </text>
  <text id="tiny.d001">
    <sentence id="tiny.d001.s000">
      <wf lemma="it" pos="PRON">It</wf>
      <wf lemma="be" pos="VERB">was</wf>
      <wf lemma="a" pos="DET">a</wf>
      <wf lemma="good" pos="ADJ">good</wf>
      <instance id="tiny.d001.s000.t004" lemma="shot" pos="NOUN">shot</instance>
      <wf lemma="," pos=".">,</wf>
      <wf lemma="&quot;" pos=".">"</wf>
      <wf lemma="she" pos="PRON">she</wf>
      <wf lemma="say" pos="VERB">said</wf>
      <wf lemma="." pos=".">.</wf>
    </sentence>
  </text>
</corpus>
"""

TINY_GOLD = """tiny.d000.s000.t003 shot%1:23:00::
tiny.d000.s001.t004 living%5:00:00:extant:00
tiny.d000.s001.t006 belong%2:42:03::
tiny.d001.s000.t004 shot%1:04:06:: shot%1:04:00::
"""


def write_tiny_wsd(folder: Path, xml: str = TINY_WSD, gold: str = TINY_GOLD, name: str = "tiny") -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    xml_path, gold_path = folder / f"{name}.data.xml", folder / f"{name}.gold.key.txt"
    xml_path.write_text(xml, encoding="utf-8")
    gold_path.write_text(gold, encoding="utf-8")
    return xml_path, gold_path
