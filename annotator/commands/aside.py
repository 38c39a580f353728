"""Work a command starts in a second process while it loads the database layer and opens its project.

A command line spends its first fifth of a second importing the database layer; reading and checking its input
file needs none of it. ``computed_aside`` reads the file in a forked second process meanwhile (``SecondProcess``),
when one can be forked (``can_fork``: two CPUs, one thread), and in the command's own process otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from annotator.errors import UserError
from annotator.second_process import SecondProcess, can_fork

T = TypeVar("T")


class Aside(Generic[T]):
    """``compute()``, asked for with ``answer`` (computed once), or given up with ``abandon``."""

    def __init__(self, compute: Callable[[], T], child: SecondProcess[None, tuple[T | None, str | None]] | None):
        self._compute = compute
        self._child = child
        self._answers: list[T] = []

    def answer(self) -> T:
        """The result (waited for when the second process computes it), or the ``UserError`` of ``compute`` in the
        same words (what the command line shows of it)."""
        if not self._answers:
            self._answers.append(self._compute() if self._child is None else _answer(self._child))
        return self._answers[0]

    def abandon(self) -> None:
        """The result will not be asked for: a second process computing it is ended now."""
        if self._child is not None:
            self._child.end()


@contextmanager
def computed_aside(compute: Callable[[], T]) -> Iterator[Aside[T]]:
    """The block gets ``compute()`` as an ``Aside``: computed in a second process from the block's start when one can
    be forked, else when its answer is asked for. Leaving the block ends the second process, asked or not."""
    if not can_fork():
        yield Aside(compute, None)
        return
    with SecondProcess(lambda: _computed(compute)) as child:
        yield Aside(compute, child)


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
