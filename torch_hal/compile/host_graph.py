"""torch.compile for hal devices whose memory the CPU can address (the host reference device): Inductor's
C++/OpenMP CPU code, run in place on the hal memory.

Inductor's CPU code generation assumes CPU tensors throughout (its scheduler and kernels test for the CPU
device in many places), so rather than teaching it a second CPU-like device, this pass turns the graph of a
hal device into a CPU graph with a thin boundary, after AOTAutograd and Inductor's own post-grad passes
(register_backend_for_device's device_custom_pass):

  - the hal inputs become CPU inputs: Inductor lowers the graph with CPU twins of their fake tensors
    (cpu_inputs_for_lowering), and the generated code takes all of them as CPU views of the same bytes in one
    call at its top (_C.compile_host_views, which waits for each device's current stream first, so the CPU
    code runs in stream order; HostWrapperCodegen writes the call). Inductor then treats them as any CPU
    input: a mutated input (BatchNorm's running statistics) is written in place, inside its fused kernel;
  - every device argument inside the graph (factories, _to_copy) that names hal names the CPU instead;
  - each output that was a hal tensor leaves as a hal tensor over the same bytes, all of them in one call at
    the compiled code's return (_C.compile_host_outputs; HostWrapperCodegen writes it from the devices this
    pass records): the compiled code allocates all its buffers in the device's memory, so outputs are not
    copied. The activations a training forward saves for its backward stay CPU tensors (over the device's
    memory all the same, which its statistics count): only the backward graph takes them, and it would view
    them as CPU tensors again. Wrapping and unwrapping them cost a small model's step 5% (the norm model
    on the host device: 1.17x -> 1.11x compiled CPU tensors, in one process). Each CPU view shares its hal
    tensor's version counter, so autograd still sees an in-place change to a saved input.

The fake tensors recorded on the nodes follow: each becomes a CPU fake tensor over the same fake storage, so
Inductor's alias analysis still sees what aliases what.

Inductor's layout optimization (channels-last around convolutions) works as on CPU tensors: every node is a
CPU node by then, and compile_host_outputs hands back each output in whatever strides its CPU buffer has. So
the activations a forward saves for its backward keep the layout Inductor chose (channels-last in a conv
net), which the backward graph is compiled for, as on CPU tensors; Inductor itself keeps the strides of what
the user sees. (Pinning every output to its fake tensor's strides instead cost a conv net's training step 10%
in layout copies on the host device.)
"""
import hashlib
from pathlib import Path

import torch
from torch._inductor.virtualized import V

from torch_hal.compile import boundary_ops  # noqa: F401  (the fake kernels of the boundary ops)
from torch_hal.compile.graph_devices import recorded_device_indices

_CPU = torch.device("cpu")
_HOST_GRAPH_KEY = "torch_hal_host_graph"  # set in a rewritten graph module's meta
_HOST_INPUTS_KEY = "torch_hal_host_inputs"  # the names of its inputs that are hal tensors at run time
_HOST_OUTPUTS_KEY = "torch_hal_host_outputs"  # per output, the hal device whose tensor it was, or -1
_HOST_SAVED_FROM_KEY = "torch_hal_host_saved_from"  # the first output that only the backward takes


def _is_hal(value) -> bool:
    return isinstance(value, torch.Tensor) and value.device.type == "hal"


def _cpu_device(value):
    if isinstance(value, torch.device) and value.type == "hal":
        return _CPU
    if isinstance(value, str) and value.split(":")[0] == "hal":
        return _CPU
    return value


def _map(value, fn):
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return fn(value)


def _device_index(value) -> int:
    return value.device.index if value.device.index is not None else torch.hal.current_device()


def _first_saved_activation(output: torch.fx.Node, count: int) -> int:
    """The index of a training forward's first output that only its backward takes (the activations AOTAutograd
    saves: they follow the outputs the user sees, which Inductor records on the output node), or ``count``
    where the graph has none, or says nothing of what the user sees."""
    visible = output.meta.get("user_visible_output_idxs")
    return max(visible) + 1 if visible else count


