"""Graph capture and replay for hal devices, in ``torch.cuda``'s shape: ``torch.hal.HALGraph`` (capture_begin,
capture_end, replay, reset, pool), the ``torch.hal.graph`` context manager, ``torch.hal.graph_pool_handle``,
``torch.hal.make_graphed_callables`` and ``torch.hal.is_current_stream_capturing``; ``torch.accelerator.Graph`` reaches the same recorder on PyTorch 2.12+
(csrc/torch/runtime/graph_registration.cpp).

How it works today: the recorded list of aten calls (issue 43's part for the host reference device, and the
adapters without a graph API of their own). Capture runs nothing, as a CUDA graph capture runs nothing: every aten
call made while capturing is recorded with its arguments; a call that returns new tensors gets them allocated
(with the sizes and strides of the op's meta kernel) and kept alive by the graph, as a CUDA graph keeps its private
pool's blocks; views are made at once (they only describe memory). ``replay()`` runs the recorded calls in order:
in-place and ``out=`` calls write where they wrote at capture, and a call that returned new tensors writes them
into the ones handed out at capture. So tensors created or written during capture hold the results of the latest
replay, and the Python code, the module hooks and autograd's bookkeeping of the captured step run once.

Random ops draw from the device's generator at every replay, so dropout differs per replay and N replays draw what
N eager steps draw after the same seed. What a replay cannot repeat raises ``GraphCaptureError`` while capturing,
and the capture is abandoned with the device left usable: reading a value on the host (``.item()``, ``.cpu()``,
``print``), a synchronization, an op whose output shape depends on data (``nonzero``, boolean masks), and an op
with no meta kernel to size its output.

Not yet: the vendor graph APIs (CUDA and HIP graphs, Level Zero command lists), which remove the launch per op on
GPUs; memory pools shared between graphs (a pool handle is accepted and each graph keeps its own tensors)."""
import contextlib
import functools
import itertools
import threading
from typing import Any, Optional

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten

from torch_hal import _C

__all__ = ["GraphCaptureError", "HALGraph", "graph", "graph_pool_handle", "is_current_stream_capturing",
           "make_graphed_callables"]


class GraphCaptureError(RuntimeError):
    """An operation that a graph replay cannot repeat was called while capturing."""


_aten = torch.ops.aten
# Host reads and data-dependent shapes: a replay cannot give the host a new value or a new shape.
_UNCAPTURABLE = {
    _aten._local_scalar_dense.default: "reads a tensor's value on the host (.item(), .tolist(), if tensor: ...)",
    _aten.nonzero.default: "has an output shape that depends on the data (nonzero, masked_select, x[mask])",
    _aten.masked_select.default: "has an output shape that depends on the data (nonzero, masked_select, x[mask])",
    _aten.unique_consecutive.default: "has an output shape that depends on the data (unique)",
    _aten._unique2.default: "has an output shape that depends on the data (unique)",
    _aten.equal.default: "returns a Python bool computed from the data",
    _aten.is_nonzero.default: "returns a Python bool computed from the data",
}
# Allocations: their contents are undefined, so a replay has nothing to redo.
_ALLOCATIONS = {_aten.empty.memory_format, _aten.empty_strided.default, _aten.empty_like.default,
                _aten.new_empty.default, _aten.new_empty_strided.default}

_state = threading.local()
_pool_ids = itertools.count(1)


def _capturing_graph() -> Optional["HALGraph"]:
    return getattr(_state, "graph", None)


def is_current_stream_capturing() -> bool:
    """Whether a graph is being captured on this thread (``torch.cuda.is_current_stream_capturing``)."""
    return _capturing_graph() is not None


def graph_pool_handle() -> tuple:
    """An opaque memory pool id that graphs may share (``torch.cuda.graph_pool_handle``)."""
    return (0, next(_pool_ids))


def check_not_capturing(what: str, *, from_dispatch: bool = False) -> None:
    """Raises GraphCaptureError when called while a graph is being captured: `what` cannot be recorded. The
    capture is abandoned: nothing recorded is kept, and until capture_end() or reset() (the `graph` context
    manager calls it on the error) ops run at once, as without a capture. (From inside the recorder's dispatch the
    recorder cannot leave PyTorch's mode stack: it only stops recording there.)"""
    g = _capturing_graph()
    if g is not None:
        if from_dispatch:
            g._fail()
        else:
            g._abandon()
        raise GraphCaptureError(f"{what} while capturing a hal graph: a replay cannot repeat it. Move it out of "
                                "the captured region (before capture_begin or after capture_end).")


