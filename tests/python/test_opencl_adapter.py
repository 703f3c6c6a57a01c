"""The OpenCL adapter (vendor_adapters/opencl) on Intel's OpenCL runtime for CPUs, a real OpenCL 3.0
implementation that scripts/setup.sh --tests unpacks under build/opencl_runtime: discovery and the opt-in for
CPU devices, shared virtual memory, copies, streams, events, out of memory, the SPIR-V kernels
(vendor_adapters/spirv_kernels: elementwise ops with broadcasting, scalar operands and bool or integer operands,
int64 integer arithmetic, fill, arange, GEMM, reductions, softmax, nll_loss, convolution, pooling, batch norm, layer
norm, index_select, embedding backward, tril/triu) each compared with PyTorch's CPU ops in strict mode (no CPU
fallback), an MLP's, a convnet's and the benchmarks' MiniGPT's training steps that run on them alone, and the
conformance suite. Each case runs in a fresh interpreter, since which devices exist is fixed at import. What the
SPIR-V kernels do not take yet (float16, bfloat16 and float64, integer arithmetic other than int64's, other op
families) runs through the counted CPU fallback."""
import os
import re
import subprocess
import sys

import pytest

from conftest import OPENCL_CPU_RUNTIME as RUNTIME
from conftest import REPO_ROOT, opencl_cpu_runtime, run_python

ON_CPU = {"TORCH_HAL_OPENCL_LIBRARY": str(RUNTIME), "TORCH_HAL_OPENCL_DEVICES": "cpu"}


@pytest.fixture
def runtime():
    return opencl_cpu_runtime()


def adapter_line(**env):
    result = run_python("import torch_hal\nprint([a for a in torch_hal.adapters() if a.name == 'opencl'][0])", **env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_without_a_runtime_the_adapter_says_what_to_install():
    out = adapter_line(TORCH_HAL_OPENCL_LIBRARY="/nonexistent/libOpenCL.so.1")
    assert "state='unavailable'" in out and "/nonexistent/libOpenCL.so.1" in out
    assert "TORCH_HAL_OPENCL_LIBRARY" in out and "intel-opencl-rt" in out


def test_a_bad_device_choice_is_named(runtime):
    out = adapter_line(TORCH_HAL_OPENCL_LIBRARY=str(runtime), TORCH_HAL_OPENCL_DEVICES="cpus")
    assert "TORCH_HAL_OPENCL_DEVICES='cpus' is not a device choice" in out


def test_the_cpu_is_left_to_the_host_device_unless_asked_for(runtime):
    out = adapter_line(TORCH_HAL_OPENCL_LIBRARY=str(runtime))
    assert "state='unavailable'" in out and "which the host device serves" in out
    assert "TORCH_HAL_OPENCL_DEVICES=cpu" in out


def run_on_opencl(code):
    result = run_python(code, **ON_CPU)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    return result.stdout


def test_properties_and_device_order(runtime):
    out = run_on_opencl("""
import torch, torch_hal
p = torch.hal.get_device_properties(0)
print(p.adapter, p.vendor, p.arch_name, p.multi_processor_count > 0, p.total_memory > 0, p.host_accessible)
print("fp64", p.supports_fp64, "threads", p.max_threads_per_block > 0)
print(torch.hal.device_count(), torch.hal.get_device_properties(1).adapter)
""")
    assert "opencl opencl opencl-cpu True True False" in out  # SVM: the core copies, never dereferences
    assert "fp64 True threads True" in out
    assert "2 host" in out  # the host reference device stays last


def test_copies_of_every_size_and_direction_keep_every_byte(runtime):
    out = run_on_opencl("""
import torch, torch_hal
for n in (1, 7, 4096, 1 << 20, (1 << 22) + 3):
    x = torch.randint(0, 256, (n,), dtype=torch.uint8)
    d = x.to("hal:0")
    assert torch.equal(d.cpu(), x), n                      # pageable, blocking
    pinned = x.pin_memory("hal")
    d2 = pinned.to("hal:0", non_blocking=True)           # pinned, in stream order
    back = torch.empty_like(pinned).pin_memory("hal")
    back.copy_(d2, non_blocking=True)
    torch.hal.synchronize()
    assert torch.equal(back, x), n
    e = d.clone()                                        # device to device
    assert torch.equal(e.cpu(), x), n
    z = torch.zeros(n, dtype=torch.uint8, device="hal:0")  # memset
    assert int(z.cpu().sum()) == 0
    h = d.to("hal:1")                                    # across adapters, through the host
    assert torch.equal(h.cpu(), x)
print("copies ok")
""")
    assert "copies ok" in out


def test_streams_order_work_and_events_time_it(runtime):
    out = run_on_opencl("""
import torch, torch_hal
x = torch.randn(1 << 22)
d = torch.empty_like(x, device="hal:0")
s = torch.hal.Stream(device="hal:0")
start, end = torch.hal.Event(enable_timing=True), torch.hal.Event(enable_timing=True)
with torch.hal.stream(s):
    start.record()
    d.copy_(x.pin_memory("hal"), non_blocking=True)
    end.record()
torch.hal.current_stream().wait_event(end)
y = d.cpu()
end.synchronize()
assert end.query() and s.query()
assert torch.equal(y, x)
print("elapsed", start.elapsed_time(end) >= 0)
""")
    assert "elapsed True" in out


def test_out_of_memory_is_a_clear_error(runtime):
    out = run_on_opencl("""
import torch, torch_hal
total = torch.hal.get_device_properties(0).total_memory
try:
    torch.empty(total * 4, dtype=torch.uint8, device="hal:0")
except torch.OutOfMemoryError as e:
    print("OOM", "hal:0" in str(e))
x = torch.ones(10, device="hal:0")
print("still works", x.sum().item())
""")
    assert "OOM True" in out and "still works 10.0" in out


def test_elementwise_ops_run_as_spirv_kernels_in_strict_mode(runtime):
    out = run_on_opencl("""
import torch, torch_hal
import torch.nn.functional as F
g = torch.Generator().manual_seed(0)
a, b, c = torch.randn(1000, generator=g), torch.randn(1000, generator=g), torch.rand(1000, generator=g)
b[b.abs() < 0.1] = 0.5
da, db, dc = a.to("hal:0"), b.to("hal:0"), c.to("hal:0")
torch.hal.reset_fallback_stats()
with torch.hal.strict():
    pairs = {
        "add": (torch.add(da, db, alpha=2), torch.add(a, b, alpha=2)),
        "sub": (da - db, a - b), "mul": (da * db, a * b), "div": (da / db, a / b),
        "floor_divide": (torch.div(da, db, rounding_mode="floor"), torch.div(a, b, rounding_mode="floor")),
        "maximum": (torch.maximum(da, db), torch.maximum(a, b)), "exp": (da.exp(), a.exp()),
        "tanh": (da.tanh(), a.tanh()), "relu": (torch.relu(da), torch.relu(a)), "sigmoid": (da.sigmoid(), a.sigmoid()),
        "gelu": (F.gelu(da), F.gelu(a)), "gelu_tanh": (F.gelu(da, approximate="tanh"), F.gelu(a, approximate="tanh")),
        "silu": (F.silu(da), F.silu(a)), "lerp": (torch.lerp(da, db, dc), torch.lerp(a, b, c)),
        "addcmul": (torch.addcmul(da, db, dc, value=0.5), torch.addcmul(a, b, c, value=0.5)),
    }
    x = da.clone()
    x.mul_(db)  # in place: the output is an input
    pairs["mul_"] = (x, a * b)
for name, (got, want) in pairs.items():
    torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-6, msg=name)
print("native", dict(torch.hal.fallback_stats()))
""")
    assert "native {}" in out, out


def test_conformance_suite_on_the_opencl_cpu_device(runtime):
    # In strict mode: every op of the suite runs as a SPIR-V kernel on the OpenCL device (a fallback would raise).
    env = dict(os.environ, **ON_CPU, TORCH_HAL_STRICT="1")
    out = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/conformance"],
                         capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=600)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]
    # Every test, each dtype and layout, passed on the OpenCL device as on the host device (counting the test ids
    # of PASSED lines: fallback warnings, now gone, used to repeat ids in the warnings summary).
    passed = {dev: len(re.findall(rf"\[{dev}[^\]]*\] PASSED", out.stdout)) for dev in ("hal:0-opencl", "hal:1-host")}
    assert passed["hal:0-opencl"] >= 33 and passed["hal:0-opencl"] == passed["hal:1-host"], passed


