"""One style of store access, checked on the code's syntax trees: outside ``annotator/store`` every read and write
of a table goes through a ``Repository`` (``repo.method(conn, …)``), so code there imports from the store only
classes — row types, ``Repository`` — and ``store.database`` (``Database`` and its transaction helpers), never
another store module, a store function or a ``…Records`` mixin.
Each check is also run on a synthetic violation, which it must report."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from source_trees import write_source as write

from annotator.store.repository import Repository

PACKAGE = Path(__file__).resolve().parents[2] / "annotator"
STORE = "annotator.store"
#: The module of ``Database`` and its transaction helpers (``committed_writes``, ``sqlite_url``): all of it allowed.
DATABASE = "annotator.store.database"

#: The stored form's pure encoders (no table read or written): pre-population writes its lists in the stored form.
STORED_FORM_ENCODERS = {
    "annotator.store.item_languages": {"candidates_to_json"},
    "annotator.store.prepopulation": {"lexicon_list_json", "one_synset_candidates_json"},
    "annotator.store.rows": {"dumps"},
}


def modules(root: Path) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        yield path.relative_to(root).as_posix(), ast.parse(path.read_text(encoding="utf-8"), str(path))


def store_classes(root: Path) -> dict[str, set[str]]:
    """Per store module (dotted name), the classes it defines or re-exports from another store module."""
    trees = {
        f"{STORE}.{name[: -len('.py')].replace('/', '.')}".removesuffix(".__init__"): tree
        for name, tree in modules(root / "store")
        if not name.startswith("migrations/")
    }
    classes = {
        module: {node.name for node in tree.body if isinstance(node, ast.ClassDef)} for module, tree in trees.items()
    }
    for _round in range(3):  # a re-export of a re-export, at most
        for module, tree in trees.items():
            for node in tree.body:
                if isinstance(node, ast.ImportFrom) and node.module in classes:
                    classes[module] |= {a.asname or a.name for a in node.names if a.name in classes[node.module]}
    return classes


def store_access_outside(root: Path, allowed: dict[str, str]) -> list[str]:
    """Every import outside ``store/`` (but ``allowed`` files) that takes from the store more than a class, or a
    ``…Records`` mixin (the repository's parts: callers use the composed ``Repository``)."""
    classes = store_classes(root)
    found = []
    for name, tree in modules(root):
        if name.startswith("store/") or name in allowed:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [f"{name}:{node.lineno} import {a.name}" for a in node.names if a.name.startswith(STORE)]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(STORE) and node.module != DATABASE:
                for alias in node.names:
                    a_class = alias.name in classes.get(node.module or "", set())
                    an_encoder = alias.name in STORED_FORM_ENCODERS.get(node.module or "", set())
                    if an_encoder:
                        continue
                    if not a_class or (alias.name.endswith("Records") and alias.name != "Repository"):
                        found.append(f"{name}:{node.lineno} {node.module}.{alias.name}")
    return sorted(found)


# --- the project -------------------------------------------------------------------------------------------------


def test_outside_the_store_code_imports_only_its_classes() -> None:
    assert store_access_outside(PACKAGE, {}) == []


def test_each_repository_method_comes_from_one_records_class() -> None:
    """``Repository`` composes the per-aggregate classes; a name defined twice would silently hide one of them."""
    owners: dict[str, list[str]] = {}
    for part in Repository.__mro__[1:]:
        if part is object:
            continue
        for attribute in vars(part):
            if not attribute.startswith("__"):
                owners.setdefault(attribute, []).append(part.__name__)
    assert {name: found for name, found in owners.items() if len(found) > 1} == {}
    assert len(Repository.__mro__) > 10 and "get_user" in owners and "insert_job" in owners  # what it looks at


# --- the check reports a synthetic violation ----------------------------------------------------------------------


def test_a_store_module_function_or_mixin_imported_outside_the_store_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "store/jobs.py", "class Job: ...\nclass JobRecords: ...\ndef get_job(conn, job_id): ...\n")
    repository = "from annotator.store.jobs import Job, JobRecords\nfrom annotator.clock import utc_now\n"
    write(tmp_path, "store/repository.py", repository + "class Repository(JobRecords): ...\n")
    write(tmp_path, "store/other.py", "from annotator.store import jobs\n")  # inside the store: anything goes
    fine = "from annotator.store.jobs import Job\nfrom annotator.store.repository import Job as J, Repository\n"
    write(tmp_path, "services/fine.py", fine + "from annotator.store.database import Database, committed_writes\n")
    assert store_access_outside(tmp_path, {}) == []
    write(tmp_path, "services/jobs.py", "from annotator.store import jobs as store\n"
                                        "def run(conn):\n"
                                        "    from annotator.store.jobs import get_job\n"
                                        "    import annotator.store.jobs\n"
                                        "    from annotator.store.repository import JobRecords, utc_now\n")  # fmt: skip
    assert store_access_outside(tmp_path, {}) == [
        "services/jobs.py:1 annotator.store.jobs",
        "services/jobs.py:3 annotator.store.jobs.get_job",
        "services/jobs.py:4 import annotator.store.jobs",
        "services/jobs.py:5 annotator.store.repository.JobRecords",
        "services/jobs.py:5 annotator.store.repository.utc_now",
    ]
    assert store_access_outside(tmp_path, {"services/jobs.py": "not yet converted"}) == []
