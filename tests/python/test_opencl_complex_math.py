"""complex64 elementary functions (exp, log, log2, log10, log1p, sqrt, rsqrt, sin, cos, tan, sinh, cosh, tanh,
sigmoid, isnan) composed of the kernel library's native float32 kernels over view_as_real views
(csrc/torch/ops/complex_functions.cpp), run on Intel's OpenCL CPU runtime in strict mode (any CPU fallback
raises) against PyTorch's CPU ops, through test_opencl_adapter.py's harness."""
import pytest

from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)
from test_opencl_complex import COMPLEX_PRELUDE

# The complex64 OpInfo tolerances: the compositions round differently from the C library's complex functions
# (a few float ulps), and parts that cancel to near zero are compared absolutely.
FUNCTIONS_PRELUDE = COMPLEX_PRELUDE + """
inf, nan = float("inf"), float("nan")
FUNCTIONS = [("exp", torch.exp), ("log", torch.log), ("log2", torch.log2), ("log10", torch.log10),
             ("log1p", torch.log1p), ("sqrt", torch.sqrt), ("rsqrt", torch.rsqrt), ("sin", torch.sin),
             ("cos", torch.cos), ("tan", torch.tan), ("sinh", torch.sinh), ("cosh", torch.cosh),
             ("tanh", torch.tanh), ("sigmoid", torch.sigmoid)]
def close(name, got, want):
    cc(name, got, want, rtol=1.3e-6, atol=1e-5)
"""


def test_complex_functions_of_random_values(runtime):
    run_ops_strictly(FUNCTIONS_PRELUDE + """
a = c(6, 33, scale=2.0)
small = c(4, 9, scale=1e-4)  # log1p's and sqrt's accuracy near 0
for name, fn in FUNCTIONS:
    close(name, fn(a.to(d)), fn(a))
    close(name + " small", fn(small.to(d)), fn(small))
    close(name + " strided", fn(a.to(d).t()[::2]), fn(a.t()[::2]))
""")


def test_complex_functions_at_special_values(runtime):
    # Zeros of either sign, the axes, infinities and NaN in one part, huge imaginary parts (exp's cos y and
    # sin y), real parts past where exp / cosh overflow alone (sinh, cosh, tanh), and negative reals (the
    # branch cut of log and sqrt, taken by the sign of the zero imaginary part).
    run_ops_strictly(FUNCTIONS_PRELUDE + """
finite = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-3, -1e-20, 3e-39, 10.0, -10.0, 30.0, -45.0, 88.5, -89.5, 95.0,
          -100.0, 1e4, -1e30, 3.0, -1.5707964]  # (not pi: sigmoid has a pole at i pi)
z = torch.tensor([complex(x, y) for x in finite for y in finite], dtype=torch.complex64)
for name, fn in FUNCTIONS:
    close(name + " finite grid", fn(z.to(d)), fn(z))
axes = torch.tensor([complex(x, 0.0) for x in [inf, -inf, nan, 2.0, -2.0]] +
                    [complex(-0.0, y) for y in [0.0, -0.0, 3.0]] +
                    [complex(x, -0.0) for x in [-4.0, 0.0, inf]], dtype=torch.complex64)
for name, fn in [("exp", torch.exp), ("log", torch.log), ("log2", torch.log2), ("sqrt", torch.sqrt),
                 ("sinh", torch.sinh), ("cosh", torch.cosh), ("tanh", torch.tanh), ("sin", torch.sin),
                 ("cos", torch.cos), ("log1p", torch.log1p)]:
    close(name + " axes", fn(axes.to(d)), fn(axes))
close("log(0) = -inf", torch.log(torch.zeros(3, dtype=torch.complex64, device=d)),
      torch.log(torch.zeros(3, dtype=torch.complex64)))
huge_im = torch.tensor([complex(1.0, 1e30), complex(-3.0, -1e20), complex(0.5, 3e38), complex(-inf, inf),
                        complex(-inf, nan), complex(nan, 0.0)], dtype=torch.complex64)
close("exp huge imaginary parts", torch.exp(huge_im.to(d)), torch.exp(huge_im))
infinite_im = torch.tensor([complex(x, y) for x in [0.0, 2.0, -3.0] for y in [inf, -inf]], dtype=torch.complex64)
close("sqrt infinite imaginary parts", torch.sqrt(infinite_im.to(d)), torch.sqrt(infinite_im))
large_re = torch.tensor([complex(x, y) for x in [20.0, -40.0, 100.0, -1e5, inf, -inf] for y in [0.5, -2.0, 1e-30]],
                        dtype=torch.complex64)
close("tanh large real parts", torch.tanh(large_re.to(d)), torch.tanh(large_re))
large_im = torch.complex(large_re.imag, large_re.real)
close("tan large imaginary parts", torch.tan(large_im.to(d)), torch.tan(large_im))
""")


def test_complex_sgn_and_isnan(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
inf, nan = float("inf"), float("nan")
a = c(5, 8)
a[0, :6] = torch.tensor([0, complex(nan, 1), complex(2, nan), complex(inf, 1), complex(nan, nan), complex(-0.0, 0)])
cc("isnan", torch.isnan(a.to(d)), torch.isnan(a))
cc("isnan strided", torch.isnan(a.to(d).t()[1::2]), torch.isnan(a.t()[1::2]))
""")


def test_complex_functions_in_place_and_out_forms(runtime):
    run_ops_strictly(FUNCTIONS_PRELUDE + """
a = c(5, 7)
for name, fn in FUNCTIONS:
    x = a.to(d)
    getattr(x, name + "_")()
    close(name + "_", x, getattr(a.clone(), name + "_")())
    x = a.to(d)
    getattr(x[:, 1:4], name + "_")()  # a view of a larger tensor
    want = a.clone()
    getattr(want[:, 1:4], name + "_")()
    close(name + "_ view", x, want)
    out = torch.empty(2, dtype=torch.complex64, device=d)  # resized, as ATen resizes it
    fn(a.to(d), out=out)
    close(name + " out=", out, fn(a))
    strided = torch.empty(7, 10, dtype=torch.complex64, device=d)[:, ::2].t()
    fn(a.to(d), out=strided)
    close(name + " strided out=", strided, fn(a))
empty = torch.empty(0, 3, dtype=torch.complex64)
close("exp of empty", torch.exp(empty.to(d)), torch.exp(empty))
""")


def test_complex_power_of_exact_forms(runtime):
    # pow.Tensor_Scalar's special forms (0, 1, 2, 3, -2, 0.5, -0.5, -1) as ATen computes them (no exp(w log z)),
    # zero bases included for the non-negative ones; other exponents take ATen's path (complex_functions.h).
    run_ops_strictly(COMPLEX_PRELUDE + """
a = c(5, 7)
a[0, :4] = 0
for e in [0, 1, 2, 3, -2, 0.5, -0.5, -1]:
    base = a if e >= 0 else a[1:]
    cc(f"pow ** {e}", torch.pow(base.to(d), e), torch.pow(base, e), rtol=1.3e-6, atol=1e-5)
    cc(f"pow_ ** {e}", base.to(d).pow_(e), torch.pow(base, e), rtol=1.3e-6, atol=1e-5)
cc("square", torch.square(a.to(d)), torch.square(a), rtol=1.3e-6, atol=1e-5)
""")