# Each per-op case below runs its ops on the OpenCL device under torch.hal.strict() (a fallback would raise) and
# prints the fallback counters, which must stay empty; results are compared with the same ops on CPU tensors.
# Float32 tolerances: the kernels sum in another order than ATen's CPU kernels (GEMM tiles of 16, work-group
# trees), which moves a sum of K terms by a few ulps of its largest partial sums, hence rtol 1e-5 and an atol
# that covers results near zero (cancellation).
OPS_PRELUDE = """
import torch, torch_hal
import torch.nn.functional as F
d = "hal:0"
g = torch.Generator().manual_seed(0)
def r(*shape):
    return torch.randn(shape, generator=g)
def check(name, got, want, rtol=1e-5, atol=1e-5):
    assert got.device.type == "hal", name
    torch.testing.assert_close(got.cpu(), want, rtol=rtol, atol=atol, equal_nan=True, msg=name)
torch.hal.reset_fallback_stats()
"""


def run_ops_strictly(body):
    indented = "\n".join("    " + line for line in body.strip("\n").splitlines())
    out = run_on_opencl(OPS_PRELUDE + "with torch.hal.strict():\n" + indented +
                        "\nprint('fallbacks', dict(torch.hal.fallback_stats()))\n")
    assert "fallbacks {}" in out, out


def test_gemm_with_transposed_operands_alpha_beta_and_batches(runtime):
    run_ops_strictly("""
for m, k, n in [(1, 1, 1), (17, 33, 65), (64, 16, 3), (33, 100, 1), (5, 0, 7)]:  # odd sizes, tile edges, K = 0
    a, b, c, bias = r(m, k), r(k, n), r(m, n), r(n)
    da, db = a.to(d), b.to(d)
    check(f"mm {m}x{k}x{n}", da @ db, a @ b)
    at, bt = a.t().contiguous(), b.t().contiguous()  # column-major operands: transposed views
    check(f"mm of transposes {m}x{k}x{n}", at.to(d).t() @ bt.to(d).t(), a @ b)
    check(f"addmm {m}x{k}x{n}", torch.addmm(c.to(d), da, db, beta=0.5, alpha=-2.0),
          torch.addmm(c, a, b, beta=0.5, alpha=-2.0))
    check(f"linear bias {m}x{k}x{n}", torch.addmm(bias.to(d), da, db), torch.addmm(bias, a, b))
c = r(9, 13)
c[0, 0] = float("nan")
a, b = r(20, 9), r(13, 20)
check("beta 0 ignores NaN in c", torch.addmm(c.to(d), a.to(d).t(), b.to(d).t(), beta=0),
      torch.addmm(c, a.t(), b.t(), beta=0))
inplace = c.to(d)
inplace.addmm_(a.to(d).t(), b.to(d).t(), beta=0.25, alpha=3)  # c is the output
check("addmm_", inplace, torch.addmm(c, a.t(), b.t(), beta=0.25, alpha=3))
A, B, C = r(4, 5, 6), r(4, 6, 3), r(4, 5, 3)
check("bmm", torch.bmm(A.to(d), B.to(d)), torch.bmm(A, B))
check("bmm of transposes", torch.bmm(A.transpose(1, 2).contiguous().to(d).transpose(1, 2), B.to(d)), torch.bmm(A, B))
check("baddbmm", torch.baddbmm(C.to(d), A.to(d), B.to(d), beta=2, alpha=0.5), torch.baddbmm(C, A, B, beta=2, alpha=0.5))
check("matmul 3-D by 2-D", A.to(d) @ B[0].to(d), A @ B[0])
big_a, big_b = r(70, 300), r(300, 40)
check("K = 300", big_a.to(d) @ big_b.to(d), big_a @ big_b, rtol=1e-4, atol=1e-4)  # 300 terms of size ~1
""")


