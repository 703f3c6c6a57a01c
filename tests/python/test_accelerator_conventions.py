"""Device-generic PyTorch conventions on hal (issue 11): the torch.accelerator memory API through a
c10::DeviceAllocator, device capability, DLPack export and import, and memory snapshots in torch.cuda's
format that PyTorch's memory_viz reads. Each failed before: torch.accelerator.memory_allocated() hit an
internal assert, get_device_capability was unsupported, __dlpack_device__ raised "Unknown device type hal"."""
import gc
import pickle
import textwrap

import numpy as np
import pytest
import torch
from torch.utils.dlpack import DLDeviceType

from conftest import run_python


def run_ok(code: str, **env) -> str:
    result = run_python(textwrap.dedent(code), **env)
    assert result.returncode == 0, f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result.stdout


# torch.accelerator memory API


def test_accelerator_memory_api_reports_the_caching_allocator(hal0):
    gc.collect()  # tensors of earlier tests held by reference cycles must not be freed mid-measurement
    torch.accelerator.empty_cache()
    before = torch.accelerator.memory_allocated(hal0)
    x = torch.empty(1 << 20, device=hal0)  # 4 MiB
    assert torch.accelerator.memory_allocated(hal0) - before == x.nbytes
    assert torch.accelerator.memory_allocated(hal0) == torch.hal.memory_allocated(hal0)
    stats = torch.accelerator.memory_stats(hal0)
    assert stats["allocated_bytes.all.current"] == torch.hal.memory_stats(hal0)["allocated_bytes.all.current"]
    assert stats["num_device_alloc"] >= 1
    torch.accelerator.reset_peak_memory_stats(hal0)
    peak = torch.accelerator.max_memory_allocated(hal0)
    y = torch.empty(1 << 20, device=hal0)
    assert torch.accelerator.max_memory_allocated(hal0) == peak + y.nbytes
    del x, y
    reserved = torch.accelerator.memory_reserved(hal0)
    assert reserved >= 2 * (4 << 20)
    torch.accelerator.empty_cache()
    assert torch.accelerator.memory_reserved(hal0) < reserved
    torch.accelerator.reset_accumulated_memory_stats(hal0)
    assert torch.accelerator.memory_stats(hal0)["allocated_bytes.all.allocated"] == 0
    free, total = torch.accelerator.get_memory_info(hal0)
    assert 0 < free <= total == torch.hal.get_device_properties(0).total_memory


def test_accelerator_memory_api_names_a_missing_device():
    with pytest.raises(Exception, match="hal:7"):
        torch.accelerator.memory_stats(7)


def test_device_capability_lists_every_dtype_but_quantized(hal0):
    dtypes = torch.accelerator.get_device_capability(hal0)["supported_dtypes"]
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.complex64, torch.int64,
                  torch.bool, torch.uint8, torch.float8_e4m3fn):
        assert dtype in dtypes
    assert torch.qint8 not in dtypes
    with pytest.raises(IndexError, match="hal:7"):
        torch.accelerator.get_device_capability(torch.device("hal", 7))


# DLPack


def test_host_device_exports_cpu_memory_to_numpy_and_imports_it_back(hal0):
    x = torch.arange(12.0, device=hal0).reshape(3, 4)
    assert x.__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    a = np.from_dlpack(x.t())  # a strided view
    assert a.ctypes.data == x.data_ptr() and np.array_equal(a, x.cpu().t().numpy())
    y = torch.from_dlpack(x)  # a hal tensor stays on hal, aliasing
    assert y.device == hal0 and y.data_ptr() == x.data_ptr()
    n = np.arange(5.0)
    z = torch.from_dlpack(n, device="hal:0")  # host memory is the host device's memory: no copy
    assert z.device == hal0 and z.data_ptr() == n.ctypes.data
    z += 1
    assert n[0] == 1.0
    assert torch.from_dlpack(n, device="hal:0", copy=True).data_ptr() != n.ctypes.data


def test_dlpack_refuses_what_it_cannot_carry(hal0):
    with pytest.raises(BufferError, match="require gradient"):
        torch.ones(2, device=hal0, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="conjugate"):
        torch.ones(2, dtype=torch.complex64, device=hal0).conj().__dlpack__()


