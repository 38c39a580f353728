"""Benchmark: 10,000 items × 5 languages with their GOOD/BAD lists, annotator against Label Studio.

annotator's side is what a user runs, whole processes: ``annotator init --snapshot`` + ``annotator import
--prepopulate`` (the lists computed from a synthetic offline snapshot in the import's own run); the same with the
separate commands ``annotator import`` + ``annotator prepopulate`` is timed too, for the breakdown. Label Studio's
side is its HTTP API import of the same items carrying the same lists (read back from annotator's project), into a
fresh project, timed until every task is stored. Also timed: Label Studio importing the items without lists, the
peer of annotator's ``init`` + ``import``. The two tools run in alternation, several pairs; medians and ratios are
printed.

Label Studio runs from its own venv (``python -m venv /work/ls-venv && /work/ls-venv/bin/pip install label-studio``),
SQLite, a fresh data folder, started once (its start-up and migrations are not timed), with ``SENTRY_DSN=``
``FRONTEND_SENTRY_DSN=`` ``COLLECT_ANALYTICS=false`` so its start-up does not wait on the network.

Run: ``python benchmarks/bench_label_studio.py [--items 10000] [--pairs 5] [--label-studio PATH]``; exits 2 when
Label Studio is not installed at PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, NamedTuple

from synthetic import LANGS, write_inputs
from whole_process import compile_package

import annotator
from annotator.project import Project

DEFAULT_LABEL_STUDIO = "/work/ls-venv/bin/label-studio"
LABEL_CONFIG = '<View><Text name="sentence" value="$sentence"/></View>'
#: Label Studio's start-up with a fresh database runs all its migrations: minutes on a busy 2-core machine.
START_TIMEOUT = 1800.0


class Timed(NamedTuple):
    wall: float
    cpu: float


class AnnotatorRun(NamedTuple):
    init: Timed
    imported: Timed
    prepopulated: Timed
    #: A second fresh project: ``init``, then ``import --prepopulate``.
    init_again: Timed
    together: Timed

    @property
    def user_runs(self) -> Timed:
        """``init`` + ``import --prepopulate``: what a user runs."""
        return Timed(self.init_again.wall + self.together.wall, self.init_again.cpu + self.together.cpu)

    @property
    def import_only(self) -> Timed:
        return Timed(self.init.wall + self.imported.wall, self.init.cpu + self.imported.cpu)

    @property
    def total(self) -> Timed:
        parts = (self.init, self.imported, self.prepopulated)
        return Timed(sum(p.wall for p in parts), sum(p.cpu for p in parts))


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _annotator(data: Path, *args: str) -> Timed:
    cpu, wall = _children_cpu(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "annotator.cli", "--data", str(data), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return Timed(time.perf_counter() - wall, _children_cpu() - cpu)


def run_annotator(root: Path, items: Path, snapshot: Path) -> AnnotatorRun:
    """A fresh project: init with the snapshot, import the items, pre-populate every language; then another fresh
    project, its items imported and pre-populated in one run (``import --prepopulate``)."""
    data, again = (root / f"annotator-{secrets.token_hex(4)}" for _ in range(2))
    init = ("init", "--name", "bench", "--languages", ",".join(LANGS), "--snapshot", str(snapshot))
    return AnnotatorRun(
        _annotator(data, *init),
        _annotator(data, "import", str(items), "--corpus-license", "unknown"),
        _annotator(data, "prepopulate"),
        _annotator(again, *init),
        _annotator(again, "import", str(items), "--corpus-license", "unknown", "--prepopulate"),
    )


def tasks_with_lists(data: Path, items: Path) -> list[dict[str, Any]]:
    """Label Studio tasks: each item's fields, and per language its GOOD and BAD lists as annotator computed them."""
    project = Project.open(data)
    lists: dict[str, dict[str, list[str]]] = {}
    with project.db.read() as conn:
        for state in project.repo.iter_item_languages(conn):
            found = lists.setdefault(state.item_id, {})
            found[f"good_{state.lang}"] = [c.text for c in state.good]
            found[f"bad_{state.lang}"] = [c.text for c in state.bad]
    project.db.dispose()
    tasks = []
    with items.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            tasks.append({"data": {**row, **lists[row["id"]]}})
    return tasks