def test_reductions_over_several_dims_and_strides(runtime):
    run_ops_strictly("""
x, y = r(6, 7, 8), r(300, 5)
x[0, 0, 0] = float("nan")
xd, yd = x.to(d), y.to(d)
check("sum dim 0", yd.sum(0), y.sum(0))
check("sum dim 1", yd.sum(1), y.sum(1))
check("sum of all", yd.sum(), y.sum(), atol=1e-4)
check("sum dims 0 and 2 of a slice", xd[1:].sum((0, 2)), x[1:].sum((0, 2)))
check("sum keepdim of a transpose", yd.t().sum(1, keepdim=True), y.t().sum(1, keepdim=True))
check("mean dim 0", yd.mean(0), y.mean(0))
check("mean of all", yd.mean(), y.mean())
check("prod", (yd[:10] * 0.5 + 1).prod(0), (y[:10] * 0.5 + 1).prod(0))
check("amax with NaN", xd.amax((1, 2)), x.amax((1, 2)))
check("amin with NaN", xd.amin(0), x.amin(0))
check("amax of a transpose", xd.transpose(0, 2).amax(1), x.transpose(0, 2).amax(1))
long_row = r(3, 5000)
check("sum of rows longer than a work-group", long_row.to(d).sum(1), long_row.sum(1), atol=1e-4)
z = x.clone()
z[0, 0, 0] = 0.5  # no NaN: the norms' NaN rule is ATen's, checked on the GPUs
zd = z.to(d)
for ord in (2, 1, 0, 3.5, float("inf"), float("-inf")):
    check(f"vector_norm ord {ord} over dims 1, 2", torch.linalg.vector_norm(zd, ord, (1, 2)),
          torch.linalg.vector_norm(z, ord, (1, 2)), atol=1e-4)
check("vector_norm of a transpose", torch.linalg.vector_norm(yd.t(), dim=1), torch.linalg.vector_norm(y.t(), dim=1))
params = [torch.nn.Parameter(r(40, 30).to(d)), torch.nn.Parameter(r(30).to(d))]
cpu_params = [torch.nn.Parameter(p.detach().cpu()) for p in params]
for p, q in zip(params, cpu_params):
    grad = r(*p.shape)
    p.grad, q.grad = grad.to(d), grad
total = torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=False)
check("clip_grad_norm_ total", total, torch.nn.utils.clip_grad_norm_(cpu_params, 1.0, foreach=False))
for p, q in zip(params, cpu_params):
    check("clip_grad_norm_ scaled gradient", p.grad, q.grad)
""")


def test_softmax_and_log_softmax_forward_and_backward_over_every_dim(runtime):
    run_ops_strictly("""
for dim in (0, 1, -1):
    z = r(4, 300, 5)  # dim 1: lines longer than a work-group
    z[0, 0, 0] = 30.0  # a large logit: the maximum must be subtracted
    for f in (F.softmax, F.log_softmax):
        zd, zc = z.to(d).requires_grad_(), z.clone().requires_grad_()
        yd, yc = f(zd, dim), f(zc, dim)
        check(f"{f.__name__} dim {dim}", yd, yc)
        gy = r(*z.shape)
        (gd,), (gc,) = torch.autograd.grad(yd, zd, gy.to(d)), torch.autograd.grad(yc, zc, gy)
        check(f"{f.__name__} backward dim {dim}", gd, gc)
""")


def test_convolutions_forward_and_backward_run_the_librarys_kernel(runtime):
    # The convolution family's kernel body is the library's (gpu_kernels/kernels/convolution_gemm.cuh, also what
    # the CUDA and HIP kernels compile): 1-3 spatial dims, groups, stride, padding, dilation, channels-last,
    # transposed convolution, and the three gradients, each against the CPU. The tolerance is float32's: a few
    # ulps relative, and an absolute term that grows with the reduction length of the GEMM behind each result.
    run_ops_strictly("""
eps = torch.finfo(torch.float32).eps
def conv_case(name, f, x, w, b, **kw):
    xd, wd, bd = (t.to(d).requires_grad_() for t in (x, w, b))
    xc, wc, bc = (t.clone().requires_grad_() for t in (x, w, b))
    yd, yc = f(xd, wd, bd, **kw), f(xc, wc, bc, **kw)
    # The longest reduction of the three GEMMs: a filter's inputs (forward), its outputs (dx), the batch's output
    # points (dw). A sum of K terms of size ~1 rounds to within about K * eps.
    k = max(w[0].numel(), w.shape[0] * w[0, 0].numel(), yc.numel() // yc.shape[1])
    tol = dict(rtol=8 * eps, atol=4 * eps * k)
    check(name, yd, yc.detach(), **tol)
    gy = r(*yc.shape)
    gd = torch.autograd.grad(yd, (xd, wd, bd), gy.to(d))
    gc = torch.autograd.grad(yc, (xc, wc, bc), gy)
    for part, a, b_ in zip(("dx", "dw", "db"), gd, gc):
        check(f"{name} {part}", a, b_, **tol)
conv_case("conv1d stride 2 pad 1", F.conv1d, r(2, 3, 17), r(4, 3, 3), r(4), stride=2, padding=1)
conv_case("conv2d 3x3 pad 1", F.conv2d, r(2, 3, 9, 10), r(5, 3, 3, 3), r(5), padding=1)
conv_case("conv2d stride 2 dilation 2", F.conv2d, r(1, 4, 13, 11), r(6, 4, 3, 2), r(6), stride=2, dilation=2)
conv_case("conv2d groups 2", F.conv2d, r(2, 4, 8, 8), r(6, 2, 3, 3), r(6), padding=1, groups=2)
conv_case("conv2d depthwise", F.conv2d, r(2, 8, 7, 7), r(8, 1, 3, 3), r(8), padding=1, groups=8)
conv_case("conv2d 1x1, 70 channels (tile edges)", F.conv2d, r(3, 70, 5, 5), r(67, 70, 1, 1), r(67))
conv_case("conv3d", F.conv3d, r(1, 2, 5, 6, 7), r(3, 2, 2, 3, 3), r(3), stride=(1, 2, 1), padding=(1, 0, 1))
conv_case("conv_transpose2d stride 2", F.conv_transpose2d, r(2, 4, 5, 6), r(4, 3, 3, 3), r(3), stride=2, padding=1,
          output_padding=1)
x, w = r(2, 6, 9, 9).to(memory_format=torch.channels_last), r(8, 6, 3, 3).to(memory_format=torch.channels_last)
check("conv2d channels-last", F.conv2d(x.to(d), w.to(d), padding=1), F.conv2d(x, w, padding=1), rtol=8 * eps,
      atol=1e-5)
""")


