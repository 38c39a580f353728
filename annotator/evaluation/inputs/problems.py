"""How an evaluation input is refused: every bad line, named with its file, line and rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotator.errors import UserError

_MAX_LISTED_PROBLEMS = 25


@dataclass(frozen=True)
class Problem:
    """One bad input line: file, 1-based line number (0 for the whole file), rule and a plain-words message."""

    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line else self.file
        return f"{where}: {self.message} (rule: {self.rule})"


class EvaluationInputError(UserError):
    """The dataset or the translations are malformed; ``problems`` lists every bad line found (nothing was run)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        shown = [f"  {problem}" for problem in self.problems[:_MAX_LISTED_PROBLEMS]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"  ... and {more} more")
        noun = "problem" if len(self.problems) == 1 else "problems"
        super().__init__(f"{len(self.problems)} {noun} in the input:\n" + "\n".join(shown))


def _problem(problems: list[Problem], source: str, line: int, rule: str, message: str) -> None:
    problems.append(Problem(source, line, rule, message))