def _is_hal(t) -> bool:
    return isinstance(t, torch.Tensor) and t.device.type == "hal"


def _on_meta(value):
    """The op's arguments with hal tensors as meta tensors of the same sizes, strides and dtype, and hal devices
    as the meta device: what the op's meta kernel needs to give its outputs' layout."""
    if _is_hal(value):
        return torch.empty_strided(value.size(), value.stride(), dtype=value.dtype, device="meta")
    if isinstance(value, torch.device) and value.type == "hal":
        return torch.device("meta")
    return value


def _on_hal(meta, device):
    if isinstance(meta, torch.Tensor) and meta.device.type == "meta":
        return torch.empty_strided(meta.size(), meta.stride(), dtype=meta.dtype, device=device)
    return meta


def _written_arguments(func, args, kwargs):
    """The arguments an in-place or out= op writes, by their alias set in the schema: {alias set: tensor}."""
    written = {}
    positional = list(args)
    for i, argument in enumerate(func._schema.arguments):
        info = argument.alias_info
        if info is None or not info.is_write:
            continue
        value = positional[i] if i < len(positional) else kwargs.get(argument.name)
        for alias_set in info.before_set:
            written[alias_set] = value
    return written


def _out_overload(func):
    """func's out= overload when it takes exactly func's arguments and one `out`, else None. Losses (ops with a
    `reduction` argument) are left out: ATen's out= forms of several (mse_loss) resize `out` to the unreduced
    shape first and warn that this is deprecated, on every call."""
    out = getattr(func.overloadpacket, "out", None)
    if out is None or out is func:
        return None
    names = [a.name for a in func._schema.arguments]
    if "reduction" in names:
        return None
    out_names = [a.name for a in out._schema.arguments]
    return out if out_names == names + ["out"] else None


class _Call:
    """One recorded aten call, as a function of no arguments that a replay calls. In-place and out= calls run as
    they were (their writes land where they landed at capture). A call that returned one new tensor runs as its
    out= overload into the tensor handed out at capture, where it has one; otherwise it runs as it was and each
    new tensor it returns is copied into the one handed out at capture (`kept`: result position, tensor)."""
    __slots__ = ("run",)

    def __init__(self, func, args, kwargs, kept):
        out = _out_overload(func) if len(kept) == 1 and len(func._schema.returns) == 1 else None
        if not kept:
            self.run = functools.partial(func, *args, **kwargs)
        elif out is not None:
            self.run = functools.partial(out, *args, **kwargs, out=kept[0][1])
        else:
            self.run = functools.partial(_run_and_copy, func, args, kwargs, kept)

    @property
    def func(self):
        return self.run.args[0] if self.run.func is _run_and_copy else self.run.func


def _run_and_copy(func, args, kwargs, kept):
    results = tree_flatten(func(*args, **kwargs))[0]
    for position, tensor in kept:
        tensor.copy_(results[position])


class _Recorder(TorchDispatchMode):
    """Records every aten call of the captured region into `graph` without running it (views excepted)."""

    def __init__(self, graph: "HALGraph"):
        super().__init__()
        self.graph = graph

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.graph._failed:
            return func(*args, **kwargs)  # an abandoned capture: ops run at once until the recorder is removed
        if func in _UNCAPTURABLE:
            check_not_capturing(f"{func} {_UNCAPTURABLE[func]}", from_dispatch=True)
        if func in _ALLOCATIONS:
            return func(*args, **kwargs)
        if _reads_to_the_host(func, args, kwargs):
            check_not_capturing(f"{func} copies a hal tensor to the host", from_dispatch=True)
        returns = func._schema.returns
        if returns and all(r.alias_info is not None and not r.alias_info.is_write for r in returns):
            return func(*args, **kwargs)  # a view: metadata only, made now
        written = _written_arguments(func, args, kwargs)
        fresh = [i for i, r in enumerate(returns) if r.alias_info is None]
        outputs = None
        if fresh:
            # The new tensors' layout from the op's meta kernel (in-place writes go to meta copies there).
            try:
                meta_result = func(*tree_map(_on_meta, args), **tree_map(_on_meta, kwargs))
            except (NotImplementedError, RuntimeError) as error:
                check_not_capturing(f"{func} has no meta kernel to size its output ({error})", from_dispatch=True)
            outputs = tree_map(lambda m: _on_hal(m, self.graph.device), meta_result)
        results = []
        for i, r in enumerate(returns):
            if r.alias_info is not None:
                results.append(written[next(iter(r.alias_info.before_set))])
            else:
                results.append(outputs[i] if len(returns) > 1 else outputs)
        kept = []
        if fresh:
            flat = tree_flatten(outputs)[0]
            kept = [(k, t) for k, t in enumerate(flat) if isinstance(t, torch.Tensor)]
            if len(returns) > 1 and len(fresh) < len(returns):
                # Mixed results (batch norm's new outputs beside its running stats): the positions among all.
                flat_all = tree_flatten(tuple(results))[0]
                kept = [(k, t) for k, t in enumerate(flat_all) if isinstance(t, torch.Tensor)
                        and any(t is f for f in flat)]
            self.graph._kept.extend(t for _, t in kept)
        self.graph._calls.append(_Call(func, args, kwargs, kept))
        if not returns:
            return None
        return results[0] if len(returns) == 1 else tuple(results)


