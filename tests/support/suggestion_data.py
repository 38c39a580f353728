"""A tiny WordNet project and its senses for the suggestion tests."""

from __future__ import annotations

from annotator.domain.model import Role, User
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.suggestions.card import CardSuggestions

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE LexicalResource SYSTEM "https://globalwordnet.github.io/schemas/WN-LMF-1.4.dtd">\n'
    '<LexicalResource xmlns:dc="https://globalwordnet.github.io/schemas/dc/">\n'
)


DRINK, GUNSHOT, BEVERAGE, SIP = "wn:13773250n", "wn:00122661n", "wn:07884567n", "wn:01170052v"


ENGLISH = f"""{HEADER}  <Lexicon id="sg-en" label="e" language="en" email="t@example.org" license="x" version="3.0">
    <LexicalEntry id="sg-en-shot-n"><Lemma writtenForm="shot" partOfSpeech="n"/>
      <Sense id="sg-en-shot-1" synset="sg-en-00122661-n" n="1" dc:identifier="shot%1:04:00::"/>
      <Sense id="sg-en-shot-2" synset="sg-en-13773250-n" n="2" dc:identifier="shot%1:23:00::"/>
    </LexicalEntry>
    <LexicalEntry id="sg-en-nip-n"><Lemma writtenForm="nip" partOfSpeech="n"/>
      <Sense id="sg-en-nip-1" synset="sg-en-13773250-n" n="1" dc:identifier="nip%1:13:00::">
        <SenseRelation relType="derivation" target="sg-en-nip-v-1"/>
      </Sense>
    </LexicalEntry>
    <LexicalEntry id="sg-en-nip-v"><Lemma writtenForm="nip" partOfSpeech="v"/>
      <Sense id="sg-en-nip-v-1" synset="sg-en-01170052-v" n="1" dc:identifier="nip%2:34:00::"/>
    </LexicalEntry>
    <LexicalEntry id="sg-en-drink-n"><Lemma writtenForm="drink" partOfSpeech="n"/>
      <Sense id="sg-en-drink-1" synset="sg-en-07884567-n" n="1" dc:identifier="drink%1:13:04::"/>
    </LexicalEntry>
    <LexicalEntry id="sg-en-whiskey-n"><Lemma writtenForm="whiskey" partOfSpeech="n"/>
      <Sense id="sg-en-whiskey-1" synset="sg-en-07767847-n" n="1" dc:identifier="whiskey%1:13:00::"/>
    </LexicalEntry>
    <Synset id="sg-en-00122661-n" ili="i36049" partOfSpeech="n"><Definition>the act of firing a projectile</Definition>
    </Synset>
    <Synset id="sg-en-13773250-n" ili="i109286" partOfSpeech="n"><Definition>a small drink of liquor</Definition>
      <SynsetRelation relType="hypernym" target="sg-en-07884567-n"/>
      <SynsetRelation relType="mero_part" target="sg-en-07767847-n"/>
    </Synset>
    <Synset id="sg-en-07884567-n" ili="i77000" partOfSpeech="n"><Definition>a single serving of a beverage</Definition>
      <SynsetRelation relType="hyponym" target="sg-en-13773250-n"/>
    </Synset>
    <Synset id="sg-en-01170052-v" ili="i30000" partOfSpeech="v"><Definition>take small sips</Definition></Synset>
    <Synset id="sg-en-07767847-n" ili="i76000" partOfSpeech="n"><Definition>liquor made from grain</Definition>
    </Synset>
  </Lexicon>
</LexicalResource>
"""


def other(lexicon_id: str, synsets: dict[str, tuple[str, list[str]]]) -> str:
    """An Italian lexicon: {offset-type: (ILI, lemmas)}."""
    lines = [f'{HEADER}  <Lexicon id="{lexicon_id}" label="i" language="it" email="t@example.org" license="x" '
             'version="1.0">\n']  # fmt: skip
    for number, (offset, (_ili, lemmas)) in enumerate(synsets.items()):
        for k, lemma in enumerate(lemmas):
            lines.append(
                f'    <LexicalEntry id="{lexicon_id}-e{number}-{k}"><Lemma writtenForm="{lemma}" '
                f'partOfSpeech="{offset[-1]}"/><Sense id="{lexicon_id}-s{number}-{k}" synset="{lexicon_id}-{offset}"/>'
                "</LexicalEntry>\n"
            )
    for offset, (ili, _lemmas) in synsets.items():
        lines.append(f'    <Synset id="{lexicon_id}-{offset}" ili="{ili}" partOfSpeech="{offset[-1]}"/>\n')
    lines.append("  </Lexicon>\n</LexicalResource>\n")
    return "".join(lines)


ITALIAN = {
    "00122661-n": ("i36049", ["sparo"]),
    "07884567-n": ("i77000", ["bevanda"]),
    "01170052-v": ("i30000", ["sorseggiare"]),
    "07767847-n": ("i76000", ["whisky"]),
}


ITALIAN_NOT_ALLOWED = {"13773250-n": ("i109286", ["cicchetto"])}


ITEMS = [
    {"id": "a1", "sentence": "He poured a shot of whiskey.", "target": "shot", "lemma": "shot", "pos": "NOUN",
     "synset": DRINK, "source": "t"},
    {"id": "a2", "sentence": "She had a shot of rum.", "target": "shot", "lemma": "shot", "pos": "NOUN",
     "synset": DRINK, "source": "t"},
    {"id": "g1", "sentence": "He heard a shot.", "target": "shot", "lemma": "shot", "pos": "NOUN",
     "synset": GUNSHOT, "source": "t"},
]  # fmt: skip


def person(project: Project, name: str, role: Role = Role.TRANSLATOR) -> User:
    return add_user(project, name, role, ("IT",), f"{name}-password-long")


def version(project: Project, item_id: str, lang: str = "IT") -> int:
    with project.db.read() as conn:
        found = project.repo.get_item_language(conn, item_id, lang)
    assert found is not None
    return found.version


def by_text(view: CardSuggestions) -> dict[str, dict[str, str]]:
    return {s.text: s.to_dict() for s in view.suggestions}