def rewrite_for_host(gm: torch.fx.GraphModule) -> None:
    gm.meta[_HOST_GRAPH_KEY] = True
    graph = gm.graph
    output = next(n for n in graph.nodes if n.op == "output")
    outputs = output.args[0] if isinstance(output.args[0], (tuple, list)) else (output.args[0],)
    devices = []
    for o in outputs:
        on_hal = isinstance(o, torch.fx.Node) and _is_hal(o.meta.get("val"))
        devices.append(_device_index(o.meta["val"]) if on_hal else -1)
    gm.meta[_HOST_OUTPUTS_KEY] = devices
    gm.meta[_HOST_SAVED_FROM_KEY] = _first_saved_activation(output, len(outputs))
    hal_inputs = [n for n in graph.nodes if n.op == "placeholder" and _is_hal(n.meta.get("val"))]
    gm.meta[_HOST_INPUTS_KEY] = [n.target for n in hal_inputs]
    aot = V.aot_compilation
    for node in graph.nodes:
        if aot and node.op == "get_attr":
            _constant_as_cpu_view(gm, node.target)
        if node.op == "call_function":
            node.args = _map(node.args, _cpu_device)
            node.kwargs = _map(node.kwargs, _cpu_device)
        if (node.op in ("placeholder", "call_function") or aot and node.op == "get_attr") and "val" in node.meta:
            node.meta["val"] = _map(node.meta["val"], _cpu_twin)
    graph.lint()
    gm.recompile()


def _constant_as_cpu_view(gm: torch.fx.GraphModule, target: str) -> None:
    """AOTInductor builds a CPU model of a host graph (its package runs on the CPU runtime, torch_hal.compile.aoti
    hands it hal memory): a hal constant of the graph (a parameter or buffer of the exported module, which
    AOTInductor's unlifted module holds as an attribute of its own submodules) becomes its CPU view, which
    AOTInductor serializes into the package as it does any CPU constant."""
    *path, name = target.split(".")
    owner = gm
    for part in path:
        owner = getattr(owner, part)
    value = getattr(owner, name, None)
    if not _is_hal(value):
        return
    view = torch.ops.torch_hal.cpu_view.default(value.detach())
    if isinstance(value, torch.nn.Parameter):
        view = torch.nn.Parameter(view, requires_grad=False)
    if name in owner._parameters:
        owner._parameters[name] = view
    elif name in owner._buffers:
        owner._buffers[name] = view
    else:
        setattr(owner, name, view)


def host_input_names(graph_module) -> list:
    """The names of a host graph's inputs that are hal tensors when it runs (the wrapper views them as CPU)."""
    return list(getattr(graph_module, "meta", {}).get(_HOST_INPUTS_KEY, ()))


def host_output_devices(graph_module) -> list:
    """Per output of a host graph, the hal device whose tensor it was (its buffer is that device's memory), or
    -1."""
    return list(getattr(graph_module, "meta", {}).get(_HOST_OUTPUTS_KEY, ()))


def host_returned_devices(graph_module) -> list:
    """Per output of a host graph, the hal device it leaves on as a hal tensor (the wrapper hands it back so),
    or -1 where it leaves as it is: not a hal tensor, or an activation only the backward takes."""
    devices = host_output_devices(graph_module)
    saved_from = getattr(graph_module, "meta", {}).get(_HOST_SAVED_FROM_KEY, len(devices))
    return [device if i < saved_from else -1 for i, device in enumerate(devices)]


def cpu_inputs_for_lowering(graph_module) -> None:
    """Wraps torch._inductor.graph's GraphLowering.run, which Inductor calls with the graph's example inputs
    (fake tensors): for a host graph, the hal ones become their CPU twins, as the rewritten graph's placeholders
    are, so Inductor lowers every input as a CPU tensor. Its hal devices are then added to the devices Inductor
    saw, which a rewritten graph names nowhere: Inductor picks the wrapper code generation by them (hal's,
    HostWrapperCodegen, rather than the CPU's)."""
    lowering = graph_module.GraphLowering
    original = lowering.run
    if getattr(original, "_torch_hal", False):
        return

    def run(self, *args):
        if not getattr(self.module, "meta", {}).get(_HOST_GRAPH_KEY):
            return original(self, *args)
        result = original(self, *(_cpu_twin(a) for a in args))
        if self.aot_mode:  # AOTInductor: a CPU model, which torch_hal.compile.aoti runs on hal memory
            return result
        for index in recorded_device_indices(self.module):
            self.add_device_info(torch.device("hal", index))
        return result

    run._torch_hal = True
    lowering.run = run


def _cpu_twin(value):
    """A hal fake tensor's CPU counterpart: same fake storage, sizes, strides and offset."""
    if not _is_hal(value):
        return value
    return torch.ops.torch_hal.cpu_view.default(value)


def source_digest() -> str:
    """Changes whenever the rewrite or the code generated around hal kernels does: keys Inductor's FX graph cache
    (CustomGraphModulePass.uuid)."""
    here = Path(__file__).parent
    sources = ["host_graph.py", "boundary_ops.py", "host_wrapper.py", "inductor_backends.py", "graph_devices.py",
               "triton_wrapper.py", "device_op_overrides.py"]
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in sources)).hexdigest()
