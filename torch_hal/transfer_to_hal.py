"""Run unmodified CUDA scripts on hal: ``import torch_hal.transfer_to_hal`` at the top of a script (or
``python -c "import torch_hal.transfer_to_hal; exec(open('train.py').read())"``) maps, for the rest of the
process, what a CUDA script asks of ``torch.cuda`` and of the ``"cuda"`` device to hal.

Importing the module activates it; there is no way back (as with torch_npu's ``transfer_to_npu``). What it maps:

- **Devices.** ``"cuda"``, ``"cuda:N"`` and ``torch.device("cuda"[, N])`` become ``hal`` / ``hal:N`` wherever
  a device is passed: the factory functions (``torch.empty/zeros/ones/full/rand/randn/randint/arange/tensor/
  ...`` and their ``*_like``), ``Tensor.new_*``, ``Tensor.to``, ``Module.to``, ``torch.Generator``,
  ``torch.load(map_location=...)`` (and checkpoints saved on CUDA load onto hal without one), the torch.cuda
  functions below. ``Tensor.cuda()`` / ``Module.cuda()`` move to hal.
- **torch.device.** The ``torch.device`` type cannot be changed (it is a C type), so the name ``torch.device``
  is replaced by a class whose construction maps ``"cuda"`` to ``"hal"`` and returns a real ``torch.device``;
  ``isinstance(x, torch.device)`` keeps working, and pickles of devices load in processes without this module.
  So ``device = torch.device("cuda")`` gives ``device(type='hal', index=0)``; a script's own
  ``if device.type == "cuda":`` branches are then skipped (they are CUDA-only tuning as a rule), and
  ``Tensor.is_cuda`` stays False for hal tensors (PyTorch's own code reads it to pick CUDA kernels).
- **torch.cuda.** ``is_available``, ``device_count``, ``current_device``, ``set_device``, ``device``,
  ``synchronize``, ``Stream``, ``Event``, ``stream``, ``current_stream``, ``default_stream``, the memory
  statistics (``memory_allocated``, ``max_memory_allocated``, ``memory_reserved``, ``empty_cache``,
  ``reset_peak_memory_stats``, ``mem_get_info``, ``memory_stats``, ``memory_summary``,
  ``memory._record_memory_history``, ``memory._snapshot``, ...), the random state (``manual_seed``,
  ``manual_seed_all``, ``seed``, ``get_rng_state``, ...), ``get_device_name``, ``get_device_properties``,
  ``get_device_capability``, ``is_bf16_supported``, ``amp.autocast`` and ``amp.GradScaler``: torch.hal's.
- **AMP.** ``torch.autocast("cuda")`` / ``torch.amp.autocast("cuda")`` and ``torch.amp.GradScaler("cuda")``
  (the default device) run on hal; ``torch.is_autocast_enabled("cuda")`` and friends ask hal's.
- **torch.distributed.** The ``"nccl"`` backend name (alone or in ``"cpu:gloo,cuda:nccl"``) means hal's c10d
  backend, ``"hal"``; ``is_nccl_available()`` says whether it is.
- **torch.backends.cuda / cudnn.** Their switches (``matmul.allow_tf32``, ``cudnn.benchmark``,
  ``cudnn.deterministic``, the SDPA kernel choices, ...) are accepted (PyTorch keeps them as settings);
  ``cufft_plan_cache`` accepts its settings and warns once.
- **Graphs.** ``torch.cuda.CUDAGraph``, ``torch.cuda.graph``, ``make_graphed_callables``,
  ``graph_pool_handle`` and ``is_current_stream_capturing`` are hal's (``torch.hal.HALGraph``, ...): captured
  and replayed on the hal device.
- **CUDA-only features** with no hal equivalent warn once each, naming the feature: ``torch.cuda.nvtx``
  (no-ops), ``set_sync_debug_mode`` (no-op), ``cufft_plan_cache``; the device queries CUDA
  alone can answer (``utilization``, ``temperature``, ``power_draw``, ``clock_rate``, ``jiterator``) raise
  NotImplementedError naming the feature rather than give a made-up number.
"""
import functools
import re
import warnings
from typing import Any, Callable, Set

import torch
import torch_hal  # noqa: F401  (registers the hal device first)