def _reads_to_the_host(func, args, kwargs) -> bool:
    """A copy from a hal tensor into host memory (.cpu(), .to("cpu"), cpu_tensor.copy_(hal_tensor))."""
    if func is _aten._to_copy.default:
        target = kwargs.get("device")
        return _is_hal(args[0]) and target is not None and torch.device(target).type == "cpu"
    if func is _aten.copy_.default:
        return isinstance(args[0], torch.Tensor) and args[0].device.type == "cpu" and _is_hal(args[1])
    return False


class HALGraph:
    """A captured sequence of hal work that ``replay()`` runs again (``torch.cuda.CUDAGraph``'s methods)."""

    def __init__(self, keep_graph: bool = False):
        self._calls: list = []
        self._kept: list = []
        self._recorder: Optional[_Recorder] = None
        self._pool: Optional[tuple] = None
        self._captured = False
        self._failed = False
        self._debug = False
        self.device: Optional[torch.device] = None

    def capture_begin(self, pool: Optional[tuple] = None, capture_error_mode: str = "global") -> None:
        """Starts recording this thread's hal work. `pool` is accepted for torch.cuda's API (graphs do not share
        memory yet); capture_error_mode is one of torch.cuda's and changes nothing here."""
        if capture_error_mode not in ("default", "global", "thread_local", "relaxed"):
            raise ValueError(f"capture_error_mode must be default, global, thread_local or relaxed, not "
                             f"{capture_error_mode!r}")
        if _capturing_graph() is not None:
            raise GraphCaptureError("a hal graph is already being captured on this thread: end it first")
        if self._captured:
            raise GraphCaptureError("this graph already holds a capture: call reset() before capturing again")
        self.device = torch.device("hal", _C.current_device())
        self._pool = pool if pool is not None else graph_pool_handle()
        self._calls, self._kept, self._failed = [], [], False
        self._recorder = _Recorder(self)
        self._recorder.__enter__()
        _state.graph = self

    def capture_end(self) -> None:
        if _capturing_graph() is not self and not (self._failed and self._recorder is not None):
            raise GraphCaptureError("capture_end() without a capture_begin() of this graph on this thread")
        failed = self._failed
        self._stop_recording()
        if failed:
            self._abandon()
            raise GraphCaptureError("capture_end() of a capture abandoned on an error: nothing was captured")
        self._captured = True

    def instantiate(self) -> None:
        """Nothing to build for a recorded list (torch.accelerator.Graph calls it)."""
        if not self._captured:
            raise GraphCaptureError("instantiate() before a capture ended")

    def replay(self) -> None:
        """Runs the captured work again, on the current stream."""
        if not self._captured:
            raise GraphCaptureError("replay() before a capture ended")
        # The calls were recorded below autograd (a dispatch mode sees what autograd already decided), so they
        # replay below it too: no graph is built and no view or version check runs a second time.
        with torch._C._AutoDispatchBelowADInplaceOrView():
            for call in self._calls:
                call.run()

    def reset(self) -> None:
        """Drops the capture and the tensors it kept alive; the graph may capture again."""
        self._abandon()

    def pool(self) -> tuple:
        """The id of this graph's memory pool, for another graph's capture_begin(pool=...)."""
        if self._pool is None:
            raise GraphCaptureError("pool() before capture_begin()")
        return self._pool

    def enable_debug_mode(self) -> None:
        self._debug = True

    def debug_dump(self, path: str) -> None:
        """Writes the recorded calls, one per line (after enable_debug_mode())."""
        if not self._debug:
            raise GraphCaptureError("debug_dump() needs enable_debug_mode() before the capture")
        with open(path, "w") as f:
            for call in self._calls:
                f.write(f"{call.func}\n")

    def __len__(self) -> int:
        """The number of recorded calls."""
        return len(self._calls)

    def _stop_recording(self) -> None:
        if self._recorder is not None:
            recorder, self._recorder = self._recorder, None
            recorder.__exit__(None, None, None)
        if _capturing_graph() is self:
            _state.graph = None

    def _fail(self) -> None:
        """Stops recording at once (from inside the recorder, which cannot leave the mode stack there)."""
        self._failed = True
        self._calls, self._kept = [], []
        if _capturing_graph() is self:
            _state.graph = None

    def _abandon(self) -> None:
        """Ends a failed capture: recording stops, nothing recorded is kept, the device stays usable."""
        self._stop_recording()
        self._calls, self._kept, self._captured, self._failed = [], [], False, False