def _process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its descendants, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(times.get(p, 0.0) for p in tree)


class LabelStudio:
    """A Label Studio server on a free port with a fresh SQLite data folder, and its API."""

    def __init__(self, executable: Path, folder: Path) -> None:
        self.executable = executable
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        # a folder given again keeps its database, user and token (its migrations then take no time)
        token_file = folder / "bench-token.txt"
        if not token_file.is_file():
            token_file.write_text(secrets.token_hex(20))
        self.token = token_file.read_text().strip()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = folder / "label-studio.log"

    def start(self) -> None:
        env = {
            **os.environ,
            "SENTRY_DSN": "",
            "FRONTEND_SENTRY_DSN": "",
            "COLLECT_ANALYTICS": "false",
            "LABEL_STUDIO_BASE_DATA_DIR": str(self.folder),
            "PYTHONPATH": "",
        }
        command = [
            str(self.executable), "start", "--no-browser", "--port", str(self.port), "--internal-host", "127.0.0.1",
            "--data-dir", str(self.folder), "--database", str(self.folder / "label_studio.sqlite3"),
            "--username", "bench@example.org", "--password", secrets.token_hex(8), "--user-token", self.token,
            "--enable-legacy-api-token", "--log-level", "WARNING",
        ]  # fmt: skip
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, env=env, cwd=self.folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"Label Studio stopped while starting (exit {self.process.returncode}); see {self.log}")
            try:
                self.request("GET", "/api/projects/")
                return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(2)
        sys.exit(f"Label Studio did not answer within {START_TIMEOUT:.0f} s; see {self.log}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # its own session: the server and its workers
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def request(self, method: str, path: str, body: bytes | None = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            data=body,
            method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=3600) as answer:
            return json.loads(answer.read() or b"null")

    def import_tasks(self, title: str, body: bytes, count: int) -> Timed:
        """A new project, then the tasks POSTed to its import endpoint, timed until all ``count`` are stored."""
        settings = json.dumps({"title": title, "label_config": LABEL_CONFIG}).encode()
        project = self.request("POST", "/api/projects/", settings)
        assert self.process is not None
        cpu, wall = _process_tree_cpu(self.process.pid), time.perf_counter()
        self.request("POST", f"/api/projects/{project['id']}/import", body)
        while self.request("GET", f"/api/projects/{project['id']}/")["task_number"] < count:
            time.sleep(0.05)
        timed = Timed(time.perf_counter() - wall, _process_tree_cpu(self.process.pid) - cpu)
        self.request("DELETE", f"/api/projects/{project['id']}/")  # every import starts from the same database
        return timed

    def remove_projects(self) -> None:
        """Projects left in a data folder given again (the benchmark's own, from an earlier run)."""
        for project in self.request("GET", "/api/projects/?page_size=1000")["results"]:
            self.request("DELETE", f"/api/projects/{project['id']}/")


def _median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lemmas", type=int, default=2_000)
    parser.add_argument("--senses", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=5, help="annotator / Label Studio runs, alternating")
    parser.add_argument("--label-studio", type=Path, default=Path(DEFAULT_LABEL_STUDIO), help="its executable")
    parser.add_argument(
        "--studio-folder", type=Path, help="Label Studio's data folder, kept (default: a fresh one, removed after)"
    )
    args = parser.parse_args()
    if not args.label_studio.is_file():
        print(
            f"Label Studio is not installed at {args.label_studio}: python -m venv /work/ls-venv && "
            "/work/ls-venv/bin/pip install label-studio, or give --label-studio PATH",
            file=sys.stderr,
        )
        sys.exit(2)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items, snapshot = write_inputs(root, args.items, args.lemmas, args.senses)
        compile_package(Path(annotator.__file__).resolve().parents[1])  # as installed, like Label Studio
        print(f"items: {args.items} × {len(LANGS)} languages; lemmas: {args.lemmas}; senses per lemma: {args.senses}")
        warm = run_annotator(root, items, snapshot)  # warms the disk cache, and gives the lists Label Studio stores
        data = next(root.glob("annotator-*"))  # either project: both hold the same lists
        tasks = tasks_with_lists(data, items)
        listed = sum(len(v) for task in tasks for k, v in task["data"].items() if k.startswith(("good_", "bad_")))
        print(f"lists: {listed} candidates over {len(tasks) * len(LANGS)} item-languages (annotator's warm-up run)")
        with_lists = json.dumps(tasks, ensure_ascii=False).encode()
        plain = json.dumps([{"data": json.loads(line)} for line in items.open(encoding="utf-8")]).encode()
        studio = LabelStudio(args.label_studio, args.studio_folder or root / "label-studio")
        print(f"starting Label Studio ({args.label_studio}) on port {studio.port} …", flush=True)
        started = time.perf_counter()
        studio.start()
        print(f"Label Studio answered after {time.perf_counter() - started:.0f} s", flush=True)
        studio.remove_projects()
        runs: list[AnnotatorRun] = [warm]
        studio_lists: list[Timed] = []
        studio_plain: list[Timed] = []
        try:
            for pair in range(args.pairs):
                order = ("annotator", "label-studio") if pair % 2 == 0 else ("label-studio", "annotator")
                for side in order:
                    if side == "annotator":
                        run = run_annotator(root, items, snapshot)
                        runs.append(run)
                        shown = (
                            f"annotator {run.user_runs.wall:6.2f} s wall (separate commands {run.total.wall:.2f}, "
                            f"{run.prepopulated.wall:.2f} pre-population)"
                        )
                    else:
                        studio_lists.append(studio.import_tasks(f"lists {pair}", with_lists, len(tasks)))
                        studio_plain.append(studio.import_tasks(f"plain {pair}", plain, len(tasks)))
                        shown = f"Label Studio {studio_lists[-1].wall:6.2f} s wall with lists"
                    print(f"pair {pair + 1}: {shown}", flush=True)
        finally:
            studio.stop()
    runs = runs[1:]  # the warm-up run is not counted
    rows = [
        ("import + pre-population (with lists)", [r.user_runs for r in runs], studio_lists),
        ("  the same, three separate commands", [r.total for r in runs], studio_lists),
        ("import only (items, no lists)", [r.import_only for r in runs], studio_plain),
    ]
    print(f"\nmedians of {args.pairs} pairs, alternating (wall / CPU seconds)")
    for name, ours, theirs in rows:
        ours_wall, ours_cpu = _median([t.wall for t in ours]), _median([t.cpu for t in ours])
        their_wall, their_cpu = _median([t.wall for t in theirs]), _median([t.cpu for t in theirs])
        print(
            f"{name:38} annotator {ours_wall:6.2f} / {ours_cpu:6.2f}   Label Studio {their_wall:6.2f} / "
            f"{their_cpu:6.2f}   ratio annotator/LS wall {ours_wall / their_wall:.2f}, CPU {ours_cpu / their_cpu:.2f}"
        )
    steps = (("init", "init"), ("import", "imported"), ("prepopulate", "prepopulated"), ("import --prep.", "together"))
    for name, pick in steps:
        parts = [getattr(r, pick) for r in runs]
        wall, cpu = _median([p.wall for p in parts]), _median([p.cpu for p in parts])
        print(f"  annotator {name:12} {wall:6.2f} s wall, {cpu:6.2f} s CPU")


if __name__ == "__main__":
    main()
