"""App pages; each module exposes ``render()`` and is also runnable as an ``st.Page`` script."""
