"""The shape of the code (issue 25): no import cycle inside ``wag_cli`` and no module over 500 lines.

The import graph is read from the source with :mod:`ast` (nothing is imported): every ``import`` and
``from … import`` anywhere in a module, inside functions too (a lazy import hides a cycle, it does not
remove it), resolved to the ``wag_cli`` module it loads. ``from pkg import name`` is an arrow to
``pkg.name`` when that is a module, else to ``pkg`` itself. Loading ``pkg.sub`` first runs the
``__init__`` of ``pkg``, so it is an arrow to ``pkg`` as well, unless the importer lies inside ``pkg``
(that package is already being loaded then).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "wag_cli"
MAX_LINES = 500


def _modules(root: Path) -> dict[str, Path]:
    """``{"wag_cli.x.y": path}`` for every .py file under ``root`` (a package is its ``__init__``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of dotted ``name`` that is a wag_cli module, or None (outside wag_cli)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def dynamic_imports(root: Path = ROOT) -> list[str]:
    """``"module:line"`` of every ``importlib.import_module(…)`` / ``__import__(…)`` call whose name is
    not a string literal: an arrow the graph cannot see, which could hide a cycle."""
    out = []
    for mod, path in _modules(root).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Call) and _is_dynamic_import(node.func) and not (
                    node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                out.append(f"{mod}:{node.lineno}")
    return out


def _is_dynamic_import(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id in ("__import__", "import_module")) or (
        isinstance(func, ast.Attribute) and func.attr in ("import_module", "__import__"))


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """``{module: {modules of root it imports}}`` from the source (self-imports left out); an
    ``importlib.import_module("literal")`` counts as an import of that module."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        is_package = path.name == "__init__.py"
        package = mod if is_package else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    if node.level > 1:
                        base = base[: len(base) - (node.level - 1)]
                    base_name = ".".join(base + ([node.module] if node.module else []))
                else:
                    base_name = node.module or ""
                targets = [f"{base_name}.{alias.name}" if f"{base_name}.{alias.name}" in modules else base_name
                           for alias in node.names]
            elif (isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args
                  and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                targets = [node.args[0].value]
            for target in targets:
                dest = _resolve(target, modules)
                if dest is None:
                    continue
                graph[mod].add(dest)
                parts = dest.split(".")
                for i in range(2, len(parts)):          # the packages loaded on the way (not wag_cli)
                    parent = ".".join(parts[:i])
                    if parent in modules and not mod.startswith(parent + "."):
                        graph[mod].add(parent)
            graph[mod].discard(mod)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path ``[a, b, …, a]`` (depth-first, in sorted order), or None."""
    edges = {m: sorted(ds) for m, ds in graph.items()}
    state: dict[str, int] = {}   # 1 = on the current path, 2 = done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in edges.get(m, []):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_graph_reader_sees_lazy_relative_and_package_imports(tmp_path):
    files = {
        "__init__.py": "",
        "a.py": "import os\nfrom .sub import b\n",
        "c.py": "def f():\n    from pkg.sub.d import g\n    import pkg.e as e\n",
        "e.py": "from . import c\nfrom .sub.d import g\n",
        "sub/__init__.py": "from .b import x\n",
        "sub/b.py": "from ..e import y\nfrom . import d\n",
        "sub/d.py": "from .. import a\n",
        "f.py": "import importlib\nimportlib.import_module('pkg.a')\nfor m in 'ab':\n    importlib.import_module(m)\n",
    }
    for rel, text in files.items():
        (tmp_path / "pkg" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / rel).write_text(text)
    assert import_graph(tmp_path / "pkg") == {
        "pkg": set(),
        "pkg.a": {"pkg.sub.b", "pkg.sub"},                   # loading pkg.sub.b runs pkg/sub/__init__
        "pkg.c": {"pkg.sub.d", "pkg.sub", "pkg.e"},          # imports inside a function count
        "pkg.e": {"pkg.c", "pkg.sub.d", "pkg.sub"},
        "pkg.sub": {"pkg.sub.b"},
        "pkg.sub.b": {"pkg.e", "pkg.sub.d"},                 # its own package is already loading
        "pkg.sub.d": {"pkg.a"},
        "pkg.f": {"pkg.a"},
    }
    assert dynamic_imports(tmp_path / "pkg") == ["pkg.f:4"]
    assert find_cycle(import_graph(tmp_path / "pkg")) == ["pkg.e", "pkg.c", "pkg.e"]   # c imports e lazily
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "d": {"a"}}) is None


def test_the_graph_reader_on_wag_cli():
    graph = import_graph()
    assert "wag_cli.llm.client" in graph["wag_cli.llm"]              # the package re-exports its modules
    assert "wag_cli.paths" in graph["wag_cli.llm.cache"]             # from ..paths import db_path (in a function)
    assert "wag_cli.llm" in graph["wag_cli.modelcheck"]              # from .llm import … (in a function)
    assert "wag_cli.llm" not in graph["wag_cli.llm.client"]


def test_no_import_cycle_in_wag_cli():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_import_is_visible_to_the_cycle_check():
    hidden = dynamic_imports()
    assert not hidden, f"imports with a computed module name (the cycle check cannot follow them): {hidden}"


def test_no_module_over_500_lines():
    long = {str(p.relative_to(ROOT.parent)): n for p in sorted(ROOT.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"
