"""Shared test fixtures. Test helper modules in this folder (e.g. fake_babelnet) import by bare name."""