def test_layer_norm_forward_and_backward_run_the_librarys_kernel_bodies(runtime):
    # The layer norm family's kernel bodies are the library's (gpu_kernels/kernels/layer_norm_rows.cuh, also what the
    # CUDA and HIP kernels compile): normalized shapes of one or more dims, rows longer than a work-group, with and
    # without weight and bias, and the three gradients. Tolerances: a few float32 ulps relative, and an absolute
    # term that grows with the length of the sums behind each result (N for y and dx, the M rows for dweight/dbias).
    run_ops_strictly("""
eps = torch.finfo(torch.float32).eps
def ln_case(name, shape, normalized, weight=True, bias=True, grads=True):
    x = r(*shape) * 3 + 1
    w = r(*normalized) if weight else None
    b = r(*normalized) if bias else None
    n = 1
    for s in normalized:
        n *= s
    m = x.numel() // n
    cpu = [t.clone().requires_grad_() if t is not None else None for t in (x, w, b)]
    dev = [t.to(d).requires_grad_() if t is not None else None for t in (x, w, b)]
    yc = F.layer_norm(cpu[0], normalized, cpu[1], cpu[2], eps=1e-5)
    yd = F.layer_norm(dev[0], normalized, dev[1], dev[2], eps=1e-5)
    check(name, yd, yc.detach(), rtol=8 * eps, atol=8 * eps * n)
    if not grads:
        return
    gy = r(*shape)
    wanted_c = [t for t in cpu if t is not None]
    wanted_d = [t for t in dev if t is not None]
    gc = torch.autograd.grad(yc, wanted_c, gy)
    gd = torch.autograd.grad(yd, wanted_d, gy.to(d))
    for part, a, b_ in zip(("dx", "dweight", "dbias")[:len(gc)], gd, gc):
        length = n if part == "dx" else m
        check(f"{name} {part}", a, b_, rtol=8 * eps, atol=8 * eps * length)
ln_case("rows of 33", (4, 7, 33), (33,))
ln_case("two normalized dims", (4, 7, 33), (7, 33))
ln_case("rows longer than a work-group", (3, 300), (300,))
ln_case("rows of 1", (5, 1), (1,), grads=False)  # gradients 0 exactly; ATen's CPU rounds to ~rstd * eps
ln_case("no weight, no bias", (6, 40), (40,), weight=False, bias=False)
ln_case("weight, no bias", (6, 40), (40,), bias=False)
ln_case("many rows (column sums over 700 rows)", (700, 48), (48,))
ln_case("forward only", (2, 3, 5), (5,), grads=False)
x = r(8, 20)
check("transposed input (made contiguous)", F.layer_norm(x.to(d).t(), (8,)), F.layer_norm(x.t(), (8,)))
x, w, gy = r(16, 64), r(64), r(16, 64)
wc, wd = w.clone().requires_grad_(), w.to(d).requires_grad_()
(dw_c,) = torch.autograd.grad(F.layer_norm(x, (64,), wc), (wc,), gy)
(dw_d,) = torch.autograd.grad(F.layer_norm(x.to(d), (64,), wd), (wd,), gy.to(d))  # dx not wanted: column sums only
check("dweight alone", dw_d, dw_c, rtol=8 * eps, atol=8 * eps * 16)
""")


def test_index_select_and_embedding_forward_and_backward(runtime):
    # INDEX_SELECT copies raw elements (any dtype; exact), EMBEDDING_BACKWARD adds rows with float32 atomics (the
    # library's bodies: gpu_kernels/kernels/indexing_elements.cuh, embedding_accumulate.cuh): repeated indices,
    # padding_idx, int32 and int64 indices, dims other than 0 and strided operands.
    run_ops_strictly("""
eps = torch.finfo(torch.float32).eps
x = r(10, 6)
idx = torch.tensor([3, 0, 3, 9, 3, 1])
for dt in (torch.float32, torch.int64, torch.int32, torch.bool, torch.uint8, torch.int16):
    xt = (x * 10).to(dt)
    for index in (idx, idx.int()):
        assert torch.equal(torch.index_select(xt.to(d), 0, index.to(d)).cpu(), torch.index_select(xt, 0, index)), dt
y = r(4, 9, 5)
for dim in (0, 1, 2, -1):
    k = torch.tensor([2, 0, 2, 1])
    assert torch.equal(torch.index_select(y.to(d), dim, k.to(d)).cpu(), torch.index_select(y, dim, k)), dim
    assert torch.equal(torch.index_select(y.to(d).transpose(0, 2), dim, k.to(d)).cpu(),
                       torch.index_select(y.transpose(0, 2), dim, k)), dim
odd = r(7, 3)  # rows of 12 bytes: copied in 4-byte units
assert torch.equal(odd.to(d)[torch.tensor([6, 6, 0]).to(d)].cpu(), odd[torch.tensor([6, 6, 0])])
assert torch.equal(odd.to(d)[torch.tensor([-1, -7]).to(d)].cpu(), odd[torch.tensor([-1, -7])])  # Python indices
strided_index = torch.tensor([[1, 5], [0, 5], [3, 5]])[:, 0]
assert torch.equal(torch.index_select(odd.to(d), 0, strided_index.to(d)).cpu(),
                   torch.index_select(odd, 0, strided_index))
for padding_idx in (None, 3):
    for index_dtype in (torch.int64, torch.int32):
        tokens = torch.tensor([[3, 1, 3, 7], [0, 3, 7, 7]], dtype=index_dtype)
        wc = r(8, 16).requires_grad_()
        wd = wc.detach().to(d).requires_grad_()
        yc = F.embedding(tokens, wc, padding_idx=padding_idx)
        yd = F.embedding(tokens.to(d), wd, padding_idx=padding_idx)
        assert torch.equal(yd.detach().cpu(), yc.detach())
        gy = r(*yc.shape)
        (gc,) = torch.autograd.grad(yc, wc, gy)
        (gd,) = torch.autograd.grad(yd, wd, gy.to(d))
        check(f"embedding backward padding_idx={padding_idx} {index_dtype}", gd, gc, rtol=4 * eps, atol=4 * eps * 8)
many = torch.randint(0, 5, (3000,), generator=g)  # hundreds of adds per row
grad = r(3000, 4)
check("embedding_dense_backward, 3000 rows into 5",
      torch.ops.aten.embedding_dense_backward(grad.to(d), many.to(d), 5, -1, False),
      torch.ops.aten.embedding_dense_backward(grad, many, 5, -1, False), rtol=4 * eps, atol=4 * eps * 3000)
check("embedding_dense_backward of a transposed grad",
      torch.ops.aten.embedding_dense_backward(grad.t().contiguous().to(d).t(), many.to(d), 5, 2, False),
      torch.ops.aten.embedding_dense_backward(grad, many, 5, 2, False), rtol=4 * eps, atol=4 * eps * 3000)
""")


