"""The package's shape (README "Architecture", ``../shared/DESIGN.md``): each sub-package one floor
of the way a request travels, imports pointing only down, ``inflect.render`` drawing only text and
the record types of inference and evaluation, and rooms small enough to read, in the package and
in ``recipes/``.

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
#: The end-to-end recipes: scripts on the public API, held to the package's limits on length.
RECIPES = PACKAGE.parent / "recipes"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

#: The floors, bottom first: a sub-package may import only from floors below its own.
FLOORS = [
    {"inflect", "defaults", "_resources", "_moved"},
    {"sparse", "text", "io"},
    {"corpora", "nn"},
    {"lexicon", "decoding"},  # lexicon: UniMorph is fetched with corpora's manifests
    {"inference", "training"},
    {"evaluation"},
    {"render"},
    {"serve", "integrations"},  # integrations: adapters to other libraries' pipelines (spaCy)
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


def _long_functions(paths: dict[str, Path]) -> list[str]:
    """``NAME:LINE function (N lines)`` for each function of ``paths`` over the limit."""
    long = []
    for module, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{module}:{node.lineno} {node.name} ({length} lines)")
    return long


def test_no_function_is_over_80_lines():
    long = _long_functions(MODULES)
    assert not long, "\n".join(long)


RECIPE_FILES = {p.relative_to(RECIPES).as_posix(): p for p in sorted(RECIPES.rglob("*.py"))}


@pytest.mark.parametrize("recipe", sorted(RECIPE_FILES))
def test_a_recipe_module_is_at_most_600_lines(recipe):
    lines = RECIPE_FILES[recipe].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"recipes/{recipe}: {lines} lines"


def test_no_recipe_function_is_over_80_lines():
    assert "sigmorphon2018/ship.py" in RECIPE_FILES  # the rule sees the recipes
    long = _long_functions(RECIPE_FILES)
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


#: What ``inflect.render`` may import at run time (``../shared/DESIGN.md``, "Rooms": "text, and the
#: record types it draws (inference, evaluation); never cli"): those sub-packages, itself, and the
#: package's one place of defaults. Not corpora, lexicon, nn, decoding, io or training: what a
#: renderer needs of them comes in the records it draws (annotations under ``TYPE_CHECKING`` are
#: free).
RENDER_MAY_IMPORT = ("inflect.render", "inflect.text", "inflect.inference", "inflect.evaluation",
                     "inflect.defaults")


def _inside(module: str, roots: tuple[str, ...]) -> bool:
    return any(module == r or module.startswith(f"{r}.") for r in roots)


def test_render_imports_only_text_and_the_record_types_it_draws():
    found = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if _inside(module, ("inflect.render",))
        for target in _imports(path)
        if not _inside(target, RENDER_MAY_IMPORT)
    ]
    assert not found, "\n".join(sorted(found))


def test_the_render_rule_sees_a_forbidden_import(tmp_path):
    """The rule's own check: a function-level import of another room is found, one under
    ``TYPE_CHECKING`` is not."""
    path = tmp_path / "m.py"
    path.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from inflect.corpora.stats import SplitStats\n"
                    "def f():\n    from inflect.decoding.protocol import Certificate\n",
                    encoding="utf-8")
    assert _imports(path) == {"inflect.decoding.protocol"}
    assert not _inside("inflect.decoding.protocol", RENDER_MAY_IMPORT)
    assert _inside("inflect.inference.outcomes", RENDER_MAY_IMPORT)


#: What ``inflect.serve`` may import at run time (``../shared/DESIGN.md``, "Rooms": the service
#: stands on inference, lexicon and render): those, text, io, the defaults and the package's
#: version; not nn, decoding, training, evaluation or cli.
SERVE_MAY_IMPORT = ("inflect.serve", "inflect.inference", "inflect.lexicon", "inflect.render",
                    "inflect.text", "inflect.io", "inflect.defaults")


def test_serve_imports_only_the_rooms_it_stands_on():
    found = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if _inside(module, ("inflect.serve",))
        for target in _imports(path)
        if target != "inflect" and not _inside(target, SERVE_MAY_IMPORT)
    ]
    assert not found, "\n".join(sorted(found))


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
