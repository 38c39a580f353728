"""A project's settings as plain data: name, languages, lexicon provider, allowed sources.

Pure values with their JSON form, so every layer (services, exports, the command line, the composition root in
``annotator.project``) can read and build them without reaching the database that stores them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from annotator.errors import UserError

DEFAULT_LANGUAGES = ("DE", "ES", "IT", "RU", "ZH")


@dataclass(frozen=True)
class LexiconSettings:
    """Which provider pre-population uses: ``snapshot`` (a file), ``babelnet`` (the HTTP API) or ``wordnet``
    (open wordnets in the project's own ``wn`` database, ``DATA/wordnet``)."""

    provider: str = "snapshot"
    snapshot: str | None = None
    base_url: str = "https://babelnet.io/v9/"


@dataclass(frozen=True)
class ProjectSettings:
    name: str = "annotator project"
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    lexicon: LexiconSettings = field(default_factory=LexiconSettings)
    allowed_sources: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["languages"] = list(self.languages)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProjectSettings:
        return cls(
            name=data.get("name", "annotator project"),
            languages=tuple(data.get("languages", DEFAULT_LANGUAGES)),
            lexicon=LexiconSettings(**data.get("lexicon", {})),
            allowed_sources={k: list(v) for k, v in data.get("allowed_sources", {}).items()},
        )


def parse_languages(text: str) -> tuple[str, ...]:
    langs = tuple(dict.fromkeys(part.strip().upper() for part in text.replace(" ", ",").split(",") if part.strip()))
    for lang in langs:
        if not (lang.isalpha() and 2 <= len(lang) <= 3):
            raise UserError(f"{lang!r} is not a language code (use ISO 639-1 like IT, DE, ZH).")
    if not langs:
        raise UserError("Give at least one language.")
    return langs
