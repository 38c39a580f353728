"""The BabelNet API key: where it is read from (the environment, then ``secrets.toml``) and the holder that keeps it
out of reprs, ``vars()`` dumps and f-strings."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from annotator.lexicon.base import LexiconError

DEFAULT_SECRETS_PATH = Path(".streamlit/secrets.toml")
API_KEY_ENV = "BABELNET_API_KEY"


class Secret:
    """Holds the API key so that reprs, ``vars()`` dumps and f-strings never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<hidden>"

    __str__ = __repr__


def load_api_key(
    secrets_path: str | Path | None = DEFAULT_SECRETS_PATH, environ: Mapping[str, str] | None = None
) -> str | None:
    """The BabelNet key: ``$BABELNET_API_KEY`` first, then ``secrets.toml`` (top-level ``BABELNET_API_KEY``
    or ``[babelnet] api_key``). None when neither has one, so callers can say what to configure.
    """
    env = os.environ if environ is None else environ
    from_env = (env.get(API_KEY_ENV) or "").strip()
    if from_env:
        return from_env
    if secrets_path is None:
        return None
    path = Path(secrets_path)
    if not path.is_file():
        return None
    try:
        secrets = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        # The TOML error names a line and column, never the file's values.
        raise LexiconError(f"{path} is not valid TOML ({exc}); fix it or set {API_KEY_ENV}.") from None
    value = secrets.get(API_KEY_ENV)
    section = secrets.get("babelnet")
    if not value and isinstance(section, dict):
        value = section.get("api_key")
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None
