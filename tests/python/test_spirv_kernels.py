"""The portable kernel library as SPIR-V, run on a real OpenCL device: vendor_adapters/spirv_kernels/kernels/
elementwise.cl includes the library's elementwise math (elementwise_ops.cuh, the very functions the CUDA and
HIP builds run), is compiled as C++ for OpenCL with clang-15 and llvm-spirv-15, validated with spirv-val, built
by Intel's OpenCL CPU runtime from the SPIR-V module (clCreateProgramWithIL) and launched on shared virtual
memory; every op's results are compared with PyTorch's CPU ops. Every other module of kernels/ (GEMM, reductions,
softmax, nll_loss) is compiled and validated the same way here, and run through the adapter in
test_opencl_adapter.py. scripts/setup.sh --tests installs the tools (Debian packages) and the runtime
(build/opencl_runtime)."""
import ctypes
import os
import re
import shutil
import subprocess

import pytest
import torch

from conftest import OPENCL_CPU_RUNTIME as RUNTIME
from conftest import REPO_ROOT, opencl_cpu_runtime
KERNELS = REPO_ROOT / "vendor_adapters" / "spirv_kernels" / "kernels"
TOOLS = ("clang-15", "llvm-spirv-15", "spirv-val")
OPS = {m.group(1): int(m.group(2)) for m in re.finditer(
    r"HAL_(?:ELEMENTWISE_)?OP\((\w+), (\d+)", (REPO_ROOT / "include" / "torch_hal" / "adapter_ops.def").read_text())}


