"""Host time per convolution call: cuDNN's legacy API (cudnnConvolutionForward, called through ctypes), torch.cuda's
F.conv2d and, with `hal`, hal's F.conv2d, on the same GPU in one process (each timed over 300 calls of a problem
small enough that the GPU keeps up, so that the time is the host's). This is the measurement behind the NVIDIA
adapter's move to cuDNN execution plans (vendor_adapters/nvidia/convolution_plan.cpp, benchmarks/RESULTS.md).

    python benchmarks/conv_host_cost.py [hal]

Needs a CUDA build of PyTorch and its cuDNN wheel (nvidia-cudnn-cu12 or -cu13).
"""
import ctypes
import os
import sys
import time

import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    sys.exit("conv_host_cost: needs a CUDA build of PyTorch and a GPU")
import nvidia.cudnn  # noqa: E402  (the cuDNN wheel that a CUDA build of PyTorch brings)

libdir = os.path.join(list(nvidia.cudnn.__path__)[0], "lib")
lib = ctypes.CDLL(os.path.join(libdir, "libcudnn.so.9"))
print("cudnn version", lib.cudnnGetVersion())
vp = ctypes.c_void_p
def ck(s, what):
    if s != 0:
        raise RuntimeError(f"{what} -> {s}")
class Perf(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_int), ("status", ctypes.c_int), ("time", ctypes.c_float), ("memory", ctypes.c_size_t),
                ("determinism", ctypes.c_int), ("mathType", ctypes.c_int), ("reserved", ctypes.c_int * 3)]
h = vp(); ck(lib.cudnnCreate(ctypes.byref(h)), "create")
stream = torch.cuda.current_stream().cuda_stream
ck(lib.cudnnSetStream(h, vp(stream)), "setstream")

def descs(n, c, hh, ww, k, r, pad, stride):
    x = vp(); y = vp(); w = vp(); cv = vp()
    ck(lib.cudnnCreateTensorDescriptor(ctypes.byref(x)), "x")
    ck(lib.cudnnCreateTensorDescriptor(ctypes.byref(y)), "y")
    ck(lib.cudnnCreateFilterDescriptor(ctypes.byref(w)), "w")
    ck(lib.cudnnCreateConvolutionDescriptor(ctypes.byref(cv)), "c")
    oh = (hh + 2 * pad - r) // stride + 1; ow = (ww + 2 * pad - r) // stride + 1
    ck(lib.cudnnSetTensor4dDescriptor(x, 0, 0, n, c, hh, ww), "setx")
    ck(lib.cudnnSetTensor4dDescriptor(y, 0, 0, n, k, oh, ow), "sety")
    ck(lib.cudnnSetFilter4dDescriptor(w, 0, 0, k, c, r, r), "setw")
    ck(lib.cudnnSetConvolution2dDescriptor(cv, pad, pad, stride, stride, 1, 1, 1, 0), "setc")
    ck(lib.cudnnSetConvolutionMathType(cv, 0), "math")
    return x, y, w, cv, (n, k, oh, ow)

def destroy(x, y, w, cv):
    lib.cudnnDestroyTensorDescriptor(x); lib.cudnnDestroyTensorDescriptor(y)
    lib.cudnnDestroyFilterDescriptor(w); lib.cudnnDestroyConvolutionDescriptor(cv)

def sync():
    torch.cuda.synchronize()
    if hasattr(torch, "hal"):
        torch.hal.synchronize()

def per_call(fn, n=300):
    for _ in range(20): fn()
    sync()
    t = time.perf_counter()
    for _ in range(n): fn()
    host = (time.perf_counter() - t) / n
    sync()
    total = (time.perf_counter() - t) / n
    return host * 1e6, total * 1e6

torch.backends.cudnn.allow_tf32 = True
def run(hal=None):
  for shape in [(32, 64, 16, 16, 64, 3, 1, 1), (32, 128, 8, 8, 256, 3, 1, 2), (1, 16, 8, 8, 16, 3, 1, 1)]:
    n, c, hh, ww, k, r, pad, stride = shape
    x, y, w, cv, oshape = descs(*shape)
    perf = (Perf * 8)(); ret = ctypes.c_int()
    ck(lib.cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, cv, y, 8, ctypes.byref(ret), perf), "algo")
    algo = perf[0].algo; math = perf[0].mathType
    ck(lib.cudnnSetConvolutionMathType(cv, math), "math2")
    ws = ctypes.c_size_t()
    ck(lib.cudnnGetConvolutionForwardWorkspaceSize(h, x, w, cv, y, algo, ctypes.byref(ws)), "ws")
    X = torch.randn(n, c, hh, ww, device="cuda"); W = torch.randn(k, c, r, r, device="cuda"); Y = torch.empty(oshape, device="cuda")
    WS = torch.empty(max(ws.value, 1), dtype=torch.uint8, device="cuda")
    one = ctypes.c_float(1.0); zero = ctypes.c_float(0.0)
    def legacy():
        ck(lib.cudnnConvolutionForward(h, ctypes.byref(one), x, vp(X.data_ptr()), w, vp(W.data_ptr()), cv, algo,
                                       vp(WS.data_ptr()), ctypes.c_size_t(ws.value), ctypes.byref(zero), y, vp(Y.data_ptr())), "fwd")
    def legacy_with_descs():
        d = descs(*shape)
        lib.cudnnSetConvolutionMathType(d[3], math)
        ck(lib.cudnnConvolutionForward(h, ctypes.byref(one), d[0], vp(X.data_ptr()), d[2], vp(W.data_ptr()), d[3], algo,
                                       vp(WS.data_ptr()), ctypes.c_size_t(ws.value), ctypes.byref(zero), d[1], vp(Y.data_ptr())), "fwd")
        destroy(*d[:4])
    def only_descs():
        d = descs(*shape); destroy(*d[:4])
    def noop():
        lib.cudnnGetVersion()
    def torch_conv():
        F.conv2d(X, W, padding=pad, stride=stride)
    cases = [("ctypes noop", noop), ("descs create/set/destroy", only_descs), ("legacy fwd, cached descs", legacy),
             ("legacy fwd, descs per call", legacy_with_descs), ("torch.cuda F.conv2d", torch_conv)]
    if hal is not None:
        XH, WH = X.cpu().to(hal), W.cpu().to(hal)
        def hal_conv():
            F.conv2d(XH, WH, padding=pad, stride=stride)
        cases.append(("hal F.conv2d", hal_conv))
    print(shape, "algo", algo, "math", math, "ws", ws.value)
    for name, fn in cases:
        hst, tot = per_call(fn)
        print(f"  {name:32s} host {hst:8.1f} us/call   with device {tot:8.1f} us/call")
    destroy(x, y, w, cv)

if __name__ == "__main__":
    import sys
    if "hal" in sys.argv:
        import torch_hal  # noqa
        run(torch.device("hal:0"))
    else:
        run()
