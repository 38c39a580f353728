"""The ``annotator`` command line: one subcommand per job, each registered by a module in ``commands``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator, Sequence

from annotator import __version__
from annotator.commands import (
    contrastive,
    evaluate,
    export,
    items,
    jobs,
    languages,
    lexicon,
    project,
    publish,
    report,
    serve,
    sheet,
    suggestions,
    users,
)
from annotator.errors import UserError
from annotator.terminal import sanitised_output

#: The modules that add subcommands, in the order ``--help`` lists them (a broken one fails the import above).
COMMAND_MODULES = (
    project,
    languages,
    items,
    lexicon,
    users,
    export,
    publish,
    sheet,
    evaluate,
    report,
    contrastive,
    suggestions,
    jobs,
    serve,
)


class CommandParser(argparse.ArgumentParser):
    """A parser that refuses an unknown option itself, so ``annotator export --lang IT`` shows ``export``'s usage.

    argparse lets a subcommand's parser hand unknown options up to the top-level parser, which then prints the
    top-level usage; subcommand parsers are made of this class too (``add_subparsers`` uses the parent's class).
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="annotator",
        description="Build a DiBiMT-style benchmark of lexical ambiguity in machine translation.",
    )
    parser.add_argument("--version", action="version", version=f"annotator {__version__}")
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="project data folder (default: $ANNOTATOR_DATA or ./data)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


#: Commands that keep the default end on SIGTERM/SIGHUP: ``serve`` becomes Streamlit (exec), and a job worker's
#: end is handled by the job control (the job's state says how it ended).
_OWN_SIGNALS = frozenset({"serve", "jobs"})


@contextlib.contextmanager
def _signals_interrupt(command: str) -> Iterator[None]:
    """SIGTERM and SIGHUP end a command as Ctrl-C does (``KeyboardInterrupt``), so every writer's ``except`` and
    ``finally`` run: a folder or file built aside is removed, a transaction rolled back."""
    if command in _OWN_SIGNALS:
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _check_out_option(args: argparse.Namespace) -> None:
    """``--out ""`` (an empty or blank path) names nothing: refused before anything runs."""
    out = getattr(args, "out", None)
    if isinstance(out, str) and not out.strip():
        raise UserError("--out names no file or folder (an empty path); name where to write.")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it prints (names, ids, messages from files) is sanitised for the terminal."""
    with sanitised_output():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from annotator.project import committed_writes

    before = committed_writes()
    try:
        _check_out_option(args)
        with _signals_interrupt(args.command):
            return int(args.func(args) or 0)
    except UserError as error:
        print(f"annotator {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        saved = committed_writes() > before  # said only when this command saved something
        print("interrupted; " + ("work saved so far is kept" if saved else "nothing was changed"), file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
