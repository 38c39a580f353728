"""A project's settings as plain data: name, languages, lexicon provider, allowed sources.

Pure values with their JSON form, so every layer (services, exports, the command line, the composition root in
``annotator.project``) can read and build them without reaching the database that stores them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from annotator.domain.languages import parse_language_list

DEFAULT_LANGUAGES = ("DE", "ES", "IT", "RU", "ZH")
#: A snapshot path with this prefix names a file shipped inside the package.
BUILTIN_PREFIX = "builtin:"


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
    """``"it,de"`` → ``("IT", "DE")``, every code checked against ISO 639 (``annotator.domain.languages``)."""
    return parse_language_list(text)