def test_dlpack_capsules_round_trip_through_torch(hal0):
    x = torch.arange(4, device=hal0)
    capsule = torch.utils.dlpack.to_dlpack(x)
    y = torch.from_dlpack(capsule)
    assert y.device == hal0 and y.data_ptr() == x.data_ptr()
    with pytest.raises(Exception, match="only once|used"):
        torch.from_dlpack(capsule)


def test_device_without_host_access_exports_as_kDLExtDev():
    out = run_ok("""
        import numpy as np, torch, torch_hal
        x = torch.arange(6.0, device="hal:1")
        print("device", tuple(map(int, x.__dlpack_device__())))
        y = torch.from_dlpack(x)
        print("alias", y.device, y.data_ptr() == x.data_ptr())
        n = np.arange(3.0)
        z = torch.from_dlpack(n, device="hal:1")
        print("copied", z.device, z.data_ptr() != n.ctypes.data, z.cpu().tolist())
        try:
            torch.from_dlpack(n, device="hal:1", copy=False)
        except ValueError as e:
            print("refused", "without copying" in str(e))
        print("to_cpu", torch.from_dlpack(x, device="cpu").tolist())
    """, TORCH_HAL_HOST_ACCESSIBLE="0", TORCH_HAL_HOST_DEVICES="2")
    for line in ("device (12, 1)", "alias hal:1 True", "copied hal:1 True [0.0, 1.0, 2.0]", "refused True",
                 "to_cpu [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]"):
        assert line in out, out


# memory snapshots


def test_snapshot_in_torch_cuda_format_is_read_by_memory_viz(hal0, tmp_path):
    from torch.cuda import _memory_viz

    torch.hal.memory._record_memory_history(max_entries=10_000)
    try:
        def allocate_here():
            return torch.empty(1000, device=hal0)

        kept = allocate_here()
        dropped = torch.empty(3 << 20, device=hal0)
        del dropped
        with pytest.raises(torch.OutOfMemoryError):
            torch.empty(1 << 50, device=hal0)
        snapshot = torch.hal.memory._snapshot()
        torch.hal.memory._dump_snapshot(str(tmp_path / "snapshot.pickle"))
    finally:
        torch.hal.memory._record_memory_history(enabled=None)
    actions = [e["action"] for e in snapshot["device_traces"][0]]
    for action in ("alloc", "free_requested", "free_completed", "segment_alloc", "oom"):
        assert action in actions
    mine = [b for s in snapshot["segments"] for b in s["blocks"] if b["address"] == kept.data_ptr()]
    assert mine and any(f["name"] == "allocate_here" for f in mine[0]["frames"])
    assert "allocate_here" in mine[0]["context"]
    # PyTorch's own readers of torch.cuda snapshots parse it (flame graphs formatted as plain text here).
    assert "segments:" in _memory_viz.segsum(snapshot)
    assert "raise OutOfMemoryError" in _memory_viz.trace(snapshot)
    assert "allocate_here" in _memory_viz.memory(snapshot, format_flamegraph=lambda lines: lines)
    assert "<html" in _memory_viz.trace_plot(snapshot).lower()
    with open(tmp_path / "snapshot.pickle", "rb") as f:
        assert set(pickle.load(f)) == {"segments", "device_traces", "allocator_settings"}
    assert torch.hal.memory._snapshot()["device_traces"][0] == []  # stopping drops the history


# profiler


def test_legacy_profiler_times_ops_on_the_device(hal0):
    x = torch.randn(128, 128, device=hal0)
    with torch.autograd.profiler.profile(use_device="hal") as prof:
        (x @ x).relu().sum()
    events = {e.key: e for e in prof.key_averages()}
    assert events["aten::mm"].device_time_total > 0  # measured between two hal events
    assert all(e.cpu_time_total >= 0 and e.device_time_total >= 0 for e in events.values())
    assert "HAL total" in prof.key_averages().table(row_limit=5)


def test_host_cache_calls_of_torch_accelerator_work():
    """PyTorch 2.13's torch.accelerator.empty_host_cache() asks the accelerator's host allocator, and
    dereferenced null for hal before hal registered its pinned-memory cache as one (a segfault on a valid call)."""
    if not hasattr(torch.accelerator, "empty_host_cache"):
        pytest.skip("torch.accelerator.empty_host_cache is PyTorch 2.12+")
    pinned = torch.empty(1 << 16, pin_memory=True)
    assert pinned.is_pinned()
    del pinned
    torch.accelerator.empty_host_cache()