def missing_means(message):
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def compile_module(name, out):
    """kernels/<name>.cl to a validated SPIR-V module, with the build's commands (spirv_kernels/CMakeLists.txt)."""
    absent = [t for t in TOOLS if shutil.which(t) is None]
    if absent:
        missing_means(f"{', '.join(absent)} missing: scripts/setup.sh --tests installs them")
    bc, spv = out / f"{name}.bc", out / f"{name}.spv"
    for cmd in (["clang-15", "-cl-std=clc++2021", "-target", "spir64", "-O2", "-fno-finite-loops",
                 "-fno-slp-vectorize", "-emit-llvm", "-ffreestanding", "-I", str(REPO_ROOT / "vendor_adapters" / "gpu_kernels"),
                 "-I", str(REPO_ROOT / "include"), "-c", str(KERNELS / f"{name}.cl"), "-o", str(bc)],
                ["llvm-spirv-15", str(bc), "-o", str(spv)],
                ["spirv-val", str(spv)]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{cmd[0]}: {done.stdout}{done.stderr}"
    return spv.read_bytes()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return compile_module("elementwise", tmp_path_factory.mktemp("spirv"))


@pytest.mark.parametrize("name", sorted(p.stem for p in KERNELS.glob("*.cl")))
def test_every_module_compiles_and_validates(name, tmp_path):
    """Each module (GEMM, reductions, softmax, losses, elementwise) passes spirv-val: llvm-spirv-15 can write
    invalid block orders for some loops, which only the validator catches before a runtime does."""
    spirv = compile_module(name, tmp_path)
    assert spirv[:4] == b"\x03\x02\x23\x07"  # the SPIR-V magic number, little-endian
    # Only float64.cl may use doubles: a device without fp64 cannot build a module that declares the capability,
    # and every other module must build everywhere (float16 and bfloat16 travel as bits, so no Float16 either).
    wanted = capabilities(spirv)
    assert (FLOAT64 in wanted) == (name == "float64"), f"{name}: capabilities {sorted(wanted)}"
    assert FLOAT16 not in wanted, f"{name}: capabilities {sorted(wanted)}"


FLOAT16, FLOAT64 = 9, 10  # SPIR-V's Capability enumerants


def capabilities(spirv: bytes) -> set:
    """The OpCapability operands of a SPIR-V module (opcode 17; each instruction's first word is its word count
    in the high half and its opcode in the low half, after a header of 5 words)."""
    words = [int.from_bytes(spirv[i:i + 4], "little") for i in range(0, len(spirv), 4)]
    found, at = set(), 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if opcode == 17:
            found.add(words[at + 1])
        at += max(count, 1)
    return found


class FloatParams(ctypes.Structure):
    """kernels/kernel_layouts.h's FloatParams: an elementwise op's own scalars, by value."""
    _fields_ = [("s0", ctypes.c_float), ("s1", ctypes.c_float), ("s2", ctypes.c_float), ("mode", ctypes.c_int32)]


class Device:
    """The first OpenCL device of the runtime, through ctypes: a context, a queue, the module's kernels."""

    def __init__(self, il: bytes):
        cl = self.cl = ctypes.CDLL(str(RUNTIME))
        vp, u32, err = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int32()
        for name, res, args in [
            ("clCreateContext", vp, [vp, u32, ctypes.POINTER(vp), vp, vp, ctypes.POINTER(ctypes.c_int32)]),
            ("clCreateCommandQueueWithProperties", vp, [vp, vp, vp, ctypes.POINTER(ctypes.c_int32)]),
            ("clCreateProgramWithIL", vp, [vp, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int32)]),
            ("clBuildProgram", ctypes.c_int32, [vp, u32, ctypes.POINTER(vp), ctypes.c_char_p, vp, vp]),
            ("clCreateKernel", vp, [vp, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32)]),
            ("clSVMAlloc", vp, [vp, ctypes.c_uint64, ctypes.c_size_t, u32]),
            ("clSVMFree", None, [vp, vp]),
            ("clEnqueueSVMMemcpy", ctypes.c_int32, [vp, u32, vp, vp, ctypes.c_size_t, u32, vp, vp]),
            ("clSetKernelArgSVMPointer", ctypes.c_int32, [vp, u32, vp]),
            ("clSetKernelArg", ctypes.c_int32, [vp, u32, ctypes.c_size_t, vp]),
            ("clEnqueueNDRangeKernel", ctypes.c_int32,
             [vp, vp, u32, vp, ctypes.POINTER(ctypes.c_size_t), vp, u32, vp, vp]),
            ("clFinish", ctypes.c_int32, [vp]),
            ("clGetPlatformIDs", ctypes.c_int32, [u32, ctypes.POINTER(vp), ctypes.POINTER(u32)]),
            ("clGetDeviceIDs", ctypes.c_int32, [vp, ctypes.c_uint64, u32, ctypes.POINTER(vp), ctypes.POINTER(u32)]),
        ]:
            getattr(cl, name).restype, getattr(cl, name).argtypes = res, args
        platform, device = vp(), vp()
        assert cl.clGetPlatformIDs(1, ctypes.byref(platform), None) == 0
        assert cl.clGetDeviceIDs(platform, 0xFFFFFFFF, 1, ctypes.byref(device), None) == 0
        self.context = cl.clCreateContext(None, 1, ctypes.byref(device), None, None, ctypes.byref(err))
        assert err.value == 0
        self.queue = cl.clCreateCommandQueueWithProperties(self.context, device, None, ctypes.byref(err))
        assert err.value == 0
        program = cl.clCreateProgramWithIL(self.context, il, len(il), ctypes.byref(err))
        assert err.value == 0, f"clCreateProgramWithIL: {err.value}"
        assert cl.clBuildProgram(program, 1, ctypes.byref(device), b"", None, None) == 0
        self.kernels = {}
        for name in ("unary_f32", "binary_f32", "ternary_f32"):
            self.kernels[name] = cl.clCreateKernel(program, name.encode(), ctypes.byref(err))
            assert err.value == 0, name

    def run(self, arity, op, inputs, s0=0.0, mode=0, s1=0.0, s2=0.0):
        """out = op(*inputs) on the device, float32 and contiguous, through the module's kernel of that arity; the
        op's own scalars travel as kernel_layouts.h's FloatParams (s0, s1, s2, mode)."""
        cl, n = self.cl, inputs[0].numel()
        buffers = []
        for t in [*inputs, inputs[0]]:  # the last one receives the output
            p = cl.clSVMAlloc(self.context, 1, t.numel() * 4, 0)
            assert p
            assert cl.clEnqueueSVMMemcpy(self.queue, 1, p, t.contiguous().data_ptr(), n * 4, 0, None, None) == 0
            buffers.append(p)
        kernel = self.kernels[("unary_f32", "binary_f32", "ternary_f32")[arity - 1]]
        for i, p in enumerate(buffers):
            assert cl.clSetKernelArgSVMPointer(kernel, i, p) == 0
        params = FloatParams(s0, s1, s2, mode)
        scalars = [ctypes.c_uint64(n), ctypes.c_int32(op), params]
        for j, s in enumerate(scalars):
            assert cl.clSetKernelArg(kernel, len(buffers) + j, ctypes.sizeof(s), ctypes.byref(s)) == 0
        size = ctypes.c_size_t(n)
        assert cl.clEnqueueNDRangeKernel(self.queue, kernel, 1, None, ctypes.byref(size), None, 0, None, None) == 0
        out = torch.empty(n, dtype=torch.float32)
        assert cl.clEnqueueSVMMemcpy(self.queue, 1, out.data_ptr(), buffers[-1], n * 4, 0, None, None) == 0
        assert cl.clFinish(self.queue) == 0
        for p in buffers:
            cl.clSVMFree(self.context, p)
        return out


