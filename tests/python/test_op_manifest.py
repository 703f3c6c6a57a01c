"""include/torch_hal/adapter_ops.def is the one list of native ops: every op's id, name and family, and every
family's provider. These tests hold the rest of the tree to it: the names the core gives ids, the kernel library's
entry points (one launch_<family> per LIBRARY family, none without a family), and the ABI's numbering."""
import re

import pytest

from conftest import REPO_ROOT

MANIFEST = REPO_ROOT / "include" / "torch_hal" / "adapter_ops.def"
KERNELS = REPO_ROOT / "vendor_adapters" / "gpu_kernels" / "kernels"
GPU_ADAPTERS = [REPO_ROOT / "vendor_adapters" / name for name in ("nvidia", "amd")]

# Strip comments first: the header's prose shows the macros' shapes.
_TEXT = re.sub(r"/\*.*?\*/", "", MANIFEST.read_text(), flags=re.S)
FAMILIES = dict(re.findall(r"^HAL_FAMILY\((\w+), (LIBRARY|VENDOR)\)", _TEXT, re.M))
OPS = [(name, int(op_id), family) for name, op_id, family in re.findall(r"^HAL_OP\((\w+), (\d+), (\w+)\)", _TEXT, re.M)]
ELEMENTWISE = re.findall(r"^HAL_ELEMENTWISE_OP\((\w+), (\d+), (\d+), (\w+), (\w+), (\w+)\)", _TEXT, re.M)
ALL_OPS = OPS + [(name, int(op_id), "elementwise") for name, op_id, *_ in ELEMENTWISE]

# Ids that plugins built against ABI 1.4 know: they may never change meaning.
ABI_1_4_IDS = {"FILL": 1, "COPY": 2, "ADD": 10, "RELU": 20, "MATMUL": 40, "GEMM": 41, "NEG": 100, "SQUARE": 128,
               "POW": 150, "CLAMP_MAX": 169, "LEAKY_RELU_BACKWARD": 185, "WHERE": 200, "LERP": 204, "SUM": 300,
               "STD": 308, "SOFTMAX": 400, "EMBEDDING_BACKWARD": 430, "INDEX_PUT": 503, "RANDPERM": 603,
               "FOREACH": 700, "BATCH_NORM": 900, "UPSAMPLE_BILINEAR2D_BACKWARD": 953, "CONVOLUTION": 1000,
               "ALL": 1200, "TRIL": 1210, "AMP_UPDATE_SCALE": 1241, "ATTENTION_SOFTMAX": 1262}


def every_line_of_the_manifest_is_understood():
    """Every non-blank line outside comments and preprocessor lines is one of the three macros."""
    for line in _TEXT.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            assert re.match(r"HAL_(FAMILY|OP|ELEMENTWISE_OP)\(", line), f"adapter_ops.def: unparsed line {line!r}"


def test_the_manifest_parses_and_ids_and_names_are_unique():
    every_line_of_the_manifest_is_understood()
    assert len(ALL_OPS) > 130 and len(FAMILIES) > 20
    names = [name for name, _, _ in ALL_OPS]
    ids = [op_id for _, op_id, _ in ALL_OPS]
    assert len(set(names)) == len(names), "an op is declared twice"
    assert len(set(ids)) == len(ids), "two ops share an id"


def test_abi_1_4_ids_keep_their_numbers():
    by_name = {name: op_id for name, op_id, _ in ALL_OPS}
    assert {name: by_name.get(name) for name in ABI_1_4_IDS} == ABI_1_4_IDS


def test_every_op_names_a_declared_family_and_elementwise_columns_are_valid():
    assert all(family in FAMILIES for _, _, family in OPS), [op for op in OPS if op[2] not in FAMILIES]
    for name, _, arity, domain, scalar, path in ELEMENTWISE:
        assert 1 <= int(arity) <= 3, name
        assert domain in ("Any", "FloatOnly", "IntOnly"), name
        assert scalar in ("None", "Value", "Values2", "Values3", "Mode", "Values3Mode"), name
        assert path in ("Generic", "Vectorized"), name


def defined_launchers(folders):
    pattern = re.compile(r"^hal_status_t launch_(\w+)\(const (?:hal_gpu::)?OpCall& call\) \{", re.M)
    found = {}
    for folder in folders:
        for source in list(folder.glob("*.cu")) + list(folder.glob("*.cpp")):
            for family in pattern.findall(source.read_text()):
                found.setdefault(family, []).append(source.relative_to(REPO_ROOT).as_posix())
    return found


def test_each_library_family_has_one_entry_point_in_the_kernel_library():
    """A LIBRARY family's launch_<family> is defined once in the library (gemm: once per GPU adapter, over its
    BLAS); no file defines an entry point that no family routes to (it would be dead code the routing never
    reaches)."""
    library = defined_launchers([KERNELS])
    adapters = defined_launchers(GPU_ADAPTERS)
    for family, provider in FAMILIES.items():
        if provider == "VENDOR":
            continue
        if family in library:
            assert len(library[family]) == 1, (family, library[family])
        else:
            assert family in adapters and len(adapters[family]) == len(GPU_ADAPTERS), (family, adapters.get(family))
    assert set(library) <= set(FAMILIES), set(library) - set(FAMILIES)


def test_the_core_names_every_op_of_the_manifest():
    torch_hal = pytest.importorskip("torch_hal")
    for name, op_id, _ in ALL_OPS:
        assert torch_hal._C.hal_op_name(op_id) == f"HAL_OP_{name}"
    assert torch_hal._C.hal_op_name(99999) == "HAL_OP_99999"