@contextlib.contextmanager
def graph(hal_graph: HALGraph, pool: Optional[tuple] = None, stream: Any = None,
          capture_error_mode: str = "global"):
    """``with torch.hal.graph(g):`` captures the block into `g` (``torch.cuda.graph``). `stream`, as
    torch.cuda's, runs the capture on that stream."""
    with (torch.hal.stream(stream) if stream is not None else contextlib.nullcontext()):
        hal_graph.capture_begin(pool=pool, capture_error_mode=capture_error_mode)
        try:
            yield hal_graph
        except BaseException:
            hal_graph._abandon()
            raise
        hal_graph.capture_end()


def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False,
                           pool: Optional[tuple] = None):
    """Graphed versions of functions or modules (``torch.cuda.make_graphed_callables``): each one's forward and
    backward are captured once, with `sample_args` as its static inputs, and a call replays them inside an
    autograd Function, so the rest of the training step (the optimizer, the loss) stays eager. A module's graphed
    forward runs while it is in the training mode it was captured in, its own forward otherwise. As with
    torch.cuda, the returned outputs are the graph's static tensors, overwritten by the next call."""
    one = not isinstance(callables, tuple)
    if one:
        callables, sample_args = (callables,), (sample_args,)
    graphed = tuple(_graphed_callable(fn, tuple(args), num_warmup_iters, allow_unused_input, pool)
                    for fn, args in zip(callables, sample_args))
    return graphed[0] if one else graphed


def _graphed_callable(fn, args: tuple, num_warmup_iters: int, allow_unused_input: bool, pool: Optional[tuple]):
    if not all(isinstance(a, torch.Tensor) for a in args):
        raise TypeError("make_graphed_callables: sample_args must be tuples of tensors")
    params = tuple(fn.parameters()) if isinstance(fn, torch.nn.Module) else ()
    inputs = args + params
    differentiable = tuple(t for t in inputs if t.requires_grad)

    def run_backward(outputs, grad_outputs):
        wanted = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        return torch.autograd.grad([o for o, _ in wanted], differentiable, [g for _, g in wanted],
                                   allow_unused=allow_unused_input)

    for _ in range(num_warmup_iters):  # lazily created state (optimizer-free here) exists before capture
        outputs, _spec = tree_flatten(fn(*args))
        if differentiable:
            run_backward(outputs, [torch.ones_like(o) for o in outputs])
    forward_graph, backward_graph = HALGraph(), HALGraph()
    with graph(forward_graph, pool=pool):
        static_outputs, spec = tree_flatten(fn(*args))
    static_grad_outputs = [torch.empty_like(o) if o.requires_grad else None for o in static_outputs]
    static_grad_inputs: tuple = ()
    if differentiable:
        with graph(backward_graph, pool=forward_graph.pool()):
            static_grad_inputs = run_backward(static_outputs, static_grad_outputs)
    grad_for = {id(t): g for t, g in zip(differentiable, static_grad_inputs)}

    class Graphed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *call_inputs):
            for static, given in zip(args, call_inputs[:len(args)]):
                if static.data_ptr() != given.data_ptr():
                    static.copy_(given)
            forward_graph.replay()
            return tuple(o.detach() for o in static_outputs)

        @staticmethod
        def backward(ctx, *grads):
            for static, given in zip(static_grad_outputs, grads):
                if static is None:
                    continue
                if given is None:
                    static.zero_()
                else:
                    static.copy_(given)
            if differentiable:
                backward_graph.replay()
            return tuple(grad_for[id(t)].detach() if id(t) in grad_for and grad_for[id(t)] is not None else None
                         for t in inputs)

    def graphed_call(*call_args):
        return tree_unflatten(list(Graphed.apply(*call_args, *params)), spec)

    if isinstance(fn, torch.nn.Module):
        original, training = fn.forward, fn.training

        def forward(*call_args, **kwargs):
            if fn.training == training and not kwargs:
                return graphed_call(*call_args)
            return original(*call_args, **kwargs)

        fn.forward = forward
        return fn
    return graphed_call
