"""The example ASIC plugin (vendor_adapters/example_asic): it builds alone against adapter.h, its native
kernels match the CPU when called through the C ABI, and loaded into torch_hal (TORCH_HAL_ADAPTERS or
register_custom_device) its devices hold tensors and train a model like the CPU does."""
import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from adapter_abi import (HAL_COPY_DEVICE_TO_HOST, HAL_COPY_HOST_TO_DEVICE, HAL_OP_ADD, HAL_OP_MATMUL, HAL_OP_MUL,
                         HAL_OP_RELU, HAL_OP_SUB, HAL_DEVICE_FLAG_HOST_ACCESSIBLE, HAL_STATUS_INVALID_ARGUMENT,
                         HAL_STATUS_NOT_SUPPORTED, HAL_STATUS_SUCCESS, hal_device_properties_t, hal_dtype_t,
                         hal_scalar_t, hal_tensor_t, load_adapter_table)
from conftest import REPO_ROOT, fixture_library, run_python

PLUGIN = REPO_ROOT / "torch_hal" / "plugins" / "libexample_asic.so"


@pytest.fixture(scope="module")
def asic():
    if not PLUGIN.exists():
        pytest.fail(f"{PLUGIN} is missing: torch_hal's build makes it (vendor_adapters/CMakeLists.txt)")
    table = load_adapter_table(PLUGIN)
    assert table.initialize() == HAL_STATUS_SUCCESS, table.get_last_error()
    yield table
    table.shutdown()


class OnDevice:
    """A CPU tensor's storage copied into the plugin's memory; views of it are described as hal_tensor_t."""

    def __init__(self, table, base: torch.Tensor):
        self.table, self.base = table, base.contiguous()
        self.ptr = ctypes.c_void_p()
        nbytes = max(self.base.numel() * self.base.element_size(), 1)
        assert table.malloc_device(0, nbytes, ctypes.byref(self.ptr)) == HAL_STATUS_SUCCESS
        assert table.memcpy_async(0, self.ptr, self.base.data_ptr(), nbytes, HAL_COPY_HOST_TO_DEVICE, None) == 0
        self._keep = []

    def describe(self, view: torch.Tensor) -> hal_tensor_t:
        assert view.untyped_storage().data_ptr() == self.base.untyped_storage().data_ptr()
        shape = (ctypes.c_int64 * max(view.dim(), 1))(*view.shape)
        strides = (ctypes.c_int64 * max(view.dim(), 1))(*view.stride())
        self._keep += [shape, strides]
        code = {torch.float32: 2, torch.float64: 2, torch.int32: 0}[view.dtype]
        return hal_tensor_t(data=self.ptr, ndim=view.dim(), dtype=hal_dtype_t(code, view.element_size() * 8, 1),
                            shape=shape, strides=strides, byte_offset=view.storage_offset() * view.element_size())

    def read(self) -> torch.Tensor:
        out = torch.empty_like(self.base)
        nbytes = out.numel() * out.element_size()
        assert self.table.memcpy_async(0, out.data_ptr(), self.ptr, nbytes, HAL_COPY_DEVICE_TO_HOST, None) == 0
        return out

    def free(self):
        assert self.table.free_device(0, self.ptr) == HAL_STATUS_SUCCESS


def scalar_operand() -> hal_tensor_t:
    return hal_tensor_t(data=None, ndim=0, dtype=hal_dtype_t(2, 32, 1))


def launch(table, op, inputs, outputs, scalars=()):
    ins = (hal_tensor_t * len(inputs))(*inputs)
    outs = (hal_tensor_t * len(outputs))(*outputs)
    sc = (hal_scalar_t * max(len(scalars), 1))()
    for i, value in enumerate(scalars):
        sc[i].kind, sc[i].value.f = 0, float(value)
    return table.launch_op(0, op, None, ins, len(inputs), outs, len(outputs), sc, len(scalars))


