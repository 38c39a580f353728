"""The import structure (issue 24): no module cycles anywhere in ``annotator``, and pages never reach the store.

``lint-imports`` checks the layers and the cycles between sibling packages (pyproject.toml); this checks the
whole module graph with grimp, so a cycle through a top-level module (``annotator.project``, ``annotator.context``)
or across packages is named in full, and it runs with the tests.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

import annotator

PACKAGE = Path(annotator.__file__).resolve().parent


def module_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """One shortest cycle through each direct import that closes one, each written ``a -> b -> ... -> a``.

    An import ``a -> b`` is on a cycle exactly when ``b`` reaches ``a`` again; a cycle found through several of
    its imports is listed once.
    """
    cycles: dict[frozenset[str], list[str]] = {}
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycle = [importer, *back]
                cycles.setdefault(frozenset(cycle), cycle)
    return list(cycles.values())


def test_the_cycle_finder_names_a_planted_cycle() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "q.c"), ("q.c", "p.a"), ("p.a", "q.d")]:
        graph.add_import(importer=importer, imported=imported)
    assert module_cycles(graph) == [["p.a", "p.b", "q.c", "p.a"]]


def test_no_module_cycles_in_annotator() -> None:
    graph = grimp.build_graph("annotator", cache_dir=None)  # no cache folder written into the checkout
    assert "annotator.project" in graph.modules and "annotator.context" in graph.modules
    cycles = module_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_pages_never_touch_the_repository_or_database() -> None:
    """Pages call services and read-model functions; ``project.repo``/``project.db`` stay below them."""
    reached = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno} .{node.attr}"
        for path in sorted((PACKAGE / "app").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in {"repo", "db"}
    ]
    assert not reached, "pages reaching the store directly:\n" + "\n".join(reached)