@pytest.fixture(scope="module")
def device(module):
    opencl_cpu_runtime()
    return Device(module)


def values(seed, n=4099, low=-4.0, high=4.0):
    g = torch.Generator().manual_seed(seed)
    x = torch.empty(n).uniform_(low, high, generator=g)
    x[:4] = torch.tensor([0.0, -0.0, float("nan"), 2.5])  # signed zeros, NaN and a halfway value
    return x


UNARY = {
    "EXP": torch.exp, "TANH": torch.tanh, "SIGMOID": torch.sigmoid, "RELU": torch.relu, "NEG": torch.neg,
    "ABS": torch.abs, "ERF": torch.erf, "SILU": torch.nn.functional.silu, "ROUND": torch.round,
    "SIGN": torch.sign, "FLOOR": torch.floor, "SQUARE": torch.square, "SIN": torch.sin, "EXPM1": torch.expm1,
    "GELU": torch.nn.functional.gelu,
    "ASIN": torch.asin, "ACOS": torch.acos, "ATAN": torch.atan, "SINH": torch.sinh, "COSH": torch.cosh,
    "TAN": torch.tan, "ASINH": torch.asinh, "ACOSH": torch.acosh, "ATANH": torch.atanh, "LOG10": torch.log10,
    "ERFC": torch.erfc, "LGAMMA": torch.lgamma, "SINC": torch.sinc, "FRAC": torch.frac,
    "MISH": torch.nn.functional.mish, "LOG_SIGMOID": torch.nn.functional.logsigmoid,
    "ENTR": torch.special.entr, "ANGLE": torch.angle, "SIGNBIT": lambda x: torch.signbit(x).float(),
}
# Ops with their own scalars: (reference, s0, s1, s2, mode).
UNARY_WITH_SCALARS = {
    "SOFTPLUS": (lambda x: torch.nn.functional.softplus(x, beta=2.0, threshold=3.0), 2.0, 3.0, 0.0, 0),
    "ELU": (lambda x: torch.ops.aten.elu(x, 0.7, 1.2, 0.9), 0.7, 1.2, 0.9, 0),
    "LOGIT": (lambda x: torch.logit(x, eps=0.1), 0.1, 0.0, 0.0, 0),
    "SOFTSHRINK": (lambda x: torch.nn.functional.softshrink(x, 0.5), 0.5, 0.0, 0.0, 0),
    "HARDSHRINK": (lambda x: torch.nn.functional.hardshrink(x, 0.5), 0.5, 0.0, 0.0, 0),
    "NAN_TO_NUM": (lambda x: torch.nan_to_num(x, nan=1.5, posinf=7.0, neginf=-7.0), 1.5, 7.0, -7.0, 0),
}
BINARY = {
    "ADD": (lambda a, b: torch.add(a, b, alpha=2.0), 2.0, 0), "SUB": (torch.sub, 1.0, 0), "MUL": (torch.mul, 0, 0),
    "DIV": (torch.div, 0, 0), "DIV_FLOOR": (lambda a, b: torch.div(a, b, rounding_mode="floor"), 0, 2),
    "MAXIMUM": (torch.maximum, 0, 0), "MINIMUM": (torch.minimum, 0, 0), "ATAN2": (torch.atan2, 0, 0),
    "REMAINDER": (torch.remainder, 0, 0), "FMOD": (torch.fmod, 0, 0),
    "LT": (lambda a, b: (a < b).float(), 0, 0), "EQ": (lambda a, b: (a == b).float(), 0, 0),
    "LOGADDEXP": (torch.logaddexp, 0, 0), "LOGADDEXP2": (torch.logaddexp2, 0, 0), "XLOGY": (torch.xlogy, 0, 0),
    "XLOG1PY": (torch.special.xlog1py, 0, 0), "COPYSIGN": (torch.copysign, 0, 0), "FMAX": (torch.fmax, 0, 0),
    "FMIN": (torch.fmin, 0, 0), "HEAVISIDE": (torch.heaviside, 0, 0), "HYPOT": (torch.hypot, 0, 0),
    "LOG-SIGMOID-BACKWARD": (lambda g, x: g * torch.sigmoid(-x), 0, 0),  # d/dx log(sigmoid(x)) = sigmoid(-x)
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_match_pytorch(device, name):
    x = values(1)
    got = device.run(1, OPS[name], [x])
    torch.testing.assert_close(got, UNARY[name](x), rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_match_pytorch(device, name):
    a, b = values(2), values(3)
    b[b.abs() < 0.1] = 0.5  # no division blow-ups near zero; exact zeros stay in a
    fn, s0, mode = BINARY[name]
    op = name.split("_")[0].replace("-", "_")  # DIV_FLOOR is DIV with a mode; LOG-SIGMOID-BACKWARD one op
    got = device.run(2, OPS[op], [a, b], s0=s0, mode=mode)
    torch.testing.assert_close(got, fn(a, b), rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(UNARY_WITH_SCALARS))
def test_unary_ops_with_their_scalars_match_pytorch(device, name):
    """The ops whose own scalars fill more of FloatParams than s0: their order must match the host's."""
    x = values(7, low=-0.2, high=1.2) if name == "LOGIT" else values(7)
    x[4:7] = torch.tensor([float("inf"), float("-inf"), 0.5])
    fn, s0, s1, s2, mode = UNARY_WITH_SCALARS[name]
    got = device.run(1, OPS[name], [x], s0=s0, s1=s1, s2=s2, mode=mode)
    torch.testing.assert_close(got, fn(x), rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("is_result", [0, 1])
def test_elu_backward_reads_all_four_scalars(device, is_result):
    grad, x = values(8), values(9)
    got = device.run(2, OPS["ELU_BACKWARD"], [grad, x], s0=0.7, s1=1.2, s2=0.9, mode=is_result)
    want = torch.ops.aten.elu_backward(grad, 0.7, 1.2, 0.9, bool(is_result), x)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


def test_ternary_ops_match_pytorch(device):
    a, b, c = values(4), values(5), values(6, low=0.0, high=1.0)
    torch.testing.assert_close(device.run(3, OPS["WHERE"], [a, b, c]), torch.where(a != 0, b, c), equal_nan=True)
    torch.testing.assert_close(device.run(3, OPS["ADDCMUL"], [a, b, c], s0=0.5),
                               torch.addcmul(a, b, c, value=0.5), equal_nan=True)
    torch.testing.assert_close(device.run(3, OPS["LERP"], [a, b, c]), torch.lerp(a, b, c), equal_nan=True)