def test_properties_say_not_host_accessible(asic):
    props = hal_device_properties_t(struct_size=ctypes.sizeof(hal_device_properties_t))
    assert asic.get_device_properties(0, ctypes.byref(props)) == HAL_STATUS_SUCCESS
    assert props.flags & HAL_DEVICE_FLAG_HOST_ACCESSIBLE == 0
    assert props.vendor == b"custom_asic" and props.total_memory_bytes > 0


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "broadcast", "sliced", "zero-dim"])
@pytest.mark.parametrize("op", ["add", "mul", "relu"])
def test_elementwise_kernels_match_cpu(asic, op, layout):
    g = torch.Generator().manual_seed(0)
    a_cpu, b_cpu = torch.randn(6, 8, generator=g), torch.randn(8, 6, generator=g)
    out_cpu = torch.zeros(6, 8)
    a, b, out = OnDevice(asic, a_cpu), OnDevice(asic, b_cpu), OnDevice(asic, out_cpu)
    a_view, b_view, out_view = a.base, b.base.t(), out.base  # b transposed: (6, 8) with strides (1, 6)
    if layout == "contiguous":
        b_view = b.base.reshape(6, 8)
    elif layout == "broadcast":
        b_view = b.base.view(-1)[:8].unsqueeze(0).expand(6, 8)  # stride 0 along dim 0
    elif layout == "sliced":
        a_view, b_view, out_view = a.base[1:5, ::2], b.base.t()[2:6, 1::2], out.base[0:4, 4:8]
    elif layout == "zero-dim":
        a_view, b_view, out_view = a.base[2, 3], b.base[1, 1], out.base[5, 7]
    alpha = 2.5
    if op == "add":
        status = launch(asic, HAL_OP_ADD, [a.describe(a_view), b.describe(b_view)], [out.describe(out_view)], [alpha])
        expected_view = torch.add(a_view, b_view, alpha=alpha)
    elif op == "mul":
        status = launch(asic, HAL_OP_MUL, [a.describe(a_view), b.describe(b_view)], [out.describe(out_view)])
        expected_view = a_view * b_view
    else:
        status = launch(asic, HAL_OP_RELU, [a.describe(a_view)], [out.describe(out_view)])
        expected_view = torch.relu(a_view)
    assert status == HAL_STATUS_SUCCESS, asic.get_last_error()
    expected = out_cpu.clone()
    expected.as_strided(out_view.shape, out_view.stride(), out_view.storage_offset()).copy_(expected_view)
    torch.testing.assert_close(out.read(), expected)  # and nothing outside the view was written
    for t in (a, b, out):
        t.free()


def test_scalar_operands_come_before_alpha(asic):
    a_cpu = torch.randn(3, 4)
    a, out = OnDevice(asic, a_cpu), OnDevice(asic, torch.zeros(3, 4))
    # out = a + alpha * s with s a scalar operand: scalars = [s, alpha]
    assert launch(asic, HAL_OP_ADD, [a.describe(a.base), scalar_operand()], [out.describe(out.base)], [3.0, -2.0]) == 0
    torch.testing.assert_close(out.read(), a_cpu - 6.0)
    # out = s * a, the scalar first
    assert launch(asic, HAL_OP_MUL, [scalar_operand(), a.describe(a.base)], [out.describe(out.base)], [0.5]) == 0
    torch.testing.assert_close(out.read(), a_cpu * 0.5)
    # a scalar operand without its scalar is a malformed call
    assert launch(asic, HAL_OP_MUL, [scalar_operand(), a.describe(a.base)], [out.describe(out.base)], []) == \
        HAL_STATUS_INVALID_ARGUMENT
    assert b"scalar operand" in asic.get_last_error()
    for t in (a, out):
        t.free()


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "in-place"])
def test_matmul_matches_cpu(asic, layout):
    g = torch.Generator().manual_seed(1)
    a_cpu, b_cpu = torch.randn(7, 5, generator=g), torch.randn(9, 5, generator=g)
    a, b = OnDevice(asic, a_cpu), OnDevice(asic, b_cpu)
    b_view = b.base.t()  # (5, 9), column-major
    if layout == "contiguous":
        b = OnDevice(asic, b_cpu.t().contiguous())
        b_view = b.base
    out = OnDevice(asic, torch.zeros(7, 9))
    assert launch(asic, HAL_OP_MATMUL, [a.describe(a.base), b.describe(b_view)], [out.describe(out.base)]) == 0
    torch.testing.assert_close(out.read(), a_cpu @ b_cpu.t(), rtol=1e-5, atol=1e-5)
    if layout == "in-place":  # out aliases an input: a = a @ square
        sq_cpu = torch.randn(5, 5, generator=g)
        sq = OnDevice(asic, sq_cpu)
        assert launch(asic, HAL_OP_MATMUL, [a.describe(a.base), sq.describe(sq.base)], [a.describe(a.base)]) == 0
        torch.testing.assert_close(a.read(), a_cpu @ sq_cpu, rtol=1e-5, atol=1e-5)
        sq.free()
    for t in (a, b, out):
        t.free()


