"""Inductor's Triton code generation for hal devices of the NVIDIA and AMD adapters.

Their memory is the vendor runtime's own (cudaMalloc / hipMalloc in the runtime's primary context) and their
streams are its streams, so Triton kernels compiled for the GPU run on hal tensors as they are: the graph stays
a hal graph, Inductor schedules its kernels with TritonScheduling, the generated wrapper (triton_wrapper.py)
allocates buffers with _C.empty_strided_hal, launches each kernel on the raw stream of hal's current stream
(_C.current_raw_stream) and calls extern kernels (matmuls, fallbacks) as hal ops, which run hal's
native kernels (cuBLAS, rocBLAS). No CUDA graphs are made: Inductor makes them for cuda devices only.

Two facts Inductor keeps per device type need hal's entry, added here when this path is first used:
  - hal is a GPU type (torch._inductor.utils.GPU_TYPES), so lowering takes its GPU decisions for hal;
  - Inductor's get_gpu_type() asserts that one GPU type is available; hal is the same GPU as torch.cuda's,
    so the answer ignores hal (a hal graph's constructors then stay where they are: the passes that use it
    move only what feeds the vendor type's tensors);
  - Triton compiles for a backend named by the kernel's DeviceProperties ("cuda" or "hip"): for a hal
    device they are the properties of the same GPU as torch.cuda numbers it (its adapter's local index),
    which also makes the Triton launcher load kernels into that GPU's context, the one hal's memory lives in.
This path needs triton and a PyTorch built for the GPU's vendor (torch.cuda available); inductor_backends
chooses it only then.
"""
import torch

from torch_hal import _C
from torch_hal.compile.lazy_registration import after_import

_installed = False


def triton_path_unavailable_reason(index: int):
    """None where hal:index can take the Triton path, else why not."""
    props = _C.get_device_properties(index)
    if props["vendor"] not in ("nvidia", "amd"):
        return f"its vendor ({props['vendor']}) has no Triton backend"
    try:
        import triton  # noqa: F401
    except ImportError:
        return "its Triton code generation needs the triton package, which is not installed (pip install triton)"
    if not torch.cuda.is_available():
        return ("Triton's launcher and autotuner reach the GPU through torch.cuda, which this PyTorch build does not "
                "have (install PyTorch built for CUDA or ROCm)")
    return None


def _vendor_device(device: torch.device) -> torch.device:
    index = device.index if device.index is not None else _C.current_device()
    return torch.device("cuda", _C.get_device_properties(index)["local_index"])


def install() -> None:
    """Makes Inductor treat hal as the GPU it is (see the module's docstring); once per process."""
    global _installed
    if _installed:
        return
    from torch._inductor import utils
    from torch._inductor.runtime import hints

    if "hal" not in utils.GPU_TYPES:
        utils.GPU_TYPES.append("hal")
    vendor_create = hints.DeviceProperties.create.__func__

    def create(cls, device):
        if getattr(device, "type", None) == "hal":
            device = _vendor_device(device)
        return vendor_create(cls, device)

    hints.DeviceProperties.create = classmethod(create)
    _answer_gpu_type_beside_hal(utils)
    after_import("torch._inductor.fx_passes.post_grad", _online_softmax_for_hal)
    _installed = True


def _online_softmax_for_hal(post_grad) -> None:
    """Inductor rewrites softmax and log_softmax into its online softmax (the max and the sum in one pass) only
    for cuda and xpu tensors (prepare_softmax_extra_check: the rewrite has Triton kernels only), though hal's
    Triton path runs the same kernels: GPT-2's compiled log_softmax took 0.27 ms a step on hal against 0.18 ms
    on cuda without it. Patched before Inductor registers its post-grad patterns (lazily, at the first
    compilation), which read the check by name then."""
    original = post_grad.prepare_softmax_extra_check

    def prepare_softmax_extra_check(match):
        device = match.kwargs["x"].meta["val"].device
        if device.type != "hal":
            return original(match)
        index = device.index if device.index is not None else _C.current_device()
        return post_grad.config.online_softmax and triton_path_unavailable_reason(index) is None

    post_grad.prepare_softmax_extra_check = prepare_softmax_extra_check


# The modules that import get_gpu_type by name (a copy of the reference each), as of PyTorch 2.11 to 2.13.
_GPU_TYPE_USERS = ("torch._inductor.fx_passes.post_grad", "torch._inductor.fx_passes.joint_graph",
                   "torch._inductor.autotune_process")


def _answer_gpu_type_beside_hal(utils) -> None:
    """Replaces get_gpu_type in utils, and in each module that copied it, as each is imported (install() runs
    while Inductor is still importing itself: importing those modules here would be circular)."""
    original = utils.get_gpu_type

    def get_gpu_type() -> str:
        available = [t for t in utils.GPU_TYPES if t != "hal" and getattr(torch, t).is_available()]
        return available[0] if available else "cuda"  # "cuda" where none is: Inductor's own default

    def replace_in(module) -> None:
        if getattr(module, "get_gpu_type", None) is original:
            module.get_gpu_type = get_gpu_type

    replace_in(utils)
    for name in _GPU_TYPE_USERS:
        after_import(name, replace_in)


def triton_scheduling(scheduler):
    install()
    from torch._inductor.codegen.triton import TritonScheduling

    return TritonScheduling(scheduler)
