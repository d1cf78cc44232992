"""No import cycles in the package, and no imports hidden inside functions to dodge one.

The graph is read from the source (``ast``), not from a running interpreter, so a cycle that
only shows when one module happens to be imported first is still found. Module-level and
function-level imports both count; imports under ``if TYPE_CHECKING:`` never run, so they do
not. An import inside a function of a ``tankref`` module is refused unless it is listed in
``LAZY_IMPORTERS`` with the reason it has to be lazy (plug-in loading, say): the usual reason
for one is a cycle, and a cycle dodged is still a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "tankref"
ROOT = Path(__file__).resolve().parents[2] / "server"

# Modules whose imports inside functions are deliberate, and why. The cycle check still counts
# those imports, so a lazy import here cannot hide a cycle either.
LAZY_IMPORTERS: dict[str, str] = {
    "tankref.cli": "each command loads only what it runs (no server stack for `tankref cards`)",
    "tankref.server.stores": "the PostgreSQL store and its driver load only when a database "
    "URL asks for them (an SQLite referee starts without psycopg)",
}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    in_function: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(
    module: str, is_package: bool, node: ast.ImportFrom | ast.Import, known: set[str]
) -> Iterator[str]:
    """The tankref modules an import statement loads (``from a import b``: ``a.b`` when that
    is a module, else ``a``)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                yield alias.name
        return
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[: len(package) - (node.level - 1)]
        base = ".".join([*anchor, *([base] if base else [])])
    if base != PACKAGE and not base.startswith(PACKAGE + "."):
        return
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        yield sub if sub in known else base


def _imports(module: str, path: Path, known: set[str]) -> Iterator[Import]:
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"

    def walk(node: ast.AST, in_function: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:  # the else branch does run
                    yield from walk(other, in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in _resolve(module, is_package, child, known):
                    yield Import(module, target, child.lineno, in_function)
                continue
            nested = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(child, in_function or nested)

    yield from walk(tree, False)


def _graph() -> tuple[dict[str, set[str]], list[Import]]:
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    found: list[Import] = []
    for module, path in modules.items():
        for imp in _imports(module, path, known):
            found.append(imp)
            if imp.imported in known and imp.imported != module:
                graph[module].add(imp.imported)
    return graph, found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_graph_sees_the_package() -> None:
    """The check reads real modules and real edges (else a broken reader passes vacuously)."""
    graph, found = _graph()
    assert len(graph) > 60
    assert "tankref.core.timeline" in graph["tankref.server.referee"]
    assert "tankref.core.dice" in graph["tankref.core.ruleset"]
    assert any(i.in_function for i in found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    """Tarjan over a toy graph: a→b→c→a is one cycle, d (imported by a) is not in it."""
    toy = {"a": {"b", "d"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert _cycles(toy) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    """Module-level and function-level imports together form no cycle."""
    graph, _ = _graph()
    cycles = _cycles(graph)
    assert cycles == [], "\n".join(" <-> ".join(c) for c in cycles)


def test_no_function_level_imports_but_the_listed_lazy_ones() -> None:
    """An import of a tankref module inside a function is allowed only with a reason."""
    _, found = _graph()
    lazy = sorted(
        {
            f"{i.importer}:{i.line} imports {i.imported}"
            for i in found
            if i.in_function and i.importer not in LAZY_IMPORTERS
        }
    )
    assert lazy == [], "\n".join(lazy)


def test_every_listed_lazy_import_still_exists() -> None:
    """A lazy import removed from the code leaves the allow-list too (no stale excuses)."""
    _, found = _graph()
    present = {i.importer for i in found if i.in_function}
    assert sorted(set(LAZY_IMPORTERS) - present) == []