def test_unsupported_calls_change_nothing(asic):
    x_cpu = torch.randn(4, 4)
    x, out = OnDevice(asic, x_cpu), OnDevice(asic, torch.full((4, 4), 7.0))
    d64 = OnDevice(asic, torch.randn(4, 4, dtype=torch.float64))
    cases = [
        (HAL_OP_SUB, [x.describe(x.base), x.describe(x.base)], [out.describe(out.base)]),           # not native
        (HAL_OP_ADD, [d64.describe(d64.base), x.describe(x.base)], [out.describe(out.base)]),       # float64
        (HAL_OP_ADD, [x.describe(x.base[:2]), x.describe(x.base)], [out.describe(out.base)]),       # not broadcast
        (HAL_OP_MATMUL, [x.describe(x.base[:, :3]), x.describe(x.base)], [out.describe(out.base)]),  # K mismatch
    ]
    for op, ins, outs in cases:
        assert launch(asic, op, ins, outs) == HAL_STATUS_NOT_SUPPORTED
    tensors = (hal_tensor_t * 2)(d64.describe(d64.base), x.describe(x.base))
    assert asic.op_supported(0, HAL_OP_ADD, tensors, 2) == HAL_STATUS_NOT_SUPPORTED
    float32_only = (hal_tensor_t * 2)(x.describe(x.base), scalar_operand())
    assert asic.op_supported(0, HAL_OP_ADD, float32_only, 2) == HAL_STATUS_SUCCESS
    assert asic.op_supported(0, HAL_OP_SUB, float32_only, 2) == HAL_STATUS_NOT_SUPPORTED
    assert torch.equal(out.read(), torch.full((4, 4), 7.0))
    for t in (x, out, d64):
        t.free()


def test_memory_outside_the_device_is_refused(asic):
    host = torch.randn(4)
    out = OnDevice(asic, torch.zeros(4))
    foreign = hal_tensor_t(data=host.data_ptr(), ndim=1, dtype=hal_dtype_t(2, 32, 1),
                           shape=(ctypes.c_int64 * 1)(4), strides=(ctypes.c_int64 * 1)(1))
    assert launch(asic, HAL_OP_RELU, [foreign], [out.describe(out.base)]) == HAL_STATUS_INVALID_ARGUMENT
    assert b"not inside an allocation" in asic.get_last_error()
    assert asic.memcpy_async(0, host.data_ptr(), host.data_ptr(), 16, HAL_COPY_DEVICE_TO_HOST, None) == \
        HAL_STATUS_INVALID_ARGUMENT
    out.free()


