"""torch.export and AOTInductor on hal devices whose memory the CPU can address (the host reference device).

    ep = torch.export.export(model, (x_hal,))                    # model and inputs on hal
    path = torch._inductor.aoti_compile_and_package(ep)           # as for any device
    compiled = torch._inductor.aoti_load_package(path)            # in any process that imports torch_hal
    y = compiled(x_hal)                                           # hal tensors in, hal tensors out

  - Compiling: a host graph (host_graph.py) under AOTInductor becomes a CPU model. Its inputs are lowered as
    CPU tensors, as for torch.compile, its constants (the exported module's hal parameters and buffers)
    become CPU views that AOTInductor writes into the package, and no hal device is added to the graph's
    devices, so AOTInductor generates its C++ CPU wrapper and records "cpu" as the package's device
    (AOTI_DEVICE_KEY). The package is an ordinary CPU package: it loads with PyTorch's CPU runtime and runs
    on CPU tensors too.
  - Running on hal: AOTInductor's CPU runtime takes its inputs' data pointers, which a hal tensor of a
    host-accessible device gives, but its extern CPU kernels (addmm_out, ...) check that their out= buffers
    are on their inputs' device and refuse hal tensors. So a call with hal inputs goes through the operator
    torch_hal_aoti::run (its only kernel is the CPU one: the AOTInductor model's run), which hal's CPU
    fallback runs in place on host-accessible memory, as any CPU kernel: it waits for the device's current
    stream, hands the model CPU views of the hal inputs, allocates everything the model allocates on that
    thread (its outputs among them) in the device's memory, and hands the outputs back as hal tensors over
    the same memory, without copies.
  - install() (run when PyTorch loads torch._inductor.package) makes AOTICompiledModel, what
    torch._inductor.aoti_load_package returns, take that path for calls with hal tensors among their inputs;
    calls with CPU tensors are PyTorch's as they are. load_package(path) is the same load, by name.

Devices whose memory the CPU cannot address have no AOTInductor path here: their calls raise, naming the
device (hal's CPU fallback would copy each input and output, which is not what a compiled package is for).
"""
import itertools

import torch

_LIBRARY = "torch_hal_aoti"
_OP = "run"

_models = {}  # key -> the loaded AOTI model (its AOTIModelPackageLoader), while the AOTICompiledModel lives
_keys = itertools.count()
_library = None


def _define_op():
    global _library
    if _library is not None:
        return
    _library = torch.library.Library(_LIBRARY, "DEF")
    _library.define(f"{_OP}(int model, Tensor[] inputs) -> Tensor[]")
    # CPU only: a hal call reaches hal's CPU fallback, which runs this kernel in place on host-accessible
    # memory (CPU views in, outputs captured in the device's memory and adopted as hal tensors).
    _library.impl(_OP, _run_cpu, "CPU")


def _run_cpu(model: int, inputs):
    return _models[model].boxed_run(list(inputs))


def _hal_device(flat_inputs):
    """The one hal device of a call's tensor inputs, or None where none is a hal tensor."""
    devices = {t.device.index if t.device.index is not None else torch.hal.current_device()
               for t in flat_inputs if isinstance(t, torch.Tensor) and t.device.type == "hal"}
    if not devices:
        return None
    if len(devices) > 1:
        raise RuntimeError(f"torch_hal: an AOTInductor model was called with tensors on several hal devices "
                           f"({sorted(devices)}); move them to one")
    return devices.pop()


def _host_accessible(index: int) -> bool:
    from torch_hal import _C

    return bool(_C.get_device_properties(index)["host_accessible"])


def _check_host_accessible(index: int) -> None:
    if not _host_accessible(index):
        from torch_hal import _C

        raise RuntimeError(f"torch_hal: AOTInductor packages run on hal devices whose memory the CPU can address "
                           f"(the host reference device); hal:{index} ({_C.get_device_properties(index)['name']}) "
                           "is not one. Run the exported program with torch.compile(ep.module(), "
                           "backend=\"aot_eager\") on it instead.")


def _model_key(compiled) -> int:
    key = getattr(compiled, "_torch_hal_key", None)
    if key is None:
        key = next(_keys)
        _models[key] = compiled.loader
        compiled._torch_hal_key = key
    return key


def run_on_hal(compiled, flat_inputs, device: int):
    """The model's flat outputs for flat inputs that are hal tensors of `device` (and anything else the model
    takes), as hal tensors in that device's memory."""
    _define_op()
    _check_host_accessible(device)
    with torch.hal.device(device):
        return getattr(torch.ops, _LIBRARY).run(_model_key(compiled), list(flat_inputs))


def _patched_call(original):
    def __call__(self, *args, **kwargs):
        from torch.export._tree_utils import reorder_kwargs
        from torch.utils import _pytree as pytree

        call_spec = self.loader.get_call_spec()
        in_spec = pytree.treespec_loads(call_spec[0])
        flat_inputs = pytree.tree_flatten((args, reorder_kwargs(kwargs, in_spec)))[0]
        flat_inputs = [x for x in flat_inputs if isinstance(x, torch.Tensor)]
        device = _hal_device(flat_inputs)
        if device is None:  # CPU tensors: PyTorch's call as it is
            return original(self, *args, **kwargs)
        return pytree.tree_unflatten(run_on_hal(self, flat_inputs, device), pytree.treespec_loads(call_spec[1]))

    __call__._torch_hal = True
    return __call__


def _patch(module) -> None:
    cls = module.AOTICompiledModel
    if getattr(cls.__call__, "_torch_hal", False):
        return
    cls.__call__ = _patched_call(cls.__call__)
    original_del = getattr(cls, "__del__", None)

    def __del__(self):
        key = getattr(self, "_torch_hal_key", None)
        if key is not None:
            _models.pop(key, None)
        if original_del is not None:
            original_del(self)

    cls.__del__ = __del__


def install() -> None:
    from torch_hal.compile.lazy_registration import after_import

    after_import("torch.export.pt2_archive._package", _patch)


def load_package(path, device=None, **kwargs):
    """torch._inductor.aoti_load_package(path, **kwargs), whose model takes hal tensors (of a host-accessible
    device) and returns hal tensors; `device` (a hal device) only checks that the device can run it."""
    if device is not None:
        device = torch.device(device)
        if device.type != "hal":
            raise ValueError(f"torch_hal.compile.aoti.load_package: device must be a hal device, got {device}")
        _check_host_accessible(device.index if device.index is not None else torch.hal.current_device())
    from torch.export.pt2_archive import _package

    _patch(_package)
    return torch._inductor.aoti_load_package(path, **kwargs)
