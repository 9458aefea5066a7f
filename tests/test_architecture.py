"""The package's shape (issue 35, README "Architecture"): each sub-package one floor of the way a
request travels, imports pointing only down, and rooms small enough to read.

Measured here from the source with :mod:`ast`, independently of the code: module lengths in
lines, function lengths from the ``def`` line to the last line (docstring included), and every
``import`` of an ``inflect`` module (function-level imports included; ``if TYPE_CHECKING:``
blocks, which never run, excluded).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "inflect"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

#: The floors, bottom first: a sub-package may import only from floors below its own.
FLOORS = [
    {"inflect", "defaults", "_resources", "_moved"},
    {"sparse", "text", "io"},
    {"corpora", "lexicon", "nn"},
    {"decoding"},
    {"inference", "training"},
    {"evaluation"},
    {"render"},
    {"cli"},
    {"__main__"},
]
FLOOR = {name: level for level, names in enumerate(FLOORS) for name in names}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """The ``inflect`` modules that ``path`` imports anywhere but under ``if TYPE_CHECKING``."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
            found.update(n for n in names if n in MODULES)  # `from package import module`
            if any(n not in MODULES for n in names):  # a name defined in the module itself
                found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in MODULES}


def _floor_of(module: str) -> str:
    """The sub-package of ``module``; ``inflect`` for the package's top-level modules."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and MODULES[module].name == "__init__.py"):
        return parts[1]
    return parts[1] if parts[1:] == ["__main__"] else "inflect"


def test_every_sub_package_has_a_floor():
    assert {_floor_of(m) for m in MODULES} <= set(FLOOR)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_is_at_most_600_lines(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"{module}: {lines} lines"


def test_no_function_is_over_80_lines():
    long = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{module}:{node.lineno} {node.name} ({length} lines)")
    assert not long, "\n".join(long)


def test_imports_point_down():
    upward = []
    for module, path in MODULES.items():
        here = _floor_of(module)
        for target in _imports(path):
            there = _floor_of(target)
            if there != here and FLOOR[there] >= FLOOR[here]:
                upward.append(f"{module} imports {target} ({here} -> {there})")
    assert not upward, "\n".join(sorted(upward))


def test_no_import_cycle_between_modules():
    graph = defaultdict(set)
    for module, path in MODULES.items():
        # a package's __init__ is imported by its modules' import; its own imports count too
        graph[module] |= _imports(path) - {module}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def connect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(MODULES):
        if v not in index:
            connect(v)
    assert not cycles, cycles
