"""Shared test fixtures (the helpers they use are plain modules in tests/support, on the path by pyproject.toml).

Engines: a test module marked ``pytest.mark.both_engines`` runs each test that uses the ``engine`` fixture (the
``project`` fixture does) once on SQLite and once on PostgreSQL — a fresh database on a throw-away cluster that
the session starts itself (tests/support/pg_cluster.py), or on ``ANNOTATOR_TEST_POSTGRES_URL``'s server.

Projects: a project a fixture hands out (the empty ``project``, ``wn_project``, the demo) is built once per session
and engine and copied for each test (``ProjectTemplates``): a copied SQLite folder, or ``CREATE DATABASE ...
TEMPLATE`` on PostgreSQL, costs a fraction of the migrations and imports it replaces.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pg_cluster import Cluster
from project_helpers import build_demo
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from suggestion_data import ENGLISH, ITALIAN, ITALIAN_NOT_ALLOWED, ITEMS, other

from annotator.domain.model import Role, User
from annotator.lexicon.wordnet import add_lexicons
from annotator.private_files import make_private_folder
from annotator.project import DATABASE_FILE, LexiconSettings, Project, ProjectSettings, database_url
from annotator.services.accounts import add_user
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate
from annotator.store.database import Database, sqlite_url


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[str, list[dict]], Path]:
    def write(name: str, rows: list[dict]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        return path

    return write


ENGINES = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    """Session- and module-scoped fixtures too must never see a developer's own database."""
    os.environ.pop("ANNOTATOR_DATABASE_URL", None)
    _scan_streamlit_components_once()


