"""The torch_hal package's modules import each other without a cycle.

Every module of torch_hal/ is parsed (not imported): each ``import`` and ``from ... import`` of a torch_hal
module counts, at module level or inside a function, with relative imports resolved. ``from pkg import name``
depends on the module pkg.name where that is a module (a .py file, a package or the native extension), else on
pkg itself. A cycle means two modules that can only be understood, and imported, together: the shared piece
belongs in a lower module that both import.
"""
import ast
import importlib.machinery
from pathlib import Path
from typing import Dict, List, Set

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "torch_hal"


def package_modules(package_dir: Path) -> Dict[str, Path]:
    """Dotted module name -> source file, for every .py of the package (a package by its __init__.py)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def native_modules(package_dir: Path) -> Set[str]:
    """The extension modules of the package (torch_hal._C): modules, but not parsed."""
    names = set()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for path in package_dir.rglob(f"*{suffix}"):
            parts = list(path.relative_to(package_dir.parent).parts)
            parts[-1] = parts[-1][: -len(suffix)]
            names.add(".".join(parts))
    return names


def import_graph(package_dir: Path) -> Dict[str, Dict[str, int]]:
    """module -> {torch_hal module it imports: line of the first such import}."""
    root = package_dir.name
    modules = package_modules(package_dir)
    known = set(modules) | native_modules(package_dir)

    def owner(name: str):
        """The module that `name` (a module, or a name inside one) belongs to."""
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                           for alias in node.names]
            else:
                continue
            for target in targets:
                if target.split(".")[0] != root:
                    continue
                imported = owner(target)
                if imported in modules and imported != module:
                    edges[imported] = min(edges.get(imported, node.lineno), node.lineno)
    return graph


def cyclic_groups(graph: Dict[str, Dict[str, int]]) -> List[Set[str]]:
    """The groups of two or more modules that each reach every other one through imports (Tarjan's strongly
    connected components)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def shortest_cycle(graph: Dict[str, Dict[str, int]], group: Set[str]) -> List[str]:
    """A shortest cycle through the group's first module, inside the group (the first module repeated last)."""
    start = min(group)
    paths, frontier = {start: [start]}, [start]
    while True:
        for v in frontier:
            if start in graph[v]:
                return paths[v] + [start]
        following = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w in group and w not in paths:
                    paths[w] = paths[v] + [w]
                    following.append(w)
        frontier = following


def cycles(graph: Dict[str, Dict[str, int]]) -> List[List[str]]:
    """One cycle per group of modules that import each other."""
    return [shortest_cycle(graph, group) for group in cyclic_groups(graph)]


def describe(group: Set[str], graph, modules) -> str:
    """A cycle of the group, then every import among its modules (each of which may be the one to change)."""

    def line(a, b):
        return f"    {a} -> {b}  ({modules[a].relative_to(PACKAGE_DIR.parent)}:{graph[a][b]})"

    cycle = shortest_cycle(graph, group)
    return "\n".join(["  a cycle:"] + [line(a, b) for a, b in zip(cycle, cycle[1:])]
                     + [f"  every import among its group of {len(group)} modules:"]
                     + [line(a, b) for a in sorted(group) for b in sorted(graph[a]) if b in group])


def test_torch_hal_modules_import_each_other_without_a_cycle():
    graph = import_graph(PACKAGE_DIR)
    modules = package_modules(PACKAGE_DIR)
    groups = cyclic_groups(graph)
    assert not groups, "import cycles among torch_hal's modules:\n" + "\n\n".join(
        describe(group, graph, modules) for group in groups)


def test_the_import_graph_sees_function_level_and_relative_imports(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg import a\n")
    (package / "a.py").write_text("import os\nfrom pkg.sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def f():\n    from ..c import name\n")
    (package / "c.py").write_text("from . import a\n")
    graph = import_graph(package)
    assert graph == {"pkg": {"pkg.a": 1}, "pkg.a": {"pkg.sub.b": 2}, "pkg.sub": {}, "pkg.sub.b": {"pkg.c": 2},
                     "pkg.c": {"pkg.a": 1}}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]
    (package / "c.py").write_text("from pkg import __version__\n")  # a name of pkg's __init__: pkg itself
    assert cycles(import_graph(package)) == [["pkg", "pkg.a", "pkg.sub.b", "pkg.c", "pkg"]]


def test_the_import_graph_sees_the_package_as_it_is():
    graph = import_graph(PACKAGE_DIR)
    assert "torch_hal.selection" in graph["torch_hal.hardware_adapter"]
    assert "torch_hal.compile.scheduling" in graph["torch_hal.compile.inductor_backends"]  # inside hal_scheduling
    assert "torch_hal" not in graph["torch_hal.memory"]  # `from torch_hal import _C` is the native module
