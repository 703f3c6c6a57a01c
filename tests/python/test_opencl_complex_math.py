"""complex64 elementary functions (exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, sin, cos, tan, sinh, cosh,
tanh, their inverses, sigmoid, silu, sinc, isnan) and logaddexp, lerp, addcmul and addcdiv, composed of the kernel
library's native float32 kernels over view_as_real views (csrc/torch/ops/complex_functions.cpp), run on Intel's
OpenCL CPU runtime in strict mode (any CPU fallback raises) against PyTorch's CPU ops, through test_opencl_adapter.py's
harness."""
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



# The inverse functions (Hull et al.'s asin / acos, Kahan's atanh; asinh, acosh and atan by their identities) and
# the other functions added with them. same_zeros also checks the signs of zero parts, which place results on
# either side of the branch cuts (assert_close compares -0.0 equal to 0.0).
INVERSE_PRELUDE = FUNCTIONS_PRELUDE + """
INVERSES = [("asin", torch.asin), ("acos", torch.acos), ("atan", torch.atan), ("asinh", torch.asinh),
            ("acosh", torch.acosh), ("atanh", torch.atanh)]
MORE = [("exp2", torch.exp2), ("expm1", torch.expm1), ("sinc", torch.sinc), ("silu", F.silu)]
def same_zeros(name, got, want):
    got, want = torch.view_as_real(got.cpu()), torch.view_as_real(want)
    zero = (want == 0) & (got == 0)
    assert torch.equal(got[zero].signbit(), want[zero].signbit()), (name, got[zero], want[zero])
"""


def test_complex_inverse_functions_of_random_values(runtime):
    run_ops_strictly(INVERSE_PRELUDE + """
a = c(6, 33, scale=2.0)
small = c(4, 9, scale=1e-4)
wide = torch.complex(r(300) * torch.exp(4 * r(300)), r(300) * torch.exp(4 * r(300)))  # |parts| from 1e-7 to 1e7
near = torch.complex(1 + 1e-3 * r(200), 1e-3 * r(200) * torch.exp(5 * r(200)))  # the branch points +-1 (and +-i)
unit = torch.polar(1 + 1e-4 * r(200), 4 * r(200))  # |z| = 1: atanh's 1 - |z|^2 cancels
for name, fn in INVERSES:
    close(name, fn(a.to(d)), fn(a))
    close(name + " small", fn(small.to(d)), fn(small))
    close(name + " wide", fn(wide.to(d)), fn(wide))
    for s in (1, -1, 1j, -1j):
        close(f"{name} near {s}", fn((near * s).to(d)), fn(near * s))
    close(name + " unit circle", fn(unit.to(d)), fn(unit))
    close(name + " strided", fn(a.to(d).t()[::2]), fn(a.t()[::2]))
""")


def test_complex_inverse_functions_at_special_values(runtime):
    # The axes (branch cuts |x| > 1 for asin / acos / atanh, |y| > 1 for asinh / atan, x < 1 for acosh, each side
    # taken from the sign of the zero), the branch points, arguments past 1/eps and near float's maximum (where
    # z^2 and |z|^2 overflow), infinities and NaN in either part, as the C library's casin, cacos, ... give them.
    run_ops_strictly(INVERSE_PRELUDE + """
parts = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 0.9999999, 1.0000001, 1e-3, -1e-20, 1e-30, 3.0, -10.0, 1e4, -1e8,
         8388608.0, 1e19, -2e19, 1e30, 3e38, -3e38, inf, -inf, nan]
z = torch.tensor([complex(x, y) for x in parts for y in parts], dtype=torch.complex64)
for name, fn in INVERSES:
    got, want = fn(z.to(d)), fn(z)
    close(name + " grid", got, want)
    same_zeros(name + " grid", got, want)
axes = torch.tensor([complex(x, s) for x in [2.0, -2.0, 1.0, -1.0, 0.5, 1e20, -inf] for s in [0.0, -0.0]] +
                    [complex(s, y) for y in [2.0, -2.0, 1.0, 0.5, -1e20, inf] for s in [0.0, -0.0]],
                    dtype=torch.complex64)
for name, fn in INVERSES:
    got, want = fn(axes.to(d)), fn(axes)
    close(name + " axes", got, want)
    same_zeros(name + " axes", got, want)
""")


def test_complex_exp2_expm1_sinc_silu(runtime):
    run_ops_strictly(INVERSE_PRELUDE + """
a = c(6, 33)
tiny = c(4, 9, scale=1e-6)  # expm1's accuracy near 0: e^x cos y - 1 would cancel
for name, fn in MORE:
    close(name, fn(a.to(d)), fn(a))
    close(name + " tiny", fn(tiny.to(d)), fn(tiny))
    close(name + " strided", fn(a.to(d).t()[::2]), fn(a.t()[::2]))
parts = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-3, -1e-20, 10.0, -30.0, 80.0, -100.0, 1e4, inf, -inf, nan]
z = torch.tensor([complex(x, y) for x in parts for y in parts], dtype=torch.complex64)
for name, fn in [("exp2", torch.exp2), ("expm1", torch.expm1)]:
    got, want = fn(z.to(d)), fn(z)
    close(name + " grid", got, want)
    same_zeros(name + " grid", got, want)
moderate = torch.tensor([complex(x, y) for x in parts[:10] for y in parts[:8]], dtype=torch.complex64)
for name, fn in [("sinc", torch.sinc), ("silu", F.silu)]:  # (large parts: sin / exp of both amplify rounding)
    got, want = fn(moderate.to(d)), fn(moderate)
    close(name + " grid", got, want)
    same_zeros(name + " grid", got, want)
close("sinc(0) = 1", torch.sinc(torch.zeros(3, dtype=torch.complex64, device=d)), torch.ones(3, dtype=torch.complex64))
for name, fn in INVERSES + MORE:  # in place (aliased: computed aside), into a view, out= resized and strided
    op = getattr(torch.ops.aten, name)
    x = a.to(d)
    getattr(torch.ops.aten, name + "_")(x)
    close(name + "_", x, fn(a))
    x = a.to(d)
    getattr(torch.ops.aten, name + "_")(x[:, 1:4])
    want = a.clone()
    want[:, 1:4] = fn(a[:, 1:4])
    close(name + "_ view", x, want)
    out = torch.empty(0, dtype=torch.complex64, device=d)
    op.out(a.to(d), out=out)
    close(name + " out=", out, fn(a))
    strided = torch.empty(33, 12, dtype=torch.complex64, device=d)[:, ::2].t()
    op.out(a.to(d), out=strided)
    close(name + " strided out=", strided, fn(a))
""")


