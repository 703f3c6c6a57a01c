"""The glue's source layout: csrc/torch is a stack of layers (csrc/torch/README.md), and no file includes a header
of a layer above its own; no file of csrc/ takes part in an include cycle.

Reads the sources only (no torch import, no build): every `#include "..."` of csrc/, resolved as the compiler
resolves it (the including file's folder first, then the include directories of csrc/torch/CMakeLists.txt and
csrc/hal/CMakeLists.txt).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLUE = ROOT / "csrc" / "torch"
CORE = ROOT / "csrc" / "hal"

# The layers, lowest first: a file may include headers of its own layer and of the layers before it, never of
# a layer after it. "core" is csrc/hal (and the adapter ABI, include/), which sees no PyTorch header; each
# other name is a folder of csrc/torch. The runtime knows nothing of op routes or ops, dispatch nothing of
# specific ops, and python (the module's bindings) is the top. python_backend, the devices whose operations are
# Python callables, serves the core as an adapter does: it sees the core's level alone (the ABI and
# adapter_support), and only python (which registers it) uses it (test_the_python_backend_stands_apart).
# csrc/torch/CMakeLists.txt globs the same folders; csrc/torch/README.md says each one's job.
LAYERS = [
    "core",
    "runtime",
    "profiler",
    "dispatch",
    "transfer",
    "ops",
    "interop",
    "distributed",
    "compile",
    "python_backend",
    "python",
]

# The folders of csrc/torch: every layer but the core.
GLUE_LAYERS = [name for name in LAYERS if name != "core"]

# Where a quoted include is looked for after the including file's own folder (csrc/torch/CMakeLists.txt:
# csrc/torch and vendor_adapters; the core's: csrc, include/, and adapter_support for library_file_check.h).
INCLUDE_DIRS = [
    GLUE,
    ROOT / "vendor_adapters",
    ROOT / "csrc",
    ROOT / "include",
    ROOT / "vendor_adapters" / "adapter_support",
]

SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def layer_of(path: Path) -> str | None:
    """The layer of a file, or None for a file outside every layer (another adapter's, a test's)."""
    # adapter_support's library file check is compiled into the core (and into adapters): the core's.
    if any(path.is_relative_to(ROOT / p) for p in ("csrc/hal", "include", "vendor_adapters/adapter_support")):
        return "core"
    if path.is_relative_to(GLUE):
        parts = path.relative_to(GLUE).parts
        return parts[0] if len(parts) > 1 and parts[0] in GLUE_LAYERS else None
    return None


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def resolve(including: Path, name: str) -> Path | None:
    for folder in [including.parent, *INCLUDE_DIRS]:
        candidate = folder / name
        if candidate.is_file():
            return candidate.resolve()
    return None


def include_graph(files: list[Path]) -> tuple[dict[Path, list[Path]], list[str]]:
    """file -> the project files it includes, and the quoted includes that resolve to no file."""
    graph: dict[Path, list[Path]] = {}
    unresolved = []
    for f in files:
        targets = []
        for name in INCLUDE.findall(f.read_text(errors="replace")):
            target = resolve(f, name)
            if target is None:
                unresolved.append(f'{f.relative_to(ROOT)}: "{name}"')
            else:
                targets.append(target)
        graph[f.resolve()] = targets
    return graph, unresolved


def upward_includes(graph: dict[Path, list[Path]]) -> list[str]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    found = []
    for f, targets in graph.items():
        source_layer = layer_of(f)
        for t in targets:
            target_layer = layer_of(t)
            if target_layer is None:
                found.append(f"{f.relative_to(ROOT)} includes {t.relative_to(ROOT)}, which is in no layer")
            elif source_layer is not None and rank[target_layer] > rank[source_layer]:
                found.append(
                    f"{f.relative_to(ROOT)} ({source_layer}) includes {t.relative_to(ROOT)} ({target_layer}), "
                    "a layer above its own"
                )
    return found


def cycles(graph: dict[Path, list[Path]]) -> list[list[Path]]:
    """One include cycle per strongly connected component of more than one file (or a file including itself)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    found = []
    counter = 0

    def visit(v: Path) -> None:  # Tarjan's algorithm; the include graph is a few hundred files deep at most
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
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
            if len(component) > 1 or v in graph.get(v, []):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layered_files() -> list[Path]:
    return sources(GLUE)


