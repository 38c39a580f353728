"""Work a command starts in a second process while it loads the database layer and opens its project.

A command line spends its first fifth of a second importing the database layer; reading and checking its input
file needs none of it. ``computed_aside`` reads the file in a forked second process meanwhile (``SecondProcess``),
when one can be forked (``can_fork``: two CPUs, one thread), and in the command's own process otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from typing import TypeVar

from annotator.errors import UserError
from annotator.second_process import SecondProcess, can_fork

T = TypeVar("T")


@contextmanager
def computed_aside(compute: Callable[[], T]) -> Iterator[Callable[[], T]]:
    """The block gets a function answering ``compute()``: computed in a second process from the block's start when
    one can be forked, else by the function when it is called. A ``UserError`` of ``compute`` is raised by the
    function in the same words (what the command line shows of it). Leaving the block ends the second process,
    asked or not."""
    if not can_fork():
        yield compute
        return
    with SecondProcess(lambda: _computed(compute)) as child:
        answers: list[T] = []

        def answer() -> T:
            if not answers:
                answers.append(_answer(child))
            return answers[0]

        yield answer


def _computed(compute: Callable[[], T]) -> Generator[None, None, tuple[T | None, str | None]]:
    """The second process's work, no value then its answer: the result, or a refusal's words."""
    yield from ()
    try:
        return compute(), None
    except UserError as error:
        return None, str(error)


def _answer(child: SecondProcess[None, tuple[T | None, str | None]]) -> T:
    for _nothing in child.values():
        pass
    result, refusal = child.result
    if refusal is not None:
        raise UserError(refusal)
    return result  # type: ignore[return-value]
