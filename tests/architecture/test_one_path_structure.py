"""One path, checked on the code's structure (its syntax trees), not on fixed caller names: only the curation service
writes a user's change to item-languages and copies, and the app changes curation through one runner,
``actions.run``. Each check is also run on a synthetic violation, which it must report."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from source_trees import write_source as write

PACKAGE = Path(__file__).resolve().parents[2] / "annotator"

#: The store's writes of curation state: item-language rows with their history, copies, assignments closed.
WRITERS = {
    "save_item_language", "save_item_languages", "prepare_saves", "prepare_list_saves", "apply_saves", "save_copy",
    "set_adjudicated",
}  # fmt: skip
#: Writers a system pipeline (import, pre-population) may call, as the system user: a state, never a copy.
SYSTEM_WRITERS = {"save_item_language", "save_item_languages", "prepare_saves", "prepare_list_saves", "apply_saves"}
#: The writers that encode saves for ``apply_saves``.
PREPARERS = {"prepare_saves", "prepare_list_saves"}
#: The one module a user's change of curation is written from.
CURATION_SERVICE = "services/curation.py"


def modules(root: Path) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        yield path.relative_to(root).as_posix(), ast.parse(path.read_text(encoding="utf-8"), str(path))


def called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def names_in(call: ast.Call) -> set[str]:
    return {node.id for arg in (*call.args, *(k.value for k in call.keywords)) for node in ast.walk(arg)
            if isinstance(node, ast.Name)}  # fmt: skip


def writes_outside_the_service(root: Path) -> list[str]:
    """Every call of a store writer outside the store that is not the curation service's: allowed only to a system
    pipeline writing as ``SYSTEM_USER`` (``apply_saves`` where that module prepares its saves as the system)."""
    found = []
    for name, tree in modules(root):
        if name.startswith("store/") or name == CURATION_SERVICE:
            continue
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and called_name(node) in WRITERS]
        as_system = [c for c in calls if "SYSTEM_USER" in names_in(c)]
        for call in calls:
            writer = called_name(call)
            system = writer in SYSTEM_WRITERS and (
                call in as_system or (writer == "apply_saves" and any(called_name(c) in PREPARERS for c in as_system))
            )
            if not system:
                found.append(f"{name}:{call.lineno} {writer}")
    return found


def store_defines_every_writer(root: Path) -> set[str]:
    """The writers the store defines (a renamed one must be renamed here too, or this check would go blind)."""
    return {node.name for _name, tree in modules(root / "store") for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name in WRITERS}  # fmt: skip


def change_methods(root: Path) -> set[str]:
    """The service methods that change curation: ``handle`` and every method whose body calls ``handle``."""
    methods = {"handle"}
    for name, tree in modules(root / "services"):
        del name
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(call, ast.Call) and called_name(call) == "handle" for call in ast.walk(node)
            ):
                methods.add(node.name)
    return methods


#: Refusals of a change: a page that catches these says a change's outcome itself, i.e. is a runner of its own.
CHANGE_REFUSALS = {"ConflictError", "CandidateError", "DatabaseUnavailableError"}


#: Method names the standard types share with the services (``Path.resolve()``, ``set.discard(x)``): such a call is a
#: change only with the arguments a change takes (an item-language, a version…), never with none or one.
COMMON = set(dir(Path)) | set(dir(set)) | set(dir(dict)) | set(dir(list)) | set(dir(str))


def is_change(call: ast.Call, changes: set[str]) -> bool:
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in changes:
        return False
    return call.func.attr not in COMMON or len(call.args) + len(call.keywords) >= 2


def runners_besides_actions_run(app: Path, changes: set[str]) -> list[str]:
    """Every place in the app that calls a change method outside ``actions.run``, and every page function that
    catches a change's refusals (a runner of its own)."""
    found = []
    for name, tree in modules(app):
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
            if name == "actions.py" and function.name == "run":
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and is_change(node, changes):
                    found.append(f"{name}:{node.lineno} {function.name} calls .{node.func.attr}()")
                if name.startswith("pages/") and isinstance(node, ast.ExceptHandler) and node.type is not None:
                    caught = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                    if caught & CHANGE_REFUSALS:
                        found.append(f"{name}:{node.lineno} {function.name} catches {sorted(caught & CHANGE_REFUSALS)}")
    return sorted(set(found))


