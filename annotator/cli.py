"""The ``annotator`` command line: one subcommand per job, each registered by a module in ``commands``."""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import signal
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import NoReturn

from annotator import __version__
from annotator.errors import UserError
from annotator.gc_pause import gc_paused
from annotator.terminal import sanitised_output

#: Each subcommand and the module of ``annotator.commands`` that registers it, in the order ``--help`` lists them.
#: A command line naming one of them imports only that module: ``annotator evaluate`` never loads the database,
#: the web app or the exporters (start-up is most of a small run). A test holds the table to what the modules
#: register.
COMMANDS: dict[str, str] = {
    "init": "project",
    "info": "project",
    "demo": "project",
    "languages": "languages",
    "import": "items",
    "filter": "items",
    "exclude": "items",
    "limits": "items",
    "lexicon": "lexicon",
    "prepopulate": "lexicon",
    "users": "users",
    "export": "export",
    "stats": "export",
    "publish": "publish",
    "sheet": "sheet",
    "evaluate": "evaluate",
    "report": "report",
    "contrastive": "contrastive",
    "suggestions": "suggestions",
    "jobs": "jobs",
    "serve": "serve",
}
#: The modules that add subcommands, in the order ``--help`` lists them (a broken one fails when it is imported).
COMMAND_MODULE_NAMES = tuple(dict.fromkeys(COMMANDS.values()))


def command_modules(names: Sequence[str] = COMMAND_MODULE_NAMES) -> tuple[ModuleType, ...]:
    """The command modules called ``names``, imported."""
    return tuple(importlib.import_module(f"annotator.commands.{name}") for name in names)


def _command_named(argv: Sequence[str]) -> str | None:
    """The subcommand a command line names (the first word that is neither an option nor ``--data``'s value)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--data":
            skip = True
        elif not word.startswith("-"):
            return word
        elif word == "--":
            return None
    return None


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


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given the command line, of the one command it names (when it names a known
    one; otherwise of all, so a mistyped command is listed against every choice)."""
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
    named = _command_named(argv) if argv is not None else None
    names = (COMMANDS[named],) if named in COMMANDS else COMMAND_MODULE_NAMES
    for module in command_modules(names):
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
    words = list(sys.argv[1:] if argv is None else argv)
    # The command's modules and what they import live as long as the process: collecting among them frees nothing.
    with gc_paused(age_survivors=True):
        parser = build_parser(words)
    args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    before = _committed_writes()
    try:
        _check_out_option(args)
        with _signals_interrupt(args.command):
            return int(args.func(args) or 0)
    except UserError as error:
        print(f"annotator {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        saved = _committed_writes() > before  # said only when this command saved something
        print("interrupted; " + ("work saved so far is kept" if saved else "nothing was changed"), file=sys.stderr)
        return 130


def console() -> NoReturn:
    """The ``annotator`` program (and ``python -m annotator.cli``): ``main``, then the process exits with its code.

    The databases' connections are closed first (SQLite then checkpoints its write-ahead log into the file), and
    what is alive is frozen, so the interpreter's last cyclic collection at exit does not walk it: an import of
    10,000 items ends 0.09 s sooner. Exit handlers and threads still run and end as usual.
    """
    code = main()
    engines = sys.modules.get("annotator.store.engines")
    if engines is not None:  # a command that opened no database never imports the database layer
        engines.dispose_all()
    gc.freeze()
    sys.exit(code)


def _committed_writes() -> int:
    """Transactions committed so far by this process; none when no command has opened a project (the project
    module, which brings the database layer, is then not imported just to count them)."""
    project = sys.modules.get("annotator.project")
    return int(project.committed_writes()) if project is not None else 0


if __name__ == "__main__":
    console()
