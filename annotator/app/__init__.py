"""The Streamlit app: ``main.py`` is the entry point, ``pages/`` the pages, ``state.py`` the shared session state."""
