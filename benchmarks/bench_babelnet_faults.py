"""Benchmark (issue 20, point 7): ``annotator prepopulate`` against a broken or hostile BabelNet, each run in a fresh
process; prints the exit code, wall-clock seconds and peak RSS (the child's own ``ru_maxrss``).

Targets: peak RSS against a 400 MB answer at most 300 MB; a server dripping one byte every 5 s holds the run at
most 2 minutes (the default deadline is 60 s per request, its retries included). The fake server runs in this
process and streams the 400 MB without holding it.

Run: ``python benchmarks/bench_babelnet_faults.py`` (about 1.5 minutes: the drip waits out the real 60 s
deadline; ``--deadline 10`` for a short check).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

from fake_babelnet import DEFAULT_KEY, FakeBabelNet  # noqa: E402  (the tests' fake server: the same faults)
from prepopulate_data import ROWS, SNAPSHOT  # noqa: E402

SIZE = 400_000_000
RSS_TARGET_MB = 300.0
DRIP_TARGET_S = 120.0

#: The child: the command line, then its own peak RSS (``ru_maxrss`` is in kB on Linux) on the last stderr line.
_CHILD = (
    "import resource, sys\n"
    "from annotator.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(f'peak_rss_kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@dataclass(frozen=True)
class Measured:
    returncode: int
    output: str
    seconds: float
    peak_rss_mb: float


def run_measured(args: list[str], timeout: float) -> Measured:
    """``annotator ARGS`` in a fresh process with this checkout first on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    seconds = time.perf_counter() - started
    lines = done.stderr.strip().splitlines()
    rss_kb = next((int(line.split("=", 1)[1]) for line in reversed(lines) if line.startswith("peak_rss_kb=")), 0)
    return Measured(done.returncode, done.stdout, seconds, rss_kb / 1024)


@contextlib.contextmanager
def environment(**values: str | None) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def fresh_project(folder: Path, server: FakeBabelNet, name: str) -> Path:
    """A new project on the fake BabelNet with the tests' four items (20 item-languages), set up in this process."""
    from annotator.cli import main

    data = folder / name
    items = folder / "items.jsonl"
    if not items.exists():
        items.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["init", "--data", str(data), "--babelnet", "--babelnet-url", server.base_url]) == 0
        assert main(["import", str(items), "--data", str(data)]) == 0
    return data


def report(label: str, measured: Measured) -> None:
    last = next((line for line in reversed(measured.output.splitlines()) if line.strip()), "")
    print(f"{label:48} {measured.returncode:>4} {measured.seconds:>8.2f} {measured.peak_rss_mb:>8.1f}  {last[:90]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deadline", type=float, help="ANNOTATOR_BABELNET_DEADLINE for the drip run (default 60 s)")
    parser.add_argument("--drip-interval", type=float, default=5.0, help="seconds between dripped bytes")
    args = parser.parse_args()
    deadline = None if args.deadline is None else f"{args.deadline:g}"
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeBabelNet(SNAPSHOT) as server,
        environment(
            BABELNET_API_KEY=DEFAULT_KEY,
            ANNOTATOR_DATABASE_URL=None,
            ANNOTATOR_BABELNET_DEADLINE=None,
            ANNOTATOR_BABELNET_MAX_MB=None,
        ),
    ):
        folder = Path(tmp)
        os.chdir(folder)
        print(f"{'run (annotator prepopulate)':48} {'exit':>4} {'seconds':>8} {'peak MB':>8}  last line of output")
        baseline = run_measured(["prepopulate", "--data", str(fresh_project(folder, server, "base"))], timeout=300)
        report("normal server (baseline)", baseline)
        worst_rss = 0.0
        for label, options in (
            ("400 MB answer, with Content-Length", {"content_length": True}),
            ("400 MB answer, no length (read until close)", {"content_length": False}),
            ("400 MB answer, gzip on the fly", {"compressed": True}),
        ):
            data = fresh_project(folder, server, label.split(",")[1].strip().replace(" ", "-"))
            server.clear_faults()
            server.streamed_bytes = 0
            server.huge_next(None, SIZE, endpoint="getSynset", **options)
            measured = run_measured(["prepopulate", "--data", str(data)], timeout=600)
            report(label, measured)
            print(
                f"{'':48} the server had sent {server.streamed_bytes / 1e6:.1f} MB (on the wire) when the "
                "client hung up"
            )
            worst_rss = max(worst_rss, measured.peak_rss_mb)
        server.clear_faults()
        data = fresh_project(folder, server, "drip")
        server.drip_next(None, args.drip_interval)
        with environment(ANNOTATOR_BABELNET_DEADLINE=deadline):
            drip = run_measured(["prepopulate", "--data", str(data)], timeout=900)
        report(f"drip: 1 byte every {args.drip_interval:g} s (deadline {deadline or '60'} s)", drip)
        server.clear_faults()
        rss_verdict = "within" if worst_rss <= RSS_TARGET_MB else "OVER"
        drip_verdict = "within" if drip.seconds <= DRIP_TARGET_S else "OVER"
        print(f"peak RSS against a 400 MB answer: {worst_rss:.1f} MB — {rss_verdict} the {RSS_TARGET_MB:.0f} MB target")
        print(
            f"a dripping server holds pre-population {drip.seconds:.1f} s "
            f"({drip.seconds - baseline.seconds:.1f} s more than the baseline run) — {drip_verdict} the "
            f"{DRIP_TARGET_S:.0f} s target"
        )


if __name__ == "__main__":
    main()