def test_builds_alone_against_the_header(tmp_path):
    """A copy of the plugin folder and of the ABI headers (adapter.h, the adapter_ops.h it includes and the op list
    adapter_ops.def that this includes), and nothing else of torch_hal: it configures, builds and exports hal_adapter_query alone."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.fail("cmake is needed to build the plugin (scripts/setup.sh installs it)")
    src = tmp_path / "example_asic"
    shutil.copytree(REPO_ROOT / "vendor_adapters" / "example_asic", src)
    include = tmp_path / "sdk" / "include" / "torch_hal"
    include.mkdir(parents=True)
    for header in ("adapter.h", "adapter_ops.h", "adapter_ops.def"):
        shutil.copy(REPO_ROOT / "include" / "torch_hal" / header, include)
    build = tmp_path / "build"
    for cmd in ([cmake, "-S", str(src), "-B", str(build), f"-DTORCH_HAL_INCLUDE_DIR={include.parent}"],
                [cmake, "--build", str(build), "--parallel", "2"]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    library = build / "libexample_asic.so"
    assert library.exists()
    if shutil.which("nm"):
        symbols = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
        assert [line.split()[-1] for line in symbols.splitlines()] == ["hal_adapter_query"]
    # Without the header, configuring says what is missing and how to point at it.
    bad = subprocess.run([cmake, "-S", str(src), "-B", str(tmp_path / "b2"), f"-DTORCH_HAL_INCLUDE_DIR={tmp_path}"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "TORCH_HAL_INCLUDE_DIR" in bad.stderr
    # The standalone build is a working adapter.
    out = run_python("import torch, torch_hal; x = torch.arange(6.).to('hal:0'); "
                     "print(torch.hal.get_device_properties(0).adapter, x.cpu().tolist())",
                     TORCH_HAL_ADAPTERS=library)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "example_asic" and "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]" in out.stdout


TRAIN = """
import warnings, torch, torch_hal
warnings.simplefilter("ignore")
from torch_hal import PrivateUse1Config, register_custom_device
{setup}
assert not torch.hal.get_device_properties(device).host_accessible
torch.manual_seed(0)
x = torch.randn(64, 10)
y = 2 * x[:, :1] - x[:, 1:2]  # learnable: the loss must fall
def train(where):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).to(where)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    xs, ys = x.to(where), y.to(where)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xs), ys)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0], losses
    return losses[-1], [p.detach().cpu() for p in model.parameters()]
loss_dev, params_dev = train(device)
loss_cpu, params_cpu = train("cpu")
assert abs(loss_dev - loss_cpu) < 1e-4, (loss_dev, loss_cpu)
for a, b in zip(params_dev, params_cpu):
    torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
assert torch.hal.fallback_stats()  # the non-native ops ran through the counted CPU fallback
print("TRAINED", device, loss_dev)
"""


def test_model_trains_on_the_plugin_loaded_by_env_like_on_cpu():
    setup = "device = next(torch.device('hal', i) for i in range(torch.hal.device_count()) " \
            "if torch.hal.get_device_properties(i).adapter == 'example_asic')"
    out = run_python(TRAIN.format(setup=setup), TORCH_HAL_ADAPTERS=PLUGIN)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "TRAINED hal:0" in out.stdout  # a custom_asic vendor sorts before the host device


def test_register_custom_device_loads_the_plugin_by_name():
    setup = """
before = torch.hal.device_count()
host = torch.ones(3, device="hal:0")
devices = register_custom_device(config=PrivateUse1Config(backend_library="libexample_asic.so"))
assert devices == [torch.device("hal", before)], devices
device = devices[0]
assert torch.hal.device_count() == before + 1
assert [a.name for a in torch_hal.adapters()][-1] == "example_asic"
assert host.sum().item() == 3  # existing devices untouched
"""
    out = run_python(TRAIN.format(setup=setup), EXAMPLE_ASIC_MEMORY="64M")
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "TRAINED hal:1" in out.stdout


def test_broken_plugins_get_clear_errors_and_the_rest_keeps_working():
    code = f"""
import torch, torch_hal
from torch_hal import PrivateUse1Config, register_custom_device
x = torch.arange(4.).to("hal:0")
def refused(library, kind):
    try:
        register_custom_device(config=PrivateUse1Config(backend_library=library))
    except kind as e:
        return str(e)
    raise AssertionError("no error for " + library)
print("WRONG_ABI", refused({str(fixture_library('wrong_abi'))!r}, ValueError))
print("NO_ENTRY", refused({str(fixture_library('not_an_adapter'))!r}, ValueError))
print("MISSING", refused("libno_such_plugin.so", FileNotFoundError))
assert torch.hal.device_count() == 1 and (x * 2).cpu().tolist() == [0., 2., 4., 6.]
assert register_custom_device(config=PrivateUse1Config(backend_library="libexample_asic.so"))
print("OK")
"""
    out = run_python(code)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)
    assert "2.0" in lines["WRONG_ABI"] and "1.4" in lines["WRONG_ABI"] and "rebuild" in lines["WRONG_ABI"]
    assert "hal_adapter_query" in lines["NO_ENTRY"]
    assert "libno_such_plugin.so" in lines["MISSING"] and "TORCH_HAL_ADAPTER_PATH" in lines["MISSING"]
    assert out.stdout.rstrip().endswith("OK")