def test_where_comparisons_and_all_any_take_bool_and_integer_operands(runtime):
    # Operands of other dtypes beside a float32 one (a bool condition or result, integer inputs) take the typed
    # elementwise kernels, which compute in float32 as CUDA's do; ALL and ANY take any of those dtypes. Results are
    # exact (selections, comparisons, 0/1 logic).
    run_ops_strictly("""
a, b = r(6, 7), r(6, 7)
a[0, 0], a[1, 1], a[2, 2] = float("-inf"), float("inf"), float("nan")
cond = a > b
ad, bd, cd = a.to(d), b.to(d), cond.to(d)
def same(name, got, want):
    assert got.device.type == "hal" and got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert torch.equal(got.cpu(), want) or torch.allclose(got.cpu(), want, equal_nan=True), name
same("gt", ad > bd, cond)
same("eq with a scalar", ad == 0.5, a == 0.5)
same("isneginf", torch.isneginf(ad), torch.isneginf(a))
same("isposinf", torch.isposinf(ad), torch.isposinf(a))
same("isnan", torch.isnan(ad), torch.isnan(a))
same("where", torch.where(cd, ad, bd), torch.where(cond, a, b))
same("where, broadcast condition", torch.where(cd[:, :1], ad, bd), torch.where(cond[:, :1], a, b))
same("where, scalar other", torch.where(cd, ad, 0.0), torch.where(cond, a, 0.0))
same("where, 0-dim tensors", torch.where(cd, torch.tensor(1.0).to(d), torch.tensor(-1.0).to(d)),
     torch.where(cond, torch.tensor(1.0), torch.tensor(-1.0)))
same("masked_fill", ad.masked_fill(cd, float("-inf")), a.masked_fill(cond, float("-inf")))
m = ad.clone()
m.masked_fill_(cd.t().contiguous().t(), 2.0)  # a strided mask
same("masked_fill_ in place", m, a.masked_fill(cond, 2.0))
same("bool to float", cd.float(), cond.float())
same("float to bool", ad.bool(), a.bool())
ints = torch.randint(-5, 5, (6, 7), generator=g)
same("int64 times float", ints.to(d) * bd, ints * b)
finite = (a * 3).nan_to_num(0.0, 9.0, -9.0)
same("float to int32 (truncated)", finite.to(d).int(), finite.int())
same("float to uint8", finite.abs().to(d).to(torch.uint8), finite.abs().to(torch.uint8))
for dim in (0, 1, -1):
    same(f"all dim {dim}", torch.all(cd, dim), torch.all(cond, dim))
    same(f"any dim {dim}", torch.any(cd, dim), torch.any(cond, dim))
    same(f"all keepdim of isneginf dim {dim}", torch.isneginf(ad).all(dim, keepdim=True),
         torch.isneginf(a).all(dim, keepdim=True))
same("all", cd.all(), cond.all())
zeros_and_nan = torch.zeros(6, 7)
zeros_and_nan[3, 4] = float("nan")
same("any of float (NaN is nonzero)", zeros_and_nan.to(d).any(1), zeros_and_nan.any(1))
same("all of float", (a + 10).to(d).all(0), (a + 10).all(0))
same("all of a transpose", cd.t().all(1), cond.t().all(1))
same("all of int64", ints.to(d).all(1), ints.all(1))
u8 = (ints > 0).to(torch.uint8)
same("all of uint8 (uint8 result)", u8.to(d).all(0), u8.all(0))
rows = torch.ones(3, 4, dtype=torch.bool)
rows[1, 2] = False
same("all of rows with one false", rows.to(d).all(-1), rows.all(-1))
""")


def test_tril_triu_and_arange(runtime):
    # TRIL/TRIU copy raw elements (any dtype, strided, in place; the library's rule, triangle.cuh); ARANGE into
    # float32, int64 and int32 (float32 in float, as CUDA computes it: a few ulps from the CPU's double).
    run_ops_strictly("""
x = r(2, 5, 7)
for diagonal in (-2, -1, 0, 1, 3, 9):
    for dt in (torch.float32, torch.bool, torch.int64, torch.int16):
        xt = (x * 4).to(dt)
        assert torch.equal(torch.tril(xt.to(d), diagonal).cpu(), torch.tril(xt, diagonal)), (diagonal, dt)
        assert torch.equal(torch.triu(xt.to(d), diagonal).cpu(), torch.triu(xt, diagonal)), (diagonal, dt)
assert torch.equal(torch.tril(x.to(d).transpose(1, 2)).cpu(), torch.tril(x.transpose(1, 2)))
inplace = x.to(d)
inplace.tril_(1)
assert torch.equal(inplace.cpu(), torch.tril(x, 1))
mask = torch.ones(16, 16, dtype=torch.bool, device=d).tril()
assert torch.equal(mask.cpu(), torch.ones(16, 16, dtype=torch.bool).tril())
for args in ((10,), (3, 17), (-4, 9, 3), (20, 2, -3)):
    for dt in (torch.int64, torch.int32):
        assert torch.equal(torch.arange(*args, dtype=dt, device=d).cpu(), torch.arange(*args, dtype=dt)), (args, dt)
check("arange float32", torch.arange(-3.0, 40.0, 0.7, device=d), torch.arange(-3.0, 40.0, 0.7), rtol=4e-7, atol=1e-6)
out = torch.empty(10, 2, device=d, dtype=torch.int64)[:, 0]  # a strided out=
torch.arange(10, out=out)
assert torch.equal(out.cpu(), torch.arange(10))
""")


def test_pooling_forward_and_backward_run_the_librarys_kernels(runtime):
    # The pooling family's kernel bodies are the library's (gpu_kernels/kernels/pooling.cuh, also what the CUDA and
    # HIP kernels compile): max pooling with its indices over kernel sizes, strides, padding, dilation and ceil_mode,
    # average and adaptive pooling, contiguous and channels-last, forward and backward, each against the CPU. Max
    # pooling is exact; a gradient or an average sums at most the window's elements, each within a few ulps.
    run_ops_strictly("""
eps = torch.finfo(torch.float32).eps
def pool_case(name, f, x, terms, **kw):
    tol = dict(rtol=8 * eps, atol=4 * eps * terms)
    xd, xc = x.to(d).requires_grad_(), x.clone().requires_grad_()
    yd, yc = f(xd, **kw), f(xc, **kw)
    if isinstance(yc, tuple):
        check(name + " indices", yd[1], yc[1], rtol=0, atol=0)
        yd, yc = yd[0], yc[0]
    check(name, yd, yc.detach(), **tol)
    gy = r(*yc.shape)
    (gd,), (gc,) = torch.autograd.grad(yd, xd, gy.to(d)), torch.autograd.grad(yc, xc, gy)
    check(name + " backward", gd, gc, **tol)
x = r(2, 3, 11, 13)
x[0, 0, 0, :4] = 1.0  # ties: the first index wins
x[1, 2, 5, 5] = float("nan")  # NaN wins
for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(3, 2), stride=(2, 3)),
           dict(kernel_size=3, stride=1, padding=1, dilation=2), dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=2, stride=2, padding=1, ceil_mode=True)):
    pool_case(f"max_pool2d {kw}", F.max_pool2d, x, 9, return_indices=True, **kw)
    pool_case(f"max_pool2d channels-last {kw}", F.max_pool2d, x.to(memory_format=torch.channels_last), 9,
              return_indices=True, **kw)
pool_case("max_pool2d of a 3-D input", F.max_pool2d, x[0], 4, kernel_size=2)
y = r(2, 3, 11, 13)
for kw in (dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
           dict(kernel_size=2, divisor_override=3), dict(kernel_size=3, stride=2, ceil_mode=True)):
    pool_case(f"avg_pool2d {kw}", F.avg_pool2d, y, 9, **kw)
    pool_case(f"avg_pool2d channels-last {kw}", F.avg_pool2d, y.to(memory_format=torch.channels_last), 9, **kw)
for size in ((3, 4), (5, 7)):
    pool_case(f"adaptive_avg_pool2d {size}", F.adaptive_avg_pool2d, y, 20, output_size=size)
    pool_case(f"adaptive_max_pool2d {size}", F.adaptive_max_pool2d, y, 20, output_size=size, return_indices=True)
    pool_case(f"adaptive_max_pool2d channels-last {size}", F.adaptive_max_pool2d,
              y.to(memory_format=torch.channels_last), 20, output_size=size, return_indices=True)
""")