def test_every_glue_file_sits_in_a_layer_folder():
    at_root = {"CMakeLists.txt", "README.md"}
    misplaced = [
        str(p.relative_to(ROOT))
        for p in sorted(GLUE.rglob("*"))
        if p.is_file() and (p.name not in at_root if p.parent == GLUE else layer_of(p) is None)
    ]
    assert not misplaced, (
        "csrc/torch holds CMakeLists.txt and README.md at its root and everything else in a layer folder "
        f"({', '.join(GLUE_LAYERS)}; tests/python/test_source_layers.py's LAYERS): {misplaced}"
    )


def test_every_quoted_include_resolves_to_a_project_file():
    _, unresolved = include_graph(layered_files() + sources(CORE))
    assert not unresolved, f"quoted includes that match no file (use <...> for others' headers): {unresolved}"


def test_no_file_includes_a_header_of_a_higher_layer():
    graph, _ = include_graph(layered_files() + sources(CORE))
    found = upward_includes(graph)
    assert not found, "includes that point up the layers (" + " < ".join(LAYERS) + "):\n" + "\n".join(found)


def test_the_python_backend_stands_apart():
    """The Python backend serves the core as an adapter does: it includes the core's level alone (adapter.h,
    adapter_support), and only the Python bindings, which register it, include it."""
    graph, _ = include_graph(layered_files())
    found = []
    for f, targets in graph.items():
        for t in targets:
            if layer_of(f) == "python_backend" and layer_of(t) not in ("core", "python_backend"):
                found.append(f"{f.relative_to(ROOT)} includes {t.relative_to(ROOT)}, above the core's level")
            if layer_of(t) == "python_backend" and layer_of(f) not in ("python_backend", "python"):
                found.append(f"{f.relative_to(ROOT)} includes {t.relative_to(ROOT)}; only csrc/torch/python may")
    assert not found, "the Python backend is registered by csrc/torch/python alone:\n" + "\n".join(found)


def test_no_include_cycle_in_csrc():
    graph, _ = include_graph(layered_files() + sources(CORE))
    found = cycles(graph)
    assert not found, "include cycles:\n" + "\n".join(
        " -> ".join(str(p.relative_to(ROOT)) for p in c) for c in found
    )


def test_the_cmake_glob_lists_the_same_layers():
    cmake = (GLUE / "CMakeLists.txt").read_text()
    match = re.search(r"set\(HAL_TORCH_LAYERS ([^)]*)\)", cmake)
    assert match, "csrc/torch/CMakeLists.txt sets HAL_TORCH_LAYERS, the folders it compiles"
    assert match.group(1).split() == GLUE_LAYERS


def test_the_readme_names_every_layer_folder():
    readme = (GLUE / "README.md").read_text()
    missing = [name for name in LAYERS if name != "core" and f"`{name}/`" not in readme]
    assert not missing, f"csrc/torch/README.md says nothing of {missing}"


# The checks themselves, on made-up graphs: each would fail where the layout breaks its rule.
def test_the_checks_catch_an_upward_include_and_a_cycle():
    low, high = GLUE / "runtime" / "a.cpp", GLUE / "ops" / "b.h"
    assert upward_includes({low: [high]}) and not upward_includes({high: [low]})
    assert upward_includes({low: [ROOT / "vendor_adapters" / "host" / "c.h"]})  # outside every layer
    a, b, c = GLUE / "dispatch" / "a.h", GLUE / "dispatch" / "b.h", GLUE / "dispatch" / "c.h"
    assert cycles({a: [b], b: [c], c: [a]}) == [sorted([a, b, c])]
    assert cycles({a: [a]}) == [[a]]
    assert not cycles({a: [b], b: [c], c: []})


@pytest.mark.parametrize(
    "relative, layer",
    [
        ("csrc/torch/runtime/hal_context.h", "runtime"),
        ("csrc/torch/dispatch/cpu_fallback.cpp", "dispatch"),
        ("csrc/torch/ops/attention_by_gemm.h", "ops"),
        ("csrc/torch/python/python_module.cpp", "python"),
        ("csrc/torch/python_backend/python_backend.h", "python_backend"),
        ("csrc/hal/error.h", "core"),
        ("include/torch_hal/adapter.h", "core"),
        ("vendor_adapters/adapter_support/library_file_check.h", "core"),
        ("csrc/torch/hal_context.h", None),  # the root of csrc/torch is no layer
        ("csrc/torch/native/kernel_table.h", None),  # nor a folder outside the list
        ("vendor_adapters/host/host_adapter.cpp", None),
    ],
)
def test_layer_of(relative, layer):
    assert layer_of(ROOT / relative) == layer