_HAL = "hal"
_RealDevice = type(torch.device("cpu"))
_CUDA_STRING = re.compile(r"^cuda(:\d+)?$")
_warned: Set[str] = set()
_active = False


def _warn_once(feature: str, consequence: str) -> None:
    """One warning per CUDA-only feature per process, whatever the warning filters say about repeats."""
    if feature in _warned:
        return
    _warned.add(feature)
    warnings.warn(f"torch_hal.transfer_to_hal: {feature} is CUDA-only and has no hal equivalent; {consequence}",
                  UserWarning, stacklevel=3)


def _map(value: Any) -> Any:
    """"cuda" / "cuda:N" / torch.device("cuda", N) as the hal device; anything else as it is."""
    if isinstance(value, str):
        return _HAL + value[4:] if _CUDA_STRING.match(value) else value
    if type(value) is _RealDevice and value.type == "cuda":
        return _RealDevice(_HAL, value.index) if value.index is not None else _RealDevice(_HAL)
    return value


def _mapped(fn: Callable) -> Callable:
    """fn with every CUDA device among its arguments mapped to hal."""
    if getattr(fn, "_torch_hal_mapped", False):
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if args:
            args = tuple(_map(a) for a in args)
        if kwargs:
            kwargs = {k: _map(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    call._torch_hal_mapped = True
    return call


# ---------------------------------------------------------------------------------------------- devices
_FACTORIES = (
    "empty", "empty_like", "empty_strided", "empty_permuted", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm", "arange",
    "range", "linspace", "logspace", "eye", "tensor", "as_tensor", "asarray", "scalar_tensor", "tril_indices",
    "triu_indices", "normal", "frombuffer", "sparse_coo_tensor", "sparse_csr_tensor", "complex", "polar",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window", "empty_quantized",
)
_TENSOR_METHODS = ("to", "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full", "new_tensor",
                   "pin_memory")


def _stand_in(real: type, name: str) -> type:
    """Stands in for the name torch.<name> of the C type `real` (torch.device, torch.Generator), which cannot be
    patched: constructing it builds a real object with "cuda" mapped to hal, and isinstance/issubclass answer as
    for the real type, so annotations, pickles and checks in user code keep working."""

    class Meta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

    class StandIn(metaclass=Meta):
        def __new__(cls, *args, **kwargs):
            return real(*(_map(a) for a in args), **{k: _map(v) for k, v in kwargs.items()})

    StandIn.__module__, StandIn.__name__, StandIn.__qualname__, StandIn.__doc__ = "torch", name, name, real.__doc__
    return StandIn


_Device = _stand_in(_RealDevice, "device")
_Generator = _stand_in(torch.Generator, "Generator")


def _tensor_cuda(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    """Tensor.cuda(): the tensor on hal (the current hal device, or ``device``: an index or a CUDA name)."""
    target = _RealDevice(_HAL, torch.hal.current_device()) if device is None else _map(device)
    if isinstance(target, int):
        target = _RealDevice(_HAL, target)
    return self.to(target, non_blocking=non_blocking, memory_format=memory_format)


def _module_cuda(self, device=None):
    """Module.cuda(): the module's parameters and buffers on hal."""
    return self._apply(lambda t: _tensor_cuda(t, device))


def _map_location(location):
    if isinstance(location, dict):
        return {k: _map(v) for k, v in location.items()}  # keys are the saved locations, values the targets
    return _map(location)


def _load_wrapper(load):
    @functools.wraps(load)
    def hal_load(f, map_location=None, *args, **kwargs):
        if map_location is None:
            # Storages saved on CUDA ("cuda:N") restore onto hal:N; everything else restores as it was saved.
            from torch.serialization import default_restore_location

            def map_location(storage, location):
                return default_restore_location(storage, _map(location) if location.startswith("cuda") else location)
        else:
            map_location = _map_location(map_location)
        return load(f, map_location, *args, **kwargs)

    hal_load._torch_hal_mapped = True
    return hal_load


# ---------------------------------------------------------------------------------------------- AMP
_RealAutocast = torch.amp.autocast_mode.autocast
_RealGradScaler = torch.amp.GradScaler


class _Autocast(_RealAutocast):
    __doc__ = _RealAutocast.__doc__

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        super().__init__(_map(device_type), dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class _CudaAmpAutocast(_RealAutocast):
    """torch.cuda.amp.autocast(enabled, dtype, cache_enabled) on hal."""

    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        super().__init__(_HAL, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class _GradScaler(_RealGradScaler):
    __doc__ = _RealGradScaler.__doc__

    def __init__(self, device="cuda", *args, **kwargs):
        super().__init__(_map(device), *args, **kwargs)


class _CudaAmpGradScaler(_RealGradScaler):
    """torch.cuda.amp.GradScaler(init_scale, growth_factor, ...) on hal."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__(_HAL, init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


# ---------------------------------------------------------------------------------------------- torch.cuda
_CUDA_TO_HAL = (
    "is_available", "device_count", "current_device", "set_device", "device", "synchronize", "Stream", "Event",
    "stream", "current_stream", "default_stream", "set_stream", "StreamContext",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "empty_cache",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_accumulated_memory_stats", "mem_get_info",
    "memory_stats", "memory_summary", "memory_snapshot", "set_per_process_memory_fraction",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "set_rng_state",
    "get_rng_state_all", "set_rng_state_all", "default_generators",
    "get_device_name", "get_device_properties", "get_device_capability", "is_bf16_supported", "is_initialized",
    "init", "_lazy_init", "get_amp_supported_dtype",
)
_CUDA_MEMORY_TO_HAL = (
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "empty_cache",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_accumulated_memory_stats", "mem_get_info",
    "memory_stats", "memory_summary", "memory_snapshot", "set_per_process_memory_fraction",
    "_record_memory_history", "_snapshot", "_dump_snapshot",
)


class _Nvtx:
    """torch.cuda.nvtx: annotations for NVIDIA's profilers; no-ops on hal (warned once)."""

    @staticmethod
    def _note():
        _warn_once("torch.cuda.nvtx", "its ranges and marks are ignored (use torch.profiler.record_function "
                   "for ranges that show in torch.profiler traces)")

    def range_push(self, msg):
        self._note()
        return 0

    def range_pop(self):
        self._note()
        return 0

    def range_start(self, msg):
        self._note()
        return 0

    def range_end(self, range_id):
        self._note()

    def mark(self, msg):
        self._note()

    def range(self, msg, *args, **kwargs):
        self._note()
        import contextlib

        return contextlib.nullcontext()


def _set_sync_debug_mode(debug_mode):
    _warn_once("torch.cuda.set_sync_debug_mode", "the setting is ignored")


def _get_sync_debug_mode():
    return 0


def _unanswerable(name: str):
    def query(*args, **kwargs):
        raise NotImplementedError(f"torch.cuda.{name} is CUDA-only (NVML/CUDA driver) and has no hal equivalent "
                                  f"under torch_hal.transfer_to_hal; torch.hal.get_device_properties() and "
                                  f"torch.hal.mem_get_info() tell what hal knows about the device")

    query.__name__ = name
    return query


class _CufftPlanCache:
    """torch.backends.cuda.cufft_plan_cache: CUDA's FFT plan cache; its settings are accepted and ignored."""

    def __getitem__(self, device):
        return self

    def __getattr__(self, name):
        if name in ("size", "max_size"):
            _warn_once("torch.backends.cuda.cufft_plan_cache", "its settings are accepted and ignored")
            return 0
        raise AttributeError(name)

    def __setattr__(self, name, value):
        _warn_once("torch.backends.cuda.cufft_plan_cache", "its settings are accepted and ignored")

    def clear(self):
        _warn_once("torch.backends.cuda.cufft_plan_cache", "its settings are accepted and ignored")


def _install_cuda_module() -> None:
    cuda, hal = torch.cuda, torch.hal
    for name in _CUDA_TO_HAL:
        target = getattr(hal, name, None)
        if target is None:
            continue
        setattr(cuda, name, _mapped(target) if callable(target) and not isinstance(target, type) else target)
    for name in _CUDA_MEMORY_TO_HAL:
        target = getattr(hal.memory, name, None)
        if target is not None:
            setattr(cuda.memory, name, _mapped(target))
    # Graphs are hal's (torch_hal/graphs.py): captured and replayed on the hal device.
    cuda.is_current_stream_capturing = hal.is_current_stream_capturing
    cuda.amp.autocast = _CudaAmpAutocast
    cuda.amp.GradScaler = _CudaAmpGradScaler
    if hasattr(cuda.amp, "autocast_mode"):
        cuda.amp.autocast_mode.autocast = _CudaAmpAutocast
    if hasattr(cuda.amp, "grad_scaler"):
        cuda.amp.grad_scaler.GradScaler = _CudaAmpGradScaler
    cuda.nvtx = _Nvtx()
    graphs = (("CUDAGraph", hal.HALGraph), ("graph", hal.graph), ("make_graphed_callables", hal.make_graphed_callables),
              ("graph_pool_handle", hal.graph_pool_handle))
    for name, value in graphs:
        setattr(cuda, name, value)
        if hasattr(cuda, "graphs"):
            setattr(cuda.graphs, name, value)
    cuda.set_sync_debug_mode = _set_sync_debug_mode
    cuda.get_sync_debug_mode = _get_sync_debug_mode
    for name in ("utilization", "temperature", "power_draw", "clock_rate", "memory_usage"):
        setattr(cuda, name, _unanswerable(name))
    if hasattr(cuda, "jiterator"):
        for name in ("_create_jit_fn", "_create_multi_output_jit_fn"):
            setattr(cuda.jiterator, name, _unanswerable(f"jiterator.{name}"))
    torch.backends.cuda.cufft_plan_cache = _CufftPlanCache()


# ---------------------------------------------------------------------------------------------- distributed
def _map_backend(backend):
    if not isinstance(backend, str):
        return backend
    if backend.lower() == "nccl":
        return "hal"
    if ":" in backend:  # "cpu:gloo,cuda:nccl"
        parts = []
        for part in backend.split(","):
            dev, _, name = part.partition(":")
            dev = _HAL if dev.strip() == "cuda" else dev
            name = "hal" if name.strip().lower() == "nccl" else name
            parts.append(f"{dev}:{name}")
        return ",".join(parts)
    return backend


def _backend_mapped(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if args:
            args = (_map_backend(args[0]),) + args[1:]
        if "backend" in kwargs:
            kwargs["backend"] = _map_backend(kwargs["backend"])
        if "device_id" in kwargs:
            kwargs["device_id"] = _map(kwargs["device_id"])
        return fn(*args, **kwargs)

    return call


def _install_distributed() -> None:
    if not torch.distributed.is_available():
        return
    import torch.distributed as dist
    from torch.distributed import distributed_c10d

    from torch_hal import distributed as hal_distributed

    dist.init_process_group = distributed_c10d.init_process_group = _backend_mapped(dist.init_process_group)

    new_group = dist.new_group

    @functools.wraps(new_group)
    def hal_new_group(ranks=None, timeout=None, backend=None, *args, **kwargs):
        return new_group(ranks, timeout, _map_backend(backend), *args, **kwargs)

    dist.new_group = distributed_c10d.new_group = hal_new_group
    dist.is_nccl_available = distributed_c10d.is_nccl_available = hal_distributed.is_available


# ---------------------------------------------------------------------------------------------- install
def _install() -> None:
    global _active
    if _active:
        return
    for name in _FACTORIES:
        fn = getattr(torch, name, None)
        if fn is not None:
            setattr(torch, name, _mapped(fn))
    for name in _TENSOR_METHODS:
        setattr(torch.Tensor, name, _mapped(getattr(torch.Tensor, name)))
    torch.Tensor.cuda = _tensor_cuda
    torch.nn.Module.to = _mapped(torch.nn.Module.to)
    torch.nn.Module.cuda = _module_cuda
    torch.device = _Device
    torch.Generator = _Generator
    torch.load = _load_wrapper(torch.load)
    torch.autocast = torch.amp.autocast = torch.amp.autocast_mode.autocast = _Autocast
    torch.amp.GradScaler = torch.amp.grad_scaler.GradScaler = _GradScaler
    for name in ("is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled", "set_autocast_dtype"):
        setattr(torch, name, _mapped(getattr(torch, name)))
    for name in ("is_autocast_available",):
        if hasattr(torch.amp.autocast_mode, name):
            setattr(torch.amp.autocast_mode, name, _mapped(getattr(torch.amp.autocast_mode, name)))
    _install_cuda_module()
    _install_distributed()
    _active = True


def is_active() -> bool:
    return _active


_install()