def test_batch_norm_training_and_evaluation_forward_and_backward(runtime):
    # BATCH_NORM's kernels compose the library's batch norm math (gpu_kernels/kernels/batch_norm.cuh, also what the
    # CUDA and HIP kernels compile): training (batch statistics, running statistics updated in place, the variance
    # unbiased) and evaluation (the running ones), with and without affine parameters and running statistics,
    # contiguous and channels-last, 2-D to 5-D, forward and backward, against the CPU. The statistics sum the R = N * S
    # elements of a channel, so the absolute tolerance grows with R.
    run_ops_strictly("""
eps = torch.finfo(torch.float32).eps
def bn_case(name, x, affine, track, training, momentum=0.1):
    C = x.shape[1]
    R = x.numel() // C
    tol = dict(rtol=8 * eps, atol=4 * eps * R)
    w, b = (r(C), r(C)) if affine else (None, None)
    rm, rv = (r(C), torch.rand(C, generator=g) + 0.5) if track else (None, None)
    inputs_c = [x.clone().requires_grad_()] + [t.clone().requires_grad_() for t in (w, b) if t is not None]
    inputs_d = [x.to(d).requires_grad_()] + [t.to(d).requires_grad_() for t in (w, b) if t is not None]
    rm_c, rv_c = (rm.clone(), rv.clone()) if track else (None, None)
    rm_d, rv_d = (rm.to(d), rv.to(d)) if track else (None, None)
    def run(inputs, rmean, rvar):
        wt, bs = (inputs[1], inputs[2]) if affine else (None, None)
        return F.batch_norm(inputs[0], rmean, rvar, wt, bs, training=training, momentum=momentum, eps=1e-5)
    yc, yd = run(inputs_c, rm_c, rv_c), run(inputs_d, rm_d, rv_d)
    check(name, yd, yc.detach(), **tol)
    if track:
        check(name + " running_mean", rm_d, rm_c, **tol)
        check(name + " running_var", rv_d, rv_c, **tol)
    gy = r(*x.shape)
    gd = torch.autograd.grad(yd, inputs_d, gy.to(d))
    gc = torch.autograd.grad(yc, inputs_c, gy)
    for part, a, b_ in zip(("dx", "dweight", "dbias"), gd, gc):
        check(f"{name} {part}", a, b_, **tol)
x4 = r(4, 5, 6, 7) * 2 + 1
for training in (True, False):
    for affine in (True, False):
        for track in (True, False):
            if not training and not track:
                continue  # evaluation needs running statistics
            mode = "training" if training else "evaluation"
            bn_case(f"batch_norm {mode} affine={affine} running={track}", x4, affine, track, training)
bn_case("batch_norm channels-last", x4.to(memory_format=torch.channels_last), True, True, True)
bn_case("batch_norm channels-last evaluation", x4.to(memory_format=torch.channels_last), True, True, False)
bn_case("batch_norm 2-D (BatchNorm1d)", r(9, 3), True, True, True)
bn_case("batch_norm 3-D", r(3, 4, 300), True, True, True)  # a channel longer than a work-group
bn_case("batch_norm 5-D", r(2, 3, 2, 3, 4), False, True, True, momentum=0.3)
m = torch.nn.BatchNorm2d(5).to(d)
m(x4.to(d))
m(x4.to(d))
assert int(m.num_batches_tracked.cpu()) == 2, "num_batches_tracked: an int64 add_ on the device"
""")


def test_int64_elementwise_ops_run_as_spirv_kernels(runtime):
    # The elementwise kernels also run the ops that take integers on int64 tensors (a BatchNorm's num_batches_tracked
    # += 1); other integer dtypes still take the fallback.
    run_ops_strictly("""
a = torch.randint(-1000, 1000, (5, 6), generator=g)
b = torch.randint(1, 50, (6,), generator=g)
ad, bd = a.to(d), b.to(d)
check("add", ad + bd, a + b, rtol=0, atol=0)
check("add alpha", torch.add(ad, bd, alpha=3), torch.add(a, b, alpha=3), rtol=0, atol=0)
check("sub of a transpose", ad.t() - 7, a.t() - 7, rtol=0, atol=0)
check("mul", ad * bd, a * b, rtol=0, atol=0)
check("floor_divide", torch.div(ad, bd, rounding_mode="floor"), torch.div(a, b, rounding_mode="floor"), rtol=0, atol=0)
check("remainder", ad % bd, a % b, rtol=0, atol=0)
check("bitwise_and", ad & bd, a & b, rtol=0, atol=0)
check("maximum", torch.maximum(ad, bd), torch.maximum(a, b), rtol=0, atol=0)
check("neg", -ad, -a, rtol=0, atol=0)
n = torch.zeros((), dtype=torch.int64).to(d)
n.add_(1)
n += 1
check("0-dim add_", n, torch.tensor(2), rtol=0, atol=0)
""")


def test_nll_loss_forward_and_backward_every_reduction_ignore_index_and_weights(runtime):
    run_ops_strictly("""
logp = F.log_softmax(r(10, 7), 1)
target = torch.randint(0, 7, (10,), generator=g)
target[3] = 2
weight = torch.rand(7, generator=g)
for reduction in ("mean", "sum", "none"):
    for ignore_index in (-100, 2):
        for w in (None, weight):
            name = f"nll_loss {reduction} ignore_index={ignore_index} weighted={w is not None}"
            ld, lc = logp.to(d).requires_grad_(), logp.clone().requires_grad_()
            loss_d = F.nll_loss(ld, target.to(d), weight=None if w is None else w.to(d), reduction=reduction,
                                ignore_index=ignore_index)
            loss_c = F.nll_loss(lc, target, weight=w, reduction=reduction, ignore_index=ignore_index)
            check(name, loss_d, loss_c)
            upstream = r(*loss_c.shape)
            (gd,), (gc,) = torch.autograd.grad(loss_d, ld, upstream.to(d)), torch.autograd.grad(loss_c, lc, upstream)
            check(name + " backward", gd, gc)
check("nll_loss of one sample", F.nll_loss(logp[0].to(d), target[0].to(d)), F.nll_loss(logp[0], target[0]))
every_ignored = torch.full((10,), 2)
check("mean over no weight is NaN", F.nll_loss(logp.to(d), every_ignored.to(d), ignore_index=2),
      F.nll_loss(logp, every_ignored, ignore_index=2))
""")


