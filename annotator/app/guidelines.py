"""The annotation guidelines (DiBiMT appendix C in the project's own words), one click away on every page."""

from __future__ import annotations

from importlib import resources

import streamlit as st


@st.cache_data(show_spinner=False)
def guidelines_text() -> str:
    """The bundled ``annotator/guidelines/guidelines.md``; read once per process."""
    return resources.files("annotator").joinpath("guidelines/guidelines.md").read_text(encoding="utf-8")


@st.dialog("Annotation guidelines", width="large")
def show_guidelines() -> None:
    text = guidelines_text()
    st.markdown(text.split("\n", 1)[1] if text.startswith("# ") else text)  # the dialog has the title already


def guidelines_button(key: str = "guidelines") -> None:
    """A button that opens the guidelines over the page, so the translator keeps their place."""
    if st.button("Guidelines", key=key, icon=":material/menu_book:", help="Open the annotation guidelines"):
        show_guidelines()


def render() -> None:
    """The guidelines as a page of their own (for reading them in full or printing)."""
    st.markdown(guidelines_text())
