"""Every dtype family of the SPIR-V kernels on Intel's OpenCL CPU runtime in strict mode, against PyTorch's CPU ops,
through test_opencl_adapter.py's harness: float16 and bfloat16 (their bits converted by integer arithmetic), bool
and integers of every width (in int64), and float64 (the float64 module)."""
from test_opencl_adapter import run_on_opencl, runtime  # noqa: F401  (runtime is a fixture)


def test_every_dtype_family_runs_as_spirv_kernels_in_strict_mode(runtime):
    # The compute types of the kernel library: float32 for float16 and bfloat16 (their bits converted by integer
    # arithmetic, half_bits.h), int64 for bool and integers of every width (two's complement wrap), float64 in a
    # module of its own (float64.cl).
    out = run_on_opencl("""
import torch, torch_hal
g = torch.Generator().manual_seed(0)
x = torch.randn(37, 53, generator=g)
i = torch.randint(-100, 100, (37, 53), generator=g)
cases = {
    "f16 add": lambda t: t(x, torch.float16) + t(x, torch.float16).t().t() * 0.5,
    "bf16 mul": lambda t: t(x, torch.bfloat16) * 3,
    "f16 to f32": lambda t: t(x, torch.float16).float(),
    "f32 to bf16": lambda t: t(x, torch.float32).to(torch.bfloat16),
    "f16 sum": lambda t: t(x, torch.float16).sum(1),
    "bf16 amax": lambda t: t(x, torch.bfloat16).amax(0),
    "f16 softmax": lambda t: t(x, torch.float16).softmax(1),
    "bf16 layer_norm": lambda t: torch.nn.functional.layer_norm(t(x, torch.bfloat16), (53,)),
    "f16 fill": lambda t: t(x, torch.float16).fill_(1 / 3),
    "f16 arange": lambda t: torch.arange(0, 5, 0.25, dtype=torch.float16, device=t(x, torch.float16).device),
    "int32 add": lambda t: t(i, torch.int32) + 1,
    "int8 mul wraps": lambda t: t(i, torch.int8) * t(i, torch.int8),
    "int16 floor_divide": lambda t: torch.div(t(i, torch.int16), 7, rounding_mode="floor"),
    "bool and": lambda t: t(i > 0, torch.bool) & t(i < 50, torch.bool),
    "int32 sum": lambda t: t(i, torch.int32).sum(0),
    "uint8 amax": lambda t: t(i.abs(), torch.uint8).amax(1),
    "f64 exp": lambda t: t(x, torch.float64).exp(),
    "f64 sum": lambda t: t(x, torch.float64).sum(0),
    "f64 norm": lambda t: torch.linalg.vector_norm(t(x, torch.float64), 3, dim=1),
    "f64 log_softmax": lambda t: t(x, torch.float64).log_softmax(0),
    "f64 arange": lambda t: torch.arange(0, 5, 0.1, dtype=torch.float64, device=t(x, torch.float64).device),
    "f16 matmul": lambda t: t(x, torch.float16) @ t(x, torch.float16).t(),
    "f64 addmm": lambda t: torch.addmm(t(x, torch.float64)[:, :37], t(x, torch.float64), t(x, torch.float64).t(),
                                       alpha=0.1, beta=0.3),
    "bf16 argmax": lambda t: t(x, torch.bfloat16).argmax(1),
    "int32 max.dim": lambda t: t(i, torch.int32).max(0).indices,
    "f32 var": lambda t: t(x, torch.float32).var(1),
    "f64 std": lambda t: t(x, torch.float64).std(0, correction=0),
}
on_cpu = lambda v, d: v.to(d)
on_hal = lambda v, d: v.to(d).to("hal:0")
torch.hal.reset_fallback_stats()
for name, f in cases.items():
    with torch.hal.strict():
        got = f(on_hal)
    want = f(on_cpu)
    assert got.dtype == want.dtype, name
    torch.testing.assert_close(got.cpu(), want, msg=name)
print("native", dict(torch.hal.fallback_stats()))
""")
    assert "native {}" in out, out
