"""Evaluation (SPEC §8): inputs, run, metrics report, presenters, and test-suite checks."""
