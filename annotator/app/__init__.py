"""The Streamlit app: ``main.py`` is the entry point, ``pages/`` the pages; what pages share is in ``session``
(who is logged in), ``guards`` (the session check of fragments and downloads), ``messages``, ``faults``,
``page_run``, ``project_cache`` and ``configuration``."""
