"""Complex powers of a single base value and complex logspace on Intel's OpenCL CPU runtime, in strict mode
against PyTorch's CPU ops, through test_opencl_adapter.py's harness: pow with a Python-number or 0-dim base and a
complex (or real, with a complex base) exponent tensor, its out= form and ldexp (complex_functions.cpp's
power_of_number: the base's logarithm taken on the host by the C library, as the CPU's cpow takes it), and
logspace / its Tensor-argument form with complex endpoints (range_ops.cpp). complex64 only: OpenCL has no doubles."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)


def test_complex_power_of_a_single_base_runs_natively(runtime):
    run_ops_strictly("""
def z(*shape):
    return torch.complex(r(*shape), r(*shape)) * 3
w = z(4, 5)
for base in (2.0, 0.5, 10, -3.0, 1.5 - 2j, -0.25j):
    check(f"number {base} ** z", torch.pow(base, w.to(d)), torch.pow(base, w), rtol=1.3e-6)
    check(f"0-dim {base} ** z", torch.pow(torch.tensor(base).to(d), w.to(d)), torch.pow(torch.tensor(base), w),
          rtol=1.3e-6)
    out = torch.empty(0, dtype=torch.complex64).to(d)
    torch.pow(base, w.to(d), out=out)
    check(f"out= {base} ** z", out, torch.pow(base, w), rtol=1.3e-6)
real = r(3, 4) * 4
check("complex number ** real tensor", torch.pow(1 + 1j, real.to(d)), torch.pow(1 + 1j, real), rtol=1.3e-6)
check("0-dim ** 0-dim", torch.pow(torch.tensor(2.5 + 1j).to(d), w[0, 0].to(d)),
      torch.pow(torch.tensor(2.5 + 1j), w[0, 0]), rtol=1.3e-6)
check("__rpow__", 3.0 ** w.to(d), 3.0 ** w, rtol=1.3e-6)
e = torch.randint(-5, 6, (4, 5), generator=g)
check("ldexp", torch.ldexp(w.to(d), e.to(d)), torch.ldexp(w, e), rtol=1.3e-6)
check("ldexp complex exponent", torch.ldexp(w.to(d), w.to(d)), torch.ldexp(w, w), rtol=1.3e-6)
""")


def test_complex_logspace_runs_natively(runtime):
    run_ops_strictly("""
c64 = torch.complex64
for start, end, steps, base in [(0, 2, 5, 10.0), (1 + 2j, -3 - 1j, 17, 2.0), (-2j, 3 + 0.5j, 50, 1.5),
                                (0.5, 0.5 + 4j, 1, 3.0), (1j, 2, 0, 10.0), (-1 - 1j, 1 + 1j, 2, 0.5)]:
    check(f"logspace {start} {end} {steps} {base}", torch.logspace(start, end, steps, base, dtype=c64, device=d),
          torch.logspace(start, end, steps, base, dtype=c64), rtol=1.3e-6)
s, t = torch.tensor(1 - 1j), torch.tensor(-2 + 3j)
check("logspace tensor overload", torch.logspace(s.to(d), t.to(d), 9, 2.0, dtype=c64, device=d),
      torch.logspace(s, t, 9, 2.0, dtype=c64), rtol=1.3e-6)
out = torch.empty(3, dtype=c64).to(d)
torch.logspace(1j, 2 + 1j, 6, out=out)
check("logspace out= resized", out, torch.logspace(1j, 2 + 1j, 6, dtype=c64), rtol=1.3e-6)
""")