def _scan_streamlit_components_once() -> None:
    """Each new AppTest scans the metadata of every installed distribution for Streamlit component manifests, which
    ``streamlit run`` does once per server process; the installed packages do not change during a test run, so the
    test process scans once too (the scan was half of an AppTest flow's time)."""
    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)

    def scan_once(_max_workers: int | None = None) -> list[tuple[manifest_scanner.ComponentManifest, Path]]:
        return list(scan())

    manifest_scanner.scan_component_manifests = scan_once


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "engine" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_engines"):
        metafunc.parametrize("engine", ENGINES, indirect=True)


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The analysers' dictionary cache (and the CLI's, in child processes) goes to a session folder, never into the
    developer's ~/.cache: built once per session, so the tests also exercise the cold path."""
    saved = os.environ.get("ANNOTATOR_CACHE_DIR")
    os.environ["ANNOTATOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("annotator-cache"))
    yield
    if saved is None:
        os.environ.pop("ANNOTATOR_CACHE_DIR", None)
    else:
        os.environ["ANNOTATOR_CACHE_DIR"] = saved


@pytest.fixture(autouse=True)
def _no_outside_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's ANNOTATOR_DATABASE_URL never leaks into a test; the ``engine`` fixture sets its own."""
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database; a throw-away cluster unless one is given."""
    given = os.environ.get("ANNOTATOR_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    cluster = Cluster()
    try:
        yield cluster.url()
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A cluster of the requesting module's own, for tests that stop and restart it without disturbing others."""
    own = Cluster()
    try:
        yield own
    finally:
        own.stop()


@pytest.fixture
def postgres_database(postgres_server: str) -> Iterator[str]:
    """A new, empty PostgreSQL database for one test (dropped afterwards)."""
    name = f"annotator_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.url.set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which database the test's projects use: SQLite in the data folder, or a fresh PostgreSQL database."""
    name = getattr(request, "param", "sqlite")
    if name == "postgresql":
        if "copy_project" in request.fixturenames:  # its copy becomes the test's database: no empty one to make
            server = make_url(request.getfixturevalue("postgres_server"))
            # until the copy, a database that does not exist: a use before it fails instead of falling back to SQLite
            url = server.set(database=f"not_copied_yet_{uuid.uuid4().hex[:12]}").render_as_string(hide_password=False)
        else:
            url = request.getfixturevalue("postgres_database")
        monkeypatch.setenv("ANNOTATOR_DATABASE_URL", url)
    return name


def _admin(server_url: str):  # type: ignore[no-untyped-def]
    return create_engine(server_url, isolation_level="AUTOCOMMIT")


class ProjectTemplates:
    """Projects built once per session (per engine) and handed out as fresh copies.

    SQLite: the data folder is copied. PostgreSQL: ``CREATE DATABASE ... TEMPLATE`` copies the built database.
    """

    def __init__(self, factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> None:
        self._factory = factory
        self._request = request
        self._built: dict[tuple[str, str], tuple[Path, str | None]] = {}

    def _server(self) -> str:
        return self._request.getfixturevalue("postgres_server")

    def _build(self, key: str, engine: str, build: Callable[[Path], None]) -> tuple[Path, str | None]:
        folder = self._factory.mktemp(f"template-{key}-{engine}") / "data"
        url = None
        saved = os.environ.pop("ANNOTATOR_DATABASE_URL", None)
        try:
            if engine == "postgresql":
                name = f"template_{key.replace('-', '_')}_{uuid.uuid4().hex[:8]}"
                admin = _admin(self._server())
                with admin.connect() as conn:
                    conn.execute(text(f'CREATE DATABASE "{name}"'))
                url = admin.url.set(database=name).render_as_string(hide_password=False)
                admin.dispose()
                os.environ["ANNOTATOR_DATABASE_URL"] = url
            build(folder)
        finally:
            os.environ.pop("ANNOTATOR_DATABASE_URL", None)
            if saved is not None:
                os.environ["ANNOTATOR_DATABASE_URL"] = saved
        return folder, url

    def copy(self, key: str, engine: str, build: Callable[[Path], None], dest: Path) -> str | None:
        """Copy the project ``build`` makes into the folder ``dest``; returns the copy's database URL (PostgreSQL)."""
        if (key, engine) not in self._built:
            self._built[key, engine] = self._build(key, engine, build)
        folder, template_url = self._built[key, engine]
        shutil.copytree(folder, dest) if folder.exists() else dest.mkdir(parents=True)
        if template_url is None:
            return None
        template = make_url(template_url).database
        name = f"annotator_test_{uuid.uuid4().hex[:12]}"
        admin = _admin(self._server())
        with admin.connect() as conn:  # a template must have no open connection (the builder's pool)
            conn.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :d"), {"d": template}
            )
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
        admin.dispose()
        return make_url(template_url).set(database=name).render_as_string(hide_password=False)


def _drop(server_url: str, name: str) -> None:
    admin = _admin(server_url)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def shared_database(project_templates: ProjectTemplates, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A copy of the demo project's PostgreSQL database, named by ANNOTATOR_DATABASE_URL: what two servers share."""
    url = project_templates.copy("demo", "postgresql", build_demo, tmp_path / "template-copy")
    assert url is not None
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", url)
    return url


@pytest.fixture
def app_demo(copy_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """A fresh copy of the demo project on the test's engine, named by ANNOTATOR_DATA as ``annotator serve`` would."""
    data = copy_project("demo", build_demo, tmp_path / "data")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    return data


@pytest.fixture(scope="session")
def project_templates(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> ProjectTemplates:
    return ProjectTemplates(tmp_path_factory, request)


@pytest.fixture(scope="session")
def copy_demo(project_templates: ProjectTemplates) -> Callable[[Path], Path]:
    """``copy_demo(folder)``: a fresh copy of the demo project (SQLite) in ``folder``, for module-scoped fixtures."""

    def copy(folder: Path) -> Path:
        project_templates.copy("demo", "sqlite", build_demo, folder)
        return folder

    return copy


@pytest.fixture
def copy_project(
    engine: str, project_templates: ProjectTemplates, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Callable[[str, Callable[[Path], None], Path], Path]]:
    """``copy_project(key, build, dest)``: a fresh copy of the project ``build(folder)`` makes, on the test's engine.

    On PostgreSQL the copy's database becomes ANNOTATOR_DATABASE_URL for the rest of the test (dropped after).
    """
    made: list[str] = []

    def copy(key: str, build: Callable[[Path], None], dest: Path) -> Path:
        url = project_templates.copy(key, engine, build, dest)
        if url is not None:
            made.append(url)
            monkeypatch.setenv("ANNOTATOR_DATABASE_URL", url)
        return dest

    yield copy
    for url in made:
        _drop(request.getfixturevalue("postgres_server"), str(make_url(url).database))


def build_schema(folder: Path) -> None:
    """A database at the newest schema revision holding no project yet: what ``Project.open(create=True)`` migrates
    a new database to before it claims it (copied per test, so each test skips the migrations)."""
    url = database_url(folder)
    if url is None:
        make_private_folder(folder)
        url = sqlite_url(folder / DATABASE_FILE)
    database = Database(url)
    database.create_or_migrate()
    database.dispose()


@pytest.fixture
def project(tmp_path: Path, engine: str, copy_project) -> Project:  # type: ignore[no-untyped-def]
    """An empty project with the five DiBiMT languages and no lexicon configured (on the test's engine).

    Created by ``Project.open(create=True)`` on a copy of a migrated database, so it gets its own project id.
    """
    data = tmp_path / "data"
    copy_project("schema", build_schema, data if engine == "sqlite" else tmp_path / "schema-copy")
    project = Project.open(data, create=True)
    project.save_settings(ProjectSettings(name="test", lexicon=LexiconSettings(provider="snapshot")))
    return project


@pytest.fixture
def lead(project: Project) -> User:
    return add_user(project, "lena", Role.LEAD, (), "lead-password")


@pytest.fixture
def translator_it(project: Project, lead: User) -> User:
    """A translator for IT; the lead comes first (a project's first account must be a lead)."""
    return add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")


def build_wn_project(folder: Path) -> None:
    """The wordnet project of ``wn_project``, built in ``folder`` (the LMF files and items go to a scratch folder)."""
    scratch = folder.parent / "wn-sources"
    scratch.mkdir()
    files = {"sg-en.xml": ENGLISH, "sg-it.xml": other("sg-it", ITALIAN),
             "sg-it2.xml": other("sg-it2", ITALIAN_NOT_ALLOWED)}  # fmt: skip
    for name, content in files.items():
        (scratch / name).write_text(content, encoding="utf-8")
    project = Project.open(folder, create=True)
    project.save_settings(ProjectSettings(name="test", lexicon=LexiconSettings(provider="snapshot")))
    add_lexicons(project.wordnet_folder, [str(scratch / name) for name in files])
    project.save_settings(
        ProjectSettings(
            name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet"), allowed_sources={"IT": ["sg-it"]}
        )
    )
    items = scratch / "items.jsonl"
    items.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ITEMS), encoding="utf-8")
    import_items(project, items)
    add_user(project, "lena", Role.LEAD, (), "lena-password-long")  # the first account is a lead's
    prepopulate(project)
    project.db.dispose()


@pytest.fixture
def wn_project(tmp_path: Path, engine: str, copy_project) -> Project:  # type: ignore[no-untyped-def]
    """A wordnet project in Italian: σ (a drink of liquor) has no word in the allowed lexicon ``sg-it``, one in
    ``sg-it2`` (installed, not allowed), and related synsets (hypernym, derivation) that have words.

    Built once per session and engine, copied for each test.
    """
    return Project.open(copy_project("wordnet", build_wn_project, tmp_path / "data"))