def test_random_draws_are_philox_kernels_deterministic_and_distributed_as_asked(runtime):
    # The SPIR-V random kernels draw from the kernel library's Philox (philox.cuh): one seed, the same tensor; the
    # values follow the asked distribution (bounds far outside sampling noise for these sizes: the standard error
    # of a mean of 3e5 draws is under 0.002 x the spread).
    run_ops_strictly("""
torch.manual_seed(0)
a = torch.randn(1000, 300, device=d)
torch.manual_seed(0)
assert torch.equal(a.cpu(), torch.randn(1000, 300, device=d).cpu()), "one seed, two tensors"
b = torch.randn(1000, 300, device=d)
assert not torch.equal(a.cpu(), b.cpu()), "the generator's offset did not advance"
a = a.cpu()
assert abs(a.mean().item()) < 0.01 and abs(a.std().item() - 1) < 0.01, (a.mean(), a.std())
assert (a.abs() > 3).float().mean().item() < 0.004, "tails of a standard normal: P(|z| > 3) = 0.0027"
t = torch.empty(300, 1000, device=d).t().normal_(2.0, 3.0)  # a transposed output: the strided walk
t = t.cpu()
assert abs(t.mean().item() - 2) < 0.03 and abs(t.std().item() - 3) < 0.03, (t.mean(), t.std())
u = torch.empty(300000, device=d).uniform_(-1, 1).cpu()
assert u.min().item() >= -1 and u.max().item() < 1 and abs(u.mean().item()) < 0.01, (u.min(), u.max(), u.mean())
assert abs((u < 0).float().mean().item() - 0.5) < 0.01
r01 = torch.rand(257, 3, device=d).cpu()
assert r01.min().item() >= 0 and r01.max().item() < 1
""")


def test_dropout_draws_its_mask_and_scales_in_one_kernel(runtime):
    # DROPOUT from the kernel library's draw (dropout_math.cuh): one seed, one mask; the kept fraction within five
    # standard deviations of 1 - p; what is kept scaled by 1 / (1 - p) exactly as the CPU scales it.
    run_ops_strictly("""
x = r(1000, 301)  # an odd element count: a last work-item with fewer than four elements
xd = x.to(d)
torch.manual_seed(3)
y, m = torch.native_dropout(xd, 0.3, True)
torch.manual_seed(3)
y2, m2 = torch.native_dropout(xd, 0.3, True)
assert torch.equal(m.cpu(), m2.cpu()) and torch.equal(y.cpu(), y2.cpu()), "one seed, two masks"
m, y = m.cpu(), y.cpu()
assert m.dtype == torch.bool
kept = m.float().mean().item()
assert abs(kept - 0.7) < 5 * (0.21 / x.numel()) ** 0.5, kept
assert torch.equal(y, x * m * (1 / 0.7)), "dropout output"
g = r(1000, 301)
gx = torch.ops.aten.native_dropout_backward(g.to(d), m.to(d), 1 / 0.7)
check("dropout backward", gx, g * m * (1 / 0.7), rtol=0, atol=0)
""")


def test_fused_optimizers_run_the_librarys_math(runtime):
    # fused=True optimizers: one FUSED_ADAM / FUSED_SGD kernel per parameter from optimizer_math.cuh (the math the
    # CUDA and HIP kernels compile), against PyTorch's CPU fused kernels over three steps. The SPIR-V kernels
    # compute in float32 where ATen's CPU and CUDA kernels keep the hyperparameters in double: a few ulps.
    run_ops_strictly("""
def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(33, 64), torch.nn.Tanh(), torch.nn.Linear(64, 5))
makers = [lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.05, fused=True),
          lambda p: torch.optim.Adam(p, lr=1e-2, amsgrad=True, maximize=True, fused=True),
          lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3, fused=True),
          lambda p: torch.optim.SGD(p, lr=0.05, fused=True)]
for k, make in enumerate(makers):
    cpu_model, dev_model = model(), model().to(d)
    cpu_opt, dev_opt = make(cpu_model.parameters()), make(dev_model.parameters())
    for step in range(3):
        for net, opt in ((cpu_model, cpu_opt), (dev_model, dev_opt)):
            opt.zero_grad()
            for p in net.parameters():  # the same gradients on both sides: the optimizer alone is compared
                grad = torch.full(p.shape, 0.01 * (step + 1)) + torch.arange(p.numel()).view(p.shape) % 7 * 1e-3
                p.grad = grad.to(p.device)
            opt.step()
    for a, e in zip(dev_model.parameters(), cpu_model.parameters()):
        check(f"optimizer {k}", a.detach(), e.detach(), rtol=2e-6, atol=2e-6)
# GradScaler's operands: an unscaled gradient written back, and a step that found_inf skips.
p, gr, ea, es = [r(5, 7)], [r(5, 7) * 4], [torch.zeros(5, 7)], [torch.zeros(5, 7)]
dev = [[t.to(d) for t in ts] for ts in (p, gr, ea, es)]
for found in (0.0, 1.0):
    for tensors, device in (((p, gr, ea, es), "cpu"), (dev, d)):
        torch._fused_adamw_(*tensors, [], [torch.ones((), device=device)], lr=torch.tensor(1e-2, device=device),
                            beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False,
                            grad_scale=torch.tensor([4.0], device=device), found_inf=torch.tensor([found], device=device))
    for a, e in zip(dev, (p, gr, ea, es)):
        check(f"grad scaler, found_inf {found}", a[0], e[0], rtol=2e-6, atol=2e-6)
""")


def test_fill_broadcasts_scalar_operands_and_strided_elementwise(runtime):
    run_ops_strictly("""
f = torch.empty(5, 6, device=d)
f.fill_(2.5)
check("fill", f, torch.full((5, 6), 2.5))
f.t()[1:3].fill_(-1.0)
want = torch.full((5, 6), 2.5)
want.t()[1:3] = -1.0
check("fill of a strided view", f, want)
check("fill int64", torch.empty(4, dtype=torch.int64, device=d).fill_(7), torch.full((4,), 7))
check("zeros bool", torch.zeros(4, dtype=torch.bool, device=d), torch.zeros(4, dtype=torch.bool))
a, b, c = r(5, 6), r(6), r(5, 1)
check("broadcast add", a.to(d) + b.to(d), a + b)
check("broadcast both ways", c.to(d) * b.to(d), c * b)
check("scalar operand", a.to(d) * 0.9, a * 0.9)
check("scalar operand first", 1 - a.to(d), 1 - a)
check("transpose made contiguous", a.to(d).t().contiguous(), a.t().contiguous())
check("strided in, strided out", torch.addcmul(a.to(d).t(), a.to(d).t(), b.to(d)[:, None], value=0.5),
      torch.addcmul(a.t(), a.t(), b[:, None], value=0.5))
x = a.to(d).t()
x.mul_(2.0)  # in place on a transposed view
check("in place on a view", x, a.t() * 2)
""")