# --- the project -------------------------------------------------------------------------------------------------


def test_only_the_curation_service_writes_a_users_change_to_item_languages_and_copies() -> None:
    assert store_defines_every_writer(PACKAGE) == WRITERS
    assert writes_outside_the_service(PACKAGE) == []


def test_the_app_changes_curation_only_through_actions_run() -> None:
    changes = change_methods(PACKAGE)
    assert {"handle", "adjudicate", "mark_done", "reopen"} <= changes  # what the check looks for
    assert runners_besides_actions_run(PACKAGE / "app", changes) == []


# --- the checks report a synthetic violation ----------------------------------------------------------------------


def test_a_service_saving_item_languages_by_itself_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "store/item_languages.py", "def save_item_language(conn, new, version, user, action): ...\n")
    write(tmp_path, CURATION_SERVICE, "def handle(repo, conn, new, user):\n"
                                      "    repo.save_item_language(conn, new, 1, user.name, 'add')\n")  # fmt: skip
    system = "def reimport(repo, conn, new):\n    repo.save_item_language(conn, new, 1, SYSTEM_USER, 'item_changed')\n"
    write(tmp_path, "services/importing.py", system)
    assert writes_outside_the_service(tmp_path) == []
    write(tmp_path, "services/double_curation.py", "def adjudicate(self, conn, new):\n"
          "    self.project.repo.save_item_language(conn, new, 1, self.user.name, 'adjudicate')\n"
          "    store.set_adjudicated(conn, 'i', 'IT', self.user.name, 'now')\n")  # fmt: skip
    assert writes_outside_the_service(tmp_path) == [
        "services/double_curation.py:2 save_item_language",
        "services/double_curation.py:3 set_adjudicated",
    ]


def test_a_save_of_lists_alone_is_a_system_writer_only(tmp_path: Path) -> None:
    write(tmp_path, "store/item_languages.py", "def prepare_list_saves(saves, user, action, prepopulated): ...\n")
    write(tmp_path, "services/prepopulate.py", "def flush(repo, conn, saves):\n"
          "    repo.apply_saves(conn, repo.prepare_list_saves(saves, SYSTEM_USER, 'prepopulate', True))\n")  # fmt: skip
    assert writes_outside_the_service(tmp_path) == []
    write(tmp_path, "services/bulk.py", "def flush(repo, conn, saves, user):\n"
          "    repo.apply_saves(conn, repo.prepare_list_saves(saves, user.name, 'bulk', True))\n")  # fmt: skip
    found = writes_outside_the_service(tmp_path)
    assert found == ["services/bulk.py:2 apply_saves", "services/bulk.py:2 prepare_list_saves"]


def test_a_page_with_a_runner_of_its_own_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "services/double_curation.py", "class DoubleCurationService:\n"
          "    def adjudicate(self, item_id, lang, good, bad, version):\n"
          "        return self.curation.handle(item_id, lang, good, bad, version)\n")  # fmt: skip
    write(tmp_path, "app/actions.py", "def run(address, command, version):\n"
                                      "    return service().handle(address, command, version)\n")  # fmt: skip
    changes = change_methods(tmp_path)
    assert changes == {"handle", "adjudicate"}
    assert runners_besides_actions_run(tmp_path / "app", changes) == []
    write(tmp_path, "app/pages/agreement.py", "def run(call, success):\n"
          "    try:\n"
          "        call()\n"
          "    except (ConflictError, UserError) as error:\n"
          "        flash('error', str(error))\n"
          "def _save(item_id, lang, version):\n"
          "    run(lambda: service().adjudicate(item_id, lang, [], [], version), 'done')\n")  # fmt: skip
    assert runners_besides_actions_run(tmp_path / "app", changes) == [
        "pages/agreement.py:4 run catches ['ConflictError']",
        "pages/agreement.py:7 _save calls .adjudicate()",
    ]
