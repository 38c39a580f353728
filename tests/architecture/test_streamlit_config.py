"""The top-level ``.streamlit/config.toml`` (read by ``streamlit run`` from the repository) and the packaged
``annotator/app/streamlit_config.toml`` (applied by ``annotator serve`` from any folder) hold the same settings."""

from __future__ import annotations

import tomllib
from pathlib import Path

from annotator.commands.serve import STREAMLIT_CONFIG

TOP_LEVEL = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_the_top_level_streamlit_config_equals_the_packaged_one() -> None:
    top = tomllib.loads(TOP_LEVEL.read_text(encoding="utf-8"))
    packaged = tomllib.loads(STREAMLIT_CONFIG.read_text(encoding="utf-8"))
    assert packaged["theme"]["primaryColor"] and packaged["server"]["address"] == "127.0.0.1"  # read, not empty
    assert top == packaged, "change .streamlit/config.toml and annotator/app/streamlit_config.toml together"
