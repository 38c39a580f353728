"""``SecondProcess``: a generator run in a forked child, its values back in order, its return value after them, its
errors raised in the parent, the child always reaped; at most ``queued`` values computed ahead of the parent."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from annotator.second_process import SecondProcess, SecondProcessError, can_fork, usable_cpus


class _NeedsTwo(Exception):
    """An exception whose ``__init__`` takes other arguments than its ``args``: it pickles, yet fails to load."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} and {second}")


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a process (a zombie counts: it has not been reaped)."""
    return Path(f"/proc/{pid}").exists()


def _squares(count: int) -> Generator[int, None, str]:
    for number in range(count):
        yield number * number
    return f"{count} done in {os.getpid()}"


def test_values_come_back_in_order_then_the_return_value() -> None:
    with SecondProcess(lambda: _squares(50)) as child:
        assert list(child.values()) == [n * n for n in range(50)]
        done, pid = child.result.split(" done in ")
    assert done == "50" and int(pid) == child.pid != os.getpid()
    assert not _alive(child.pid)


def test_the_child_sees_the_parent_s_memory_as_it_was_and_changes_nothing_here() -> None:
    held = {"lexicon": ["a", "b"]}

    def produce() -> Generator[list[str], None, None]:
        held["lexicon"].append("changed in the child")
        yield held["lexicon"]

    with SecondProcess(produce) as child:
        assert list(child.values()) == [["a", "b", "changed in the child"]]
    assert held == {"lexicon": ["a", "b"]}


def test_an_error_in_the_child_is_raised_in_the_parent_after_the_values_before_it() -> None:
    def produce() -> Generator[int, None, None]:
        yield 1
        raise LookupError("synset bn:00000001n is missing")

    seen: list[int] = []
    with SecondProcess(produce) as child, pytest.raises(LookupError, match="bn:00000001n is missing"):
        seen.extend(child.values())
    assert seen == [1] and not _alive(child.pid)


def test_an_error_that_cannot_be_rebuilt_comes_back_as_its_text() -> None:
    def produce() -> Generator[int, None, None]:
        yield from ()
        raise _NeedsTwo("left", "right")

    with SecondProcess(produce) as child, pytest.raises(SecondProcessError, match="_NeedsTwo: left and right"):
        list(child.values())


def test_a_value_that_does_not_pickle_is_an_error_naming_it() -> None:
    def produce() -> Generator[object, None, None]:
        yield threading.Lock()

    with SecondProcess(produce) as child, pytest.raises(TypeError, match="lock"):
        list(child.values())


def test_a_child_that_dies_without_a_word_is_an_error_saying_how() -> None:
    def produce() -> Generator[int, None, None]:
        yield 1
        os.kill(os.getpid(), signal.SIGKILL)
        yield 2

    seen: list[int] = []
    with SecondProcess(produce) as child:
        with pytest.raises(SecondProcessError, match=f"without a word \\(killed by signal {int(signal.SIGKILL)}\\)"):
            seen.extend(child.values())
        assert seen in ([], [1])  # a value still queued in the child dies with it
    assert not _alive(child.pid)


def test_leaving_the_block_early_kills_and_reaps_the_child() -> None:
    def endless() -> Generator[int, None, None]:
        number = 0
        while True:
            number += 1
            yield number

    with pytest.raises(KeyError), SecondProcess(endless) as child:
        assert next(child.values()) == 1
        raise KeyError("the parent's own failure")
    assert not _alive(child.pid)
    with pytest.raises(RuntimeError, match="not returned yet"):
        _ = child.result


def test_end_kills_and_reaps_the_child_inside_the_block() -> None:
    def slow() -> Generator[None, None, str]:
        yield from ()
        time.sleep(60)
        return "never read"

    with SecondProcess(slow) as child:
        assert _alive(child.pid)
        child.end()
        assert not _alive(child.pid)  # ended and reaped before the block is left
        child.end()  # again: nothing left to do
    assert not _alive(child.pid)


def test_the_child_runs_at_most_queued_values_ahead(tmp_path: Path) -> None:
    """Values too large for the pipe's buffer: the child computes the one being sent, ``queued`` waiting and the
    one it is putting, then waits for the parent."""
    counter = tmp_path / "computed"
    big = 4 << 20

    def produce() -> Generator[bytes, None, None]:
        for number in range(1, 40):
            counter.write_text(str(number))
            yield bytes(big)

    with SecondProcess(produce, queued=2) as child:
        values = child.values()
        assert len(next(values)) == big
        most = 0
        for _wait in range(40):  # the child gets 2 s to run ahead as far as it can
            time.sleep(0.05)
            most = max(most, int(counter.read_text()))
        assert 2 <= most <= 1 + 1 + 2 + 1  # received, being sent, queued, being put
        assert sum(1 for _value in values) == 38


def test_queued_must_be_positive() -> None:
    with pytest.raises(ValueError, match="queued must be at least 1"):
        SecondProcess(lambda: _squares(1), queued=0)


def test_forking_is_refused_while_another_thread_runs() -> None:
    assert usable_cpus() >= 1
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not can_fork()
    finally:
        release.set()
        other.join()
