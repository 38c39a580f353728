"""A throw-away PostgreSQL cluster for the tests: initdb in a temp folder, pg_ctl start on a free 127.0.0.1 port.

The tests run from the README's plain ``pytest`` command too, so the cluster is started by the test session
itself rather than by CI. PostgreSQL refuses to run as root: as root the server runs as the ``postgres`` user
(Debian's package creates it). ``ANNOTATOR_TEST_POSTGRES_URL`` points the tests at an existing server instead.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

SERVER_USER = "postgres"


def find_bin(name: str) -> str:
    """``initdb``/``pg_ctl`` are not on PATH in Debian's package: look in /usr/lib/postgresql/<version>/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(Path(p).parts[4]))
    if not candidates:
        raise RuntimeError(
            f"PostgreSQL's {name} was not found: install it (apt-get install -y postgresql) to run the tests "
            "on PostgreSQL, or set ANNOTATOR_TEST_POSTGRES_URL to a server's URL."
        )
    return candidates[-1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


PREFIX = "annotator-pg-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_orphans() -> None:
    """Stop clusters left by a test run that was killed (its owner process is gone), so none outlive their run."""
    for owner in Path(tempfile.gettempdir()).glob(f"{PREFIX}*/owner.pid"):
        try:
            pid = int(owner.read_text())
        except (OSError, ValueError):
            continue
        if not _alive(pid):
            Cluster.stop_folder(owner.parent)


class Cluster:
    """One running cluster; ``url(db)`` names a database on it (psycopg 3 driver).

    ``keep``: a folder that holds the cluster across runs (a benchmark seeds it once): created on the first run,
    started again on later ones, and stopped but not removed by ``stop``. It is not an orphan for ``stop_orphans``.
    """

    def __init__(self, keep: Path | None = None) -> None:
        stop_orphans()
        self.kept = keep is not None
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            self.root = keep.resolve()
        else:
            self.root = Path(tempfile.mkdtemp(prefix=PREFIX))
            (self.root / "owner.pid").write_text(str(os.getpid()))
        self.data = self.root / "data"
        self.port = free_port()
        self._as_root = os.geteuid() == 0
        if self._as_root:
            account = pwd.getpwnam(SERVER_USER)
            os.chown(self.root, account.pw_uid, account.pw_gid)
        if not (self.data / "PG_VERSION").exists():
            self._run(find_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                      "--no-locale", "--no-sync")  # fmt: skip
        options = f"-h 127.0.0.1 -p {self.port} -k {self.root} -F -c max_connections=200"
        self.options = options
        self._run(find_bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")  # fmt: skip

    def _run(self, *command: str) -> None:
        _run(*command)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def stop_server(self) -> None:
        """Shut the server down (fast: open connections are ended), keeping the cluster for ``start_server``."""
        self._run(find_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def start_server(self) -> None:
        """Start the server again after ``stop_server``, on the same port with the same options."""
        self._run(find_bin("pg_ctl"), "-D", str(self.data), "-o", self.options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")  # fmt: skip

    def restart(self) -> None:
        """A server restart, as an operator or an upgrade does it: every open connection is ended."""
        self._run(find_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-l", str(self.root / "log"),
                  "-w", "-t", "60", "restart")  # fmt: skip

    def stop(self) -> None:
        if self.kept:
            _run(find_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        else:
            Cluster.stop_folder(self.root)

    @staticmethod
    def stop_folder(root: Path) -> None:
        try:
            if (root / "data" / "postmaster.pid").exists():
                _run(find_bin("pg_ctl"), "-D", str(root / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(root, ignore_errors=True)


def _run(*command: str) -> None:
    """Run a PostgreSQL tool; as root, as the ``postgres`` user (the server refuses to run as root)."""
    prefix = ["runuser", "-u", SERVER_USER, "--"] if os.geteuid() == 0 else []
    result = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")


def create_database(server: str, prefix: str) -> str:
    """A new, uniquely named database on ``server`` (a maintenance database's URL); its URL with the password."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        return admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        admin.dispose()


@contextmanager
def scratch_database(server: str | None, prefix: str) -> Iterator[str]:
    """A new database on ``server`` (on a new cluster when None); dropped, and that cluster stopped, afterwards.

    For the benchmarks, which measure on PostgreSQL without leaving a database or a server behind.
    """
    cluster = Cluster() if server is None else None
    admin_url = cluster.url() if cluster is not None else str(server)
    try:
        url = create_database(admin_url, prefix)
        try:
            yield url
        finally:
            admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
            admin.dispose()
    finally:
        if cluster is not None:
            cluster.stop()
