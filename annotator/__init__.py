"""annotator: build a DiBiMT-style benchmark of lexical ambiguity in machine translation."""

__version__ = "0.1.0"