def test_complex_logaddexp(runtime):
    # ATen's complex logaddexp: log1p(exp(min - max)) + max, ordered by real parts; both real parts the same
    # infinity, and NaN anywhere, are its special cases. (Pairs whose real parts differ by 87 to 104 make
    # exp(min - max) subnormal, where the CPU's own log1p overflows to NaN depending on its last bit: not compared.)
    run_ops_strictly(INVERSE_PRELUDE + """
a, b, f = c(6, 7), c(6, 7), r(6, 7)
for name, x, y in [("", a, b), ("large", a * 100, b * 100), ("equal", a, a), ("real operand", a, f),
                   ("real first", f, b), ("broadcast", a, b[0])]:
    close("logaddexp " + name, torch.logaddexp(x.to(d), y.to(d)), torch.logaddexp(x, y))
specials = torch.tensor([complex(x, y) for x in [0.0, -0.0, 1.0, -3.0, 20.0, inf, -inf, nan]
                         for y in [0.0, -0.0, 2.0, -1e30, inf, nan]], dtype=torch.complex64)
pairs = torch.cartesian_prod(specials, specials)
close("logaddexp specials", torch.logaddexp(pairs[:, 0].to(d), pairs[:, 1].to(d)),
      torch.logaddexp(pairs[:, 0], pairs[:, 1]))
x = a.to(d)
torch.logaddexp(x, b.to(d), out=x)
close("logaddexp out= self", x, torch.logaddexp(a, b))
""")


def test_complex_lerp_addcmul_addcdiv(runtime):
    # lerp as ATen computes it: start + w (end - start) for |w| < 0.5, end + (w - 1)(end - start) otherwise;
    # addcmul / addcdiv: self + (value t1) * t2 and self + (value t1) / t2, with real and complex values.
    run_ops_strictly(INVERSE_PRELUDE + """
a, b, w, f = c(6, 7), c(6, 7), c(6, 7, scale=0.6), r(6, 7)
for weight in [0.3, 0.7, 1.0, -0.2, 0.4 + 0.3j, 0.2j, 2 - 1j]:
    close(f"lerp weight {weight}", torch.lerp(a.to(d), b.to(d), weight), torch.lerp(a, b, weight))
close("lerp tensor weight", torch.lerp(a.to(d), b.to(d), w.to(d)), torch.lerp(a, b, w))
close("lerp tensor weight large", torch.lerp(a.to(d), b.to(d), (3 * w).to(d)), torch.lerp(a, b, 3 * w))
close("lerp broadcast", torch.lerp(a.to(d), b[0].to(d), w[:, :1].to(d)), torch.lerp(a, b[0], w[:, :1]))
x = a.to(d)
x.lerp_(b.to(d), w.to(d))
close("lerp_", x, torch.lerp(a, b, w))
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.lerp(a.to(d), b.to(d), 0.25, out=out)
close("lerp out=", out, torch.lerp(a, b, 0.25))
specials = torch.tensor([complex(x, y) for x in [0.0, 1.0, -3.0, inf, -inf, nan] for y in [-0.0, 2.0, inf]],
                        dtype=torch.complex64)
for weight in [0.3, 0.8]:
    close(f"lerp specials {weight}", torch.lerp(specials.to(d), specials.flip(0).to(d), weight),
          torch.lerp(specials, specials.flip(0), weight))
for value in [1, 0.5, -2.0, 1 - 2j, 0.25j]:
    for name, fn in [("addcmul", torch.addcmul), ("addcdiv", torch.addcdiv)]:
        close(f"{name} {value}", fn(a.to(d), b.to(d), w.to(d), value=value), fn(a, b, w, value=value))
        close(f"{name} real tensor {value}", fn(a.to(d), b.to(d), f.to(d), value=value), fn(a, b, f, value=value))
        close(f"{name} broadcast {value}", fn(a.to(d), b[0].to(d), w[:, :1].to(d), value=value),
              fn(a, b[0], w[:, :1], value=value))
        s1, s2, s3 = specials, specials.flip(0), specials.roll(3)
        close(f"{name} specials {value}", fn(s1.to(d), s2.to(d), s3.to(d), value=value), fn(s1, s2, s3, value=value))
        x = a.to(d)
        getattr(x, name + "_")(b.to(d), w.to(d), value=value)
        close(f"{name}_ {value}", x, fn(a, b, w, value=value))
""")


def test_complex_angle(runtime):
    # angle of a complex tensor: atan2(imaginary, real) into a real tensor, signs of zero included.
    run_ops_strictly(COMPLEX_PRELUDE + """
z = c(5, 7)
z[0, :4] = torch.tensor([0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-1.0, -0.0)])
check("angle", torch.angle(z.to(d)), torch.angle(z))
out = torch.empty(0, device=d)
torch.angle(z.to(d), out=out)
check("angle out=", out, torch.angle(z))
""")