# A training step of issue 13's MLP: forward (addmm, relu), cross_entropy (log_softmax, nll_loss), backward
# (mm of transposed operands, sum over the batch for the biases, threshold_backward, the losses' backward), and
# SGD with momentum (foreach ops, run one tensor at a time with scalar operands). The same steps on CPU tensors
# from the same initial weights give the reference. Tolerances: each op differs from ATen's CPU result by a few
# float32 ulps (summation order); over 5 steps with lr 0.1 those differences stay below 1e-5 of values of order 1
# (measured: about 1e-7), so rtol/atol 1e-5 catch any wrong kernel (one wrong gradient element moves the
# parameters by ~1e-2) without flaking on rounding.
MLP = """
import torch, torch_hal
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
cpu = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
dev = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
lr, momentum, steps = 0.1, MOMENTUM, 5
"""

# `cpu` and `dev` (models of one architecture), inputs x and targets y, lr, momentum and steps given: the same
# initial weights, then `steps` SGD steps of cross entropy (over the classes of the logits' last dim, any leading
# dims flattened: a language model's tokens) on each side, the device's in strict mode; the losses and the final
# parameters and buffers (batch norm's running statistics) compared.
STEPS_AGAINST_CPU = """
dev.load_state_dict(cpu.state_dict())
dev = dev.to("hal:0")
xd, yd = x.to("hal:0"), y.to("hal:0")
opt_c = torch.optim.SGD(cpu.parameters(), lr=lr, momentum=momentum)
opt_d = torch.optim.SGD(dev.parameters(), lr=lr, momentum=momentum)
torch.hal.reset_fallback_stats()
def step(model, opt, inp, tgt):
    opt.zero_grad()
    logits = model(inp)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
    loss.backward()
    opt.step()
    return loss.detach()
losses_c, losses_d = [], []
for _ in range(steps):
    losses_c.append(step(cpu, opt_c, x, y))
    with torch.hal.strict():  # any CPU fallback raises
        losses_d.append(step(dev, opt_d, xd, yd))
torch.testing.assert_close(torch.stack([l.cpu() for l in losses_d]), torch.stack(losses_c), rtol=1e-5, atol=1e-5)
for (name, pc), pd in zip(cpu.state_dict().items(), dev.state_dict().values()):
    torch.testing.assert_close(pd.cpu(), pc, rtol=1e-5, atol=1e-5, msg=name)
assert losses_c[-1] < losses_c[0]  # it trains
print("fallbacks", dict(torch.hal.fallback_stats()), "losses", [round(float(l), 4) for l in losses_c])
"""


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_mlp_training_step_runs_on_spirv_kernels_only_and_matches_cpu(runtime, momentum):
    out = run_on_opencl(MLP.replace("MOMENTUM", str(momentum)) + STEPS_AGAINST_CPU)
    assert "fallbacks {}" in out, out


# A few training steps of the built-in convnet (torch_hal/zoo/builtin.py: convolution, BatchNorm2d in training
# with its running statistics and num_batches_tracked, ReLU, max pooling, a global average pool, a linear head, cross
# entropy, SGD with momentum) on the OpenCL device with no CPU fallback at all, against the same steps on CPU tensors.
# Tolerances as for the MLP: batch norm's normalization and 4 steps carry the kernels' few-ulp differences into the
# losses at about 1e-7 relative (measured).
CONVNET = """
import torch, torch_hal
import torch.nn.functional as F
from torch_hal.zoo.builtin import MiniConvNet
torch.manual_seed(0)
cpu, dev = MiniConvNet(widths=(8, 16, 32)), MiniConvNet(widths=(8, 16, 32))
x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))
lr, momentum, steps = 0.05, 0.9, 4
"""


def test_convnet_training_steps_run_on_spirv_kernels_only_and_match_cpu(runtime):
    out = run_on_opencl(CONVNET + STEPS_AGAINST_CPU)
    assert "fallbacks {}" in out, out


# A few training steps of the zoo's MiniGPT (torch_hal/zoo/builtin.py: token and position embeddings,
# pre-norm decoder blocks of causal attention, whose math form on this device runs tril, where, isneginf and all, a
# GELU MLP, the final layer norm and the vocabulary head) against the same steps on CPU tensors. Every op runs as a
# SPIR-V kernel (strict mode). The CPU side runs attention as one fused kernel and sums in other orders, so the
# losses and parameters agree to float32 rounding carried through a few steps.
MINIGPT = """
import torch, torch_hal
import torch.nn.functional as F
from torch_hal.zoo import builtin
torch.manual_seed(0)
vocab, dim, layers, heads, seq, batch = 96, 32, 2, 4, 16, 4
cpu = builtin.MiniGPT(vocab, dim, layers, heads, seq)
dev = builtin.MiniGPT(vocab, dim, layers, heads, seq)
tokens = torch.randint(0, vocab, (batch, seq + 1))
x, y = tokens[:, :-1], tokens[:, 1:]
lr, momentum, steps = 0.1, 0.9, 4
"""


def test_minigpt_training_steps_run_on_spirv_kernels_only_and_match_cpu(runtime):
    out = run_on_opencl(MINIGPT + STEPS_AGAINST_CPU)
    assert "fallbacks {}" in out, out


def test_a_target_outside_the_classes_raises_as_on_cpu(runtime):
    # The loss kernels cannot raise: the target is checked on the device first (it gave a NaN loss and a zero
    # gradient row). ignore_index stays allowed.
    out = run_on_opencl("""
import torch, torch_hal
import torch.nn.functional as F
logits = torch.randn(4, 5)
for device in ("cpu", "hal:0"):
    for bad in (5, -1, 99):
        target = torch.tensor([0, 1, bad, 2], device=device)
        try:
            F.cross_entropy(logits.to(device), target)
        except IndexError as e:
            print(device, "IndexError", str(e).splitlines()[0])
        else:
            print(device, "no error")
ok = F.cross_entropy(logits.to("hal:0"), torch.tensor([0, -100, 4, 2], device="hal:0"))
print("ignored", torch.allclose(ok.cpu(), F.cross_entropy(logits, torch.tensor([0, -100, 4, 2]))))
""")
    for device in ("cpu", "hal:0"):
        for bad in (5, -1, 99):
            assert f"{device} IndexError Target {bad} is out of bounds." in out, out
    assert "ignored True" in out, out

