"""The allocator as torch.hal shows it: snapshots with allocation stacks, record_stream, configuration."""
import pytest
import torch

from conftest import run_python


def test_snapshot_records_the_python_stack_that_allocated(hal0):
    torch.hal.memory._record_memory_history(True)
    try:
        marker = torch.empty(123_457, dtype=torch.uint8, device=hal0)  # noqa: F841  (kept alive)
        snapshot = torch.hal.memory_snapshot()
    finally:
        torch.hal.memory._record_memory_history(False)
    blocks = [b for seg in snapshot for b in seg["blocks"] if b["state"] == "active_allocated"]
    mine = [b for b in blocks if b["requested_size"] == 123_457]
    assert mine, "the live block is missing from the snapshot"
    assert "test_snapshot_records_the_python_stack_that_allocated" in mine[0]["context"]
    assert all(seg["total_size"] >= seg["allocated_size"] for seg in snapshot)


RECORD_STREAM_CHILD = """
import torch, torch_hal
host = [i for i in range(torch.hal.device_count()) if torch.hal.get_device_properties(i).vendor == "host"][0]
d = torch.device("hal", host)
assert not torch_hal._C.get_device_properties(host)["host_accessible"]
side = torch.hal.Stream(d)
n = 16 << 20  # 64 MiB of float32: eight device-to-device copies keep the side stream busy for a while
src = torch.ones(n, device=d)
for record in (True, False):
    torch.hal.synchronize(d)
    x = torch.empty(n, device=d)  # allocated on the current (default) stream
    ptr = x.data_ptr()
    side.wait_stream(torch.hal.current_stream(d))
    with torch.hal.stream(side):
        for _ in range(8):
            x.copy_(src)  # queued on the side stream
    if record:
        x.record_stream(side)
    del x  # freed while the side stream's copies into it are still queued
    busy = not side.query()
    y = torch.empty(n, device=d)  # the same size, on the default stream
    print("record" if record else "plain", "busy", busy, "reused", y.data_ptr() == ptr, "still_busy", not side.query())
    side.synchronize()
    z = torch.empty(n, device=d)  # y still holds its block: only x's can serve z
    print("record" if record else "plain", "after_sync_reused", z.data_ptr() == ptr)
    del y, z
"""


def test_record_stream_defers_reuse_until_the_stream_is_done():
    """A block freed while a stream it was recorded on still has queued work is not handed out again until
    that work completes: an allocation of the same size made meanwhile gets other memory, and once the stream
    is synchronized the block serves the next one. Without record_stream the same allocation takes the block
    at once (the control, which shows the allocation would pick that block). In a child process with the host
    device reporting its memory as not host-accessible, so that its copies are queued on the stream's worker,
    as a GPU's are (a host-accessible host device runs them on the calling thread: nothing is ever pending)."""
    out = run_python(RECORD_STREAM_CHILD, TORCH_HAL_HOST_ACCESSIBLE="0")
    assert out.returncode == 0, out.stderr[-3000:]
    lines = set(out.stdout.split("\n"))
    # record_stream: the side stream was busy when the block was freed and when y was allocated; y got other
    # memory, and after synchronizing the block came back.
    assert "record busy True reused False still_busy True" in lines, out.stdout
    assert "record after_sync_reused True" in lines, out.stdout
    # The control: the side stream busy just the same, but the block, never recorded on it, is reused at once.
    assert "plain busy True reused True still_busy True" in lines, out.stdout


def test_peak_stats_reset(hal0):
    x = torch.empty(1 << 22, dtype=torch.uint8, device=hal0)
    del x
    assert torch.hal.max_memory_allocated(hal0) >= 1 << 22
    torch.hal.reset_peak_memory_stats(hal0)
    assert torch.hal.max_memory_allocated(hal0) == torch.hal.memory_allocated(hal0)


def test_alloc_conf_is_applied_and_a_bad_one_is_named():
    good = run_python("import torch, torch_hal\n"
                      "torch.ones(1, device='hal')\n"
                      "print('SPLIT', torch.hal.memory_stats()['max_split_size'])",
                      PYTORCH_HAL_ALLOC_CONF="max_split_size_mb:64")
    assert good.returncode == 0, good.stderr
    assert f"SPLIT {64 << 20}" in good.stdout
    # A bad setting is refused at import, as PyTorch refuses its own config, not at the first allocation.
    bad = run_python("try:\n"
                     "    import torch_hal\n"
                     "except ValueError as e:\n"
                     "    print('ERROR', e)",
                     PYTORCH_HAL_ALLOC_CONF="max_split_size_mb:lots", TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert bad.returncode == 0, bad.stderr
    assert "ERROR" in bad.stdout and "PYTORCH_HAL_ALLOC_CONF" in bad.stdout


def test_invalid_memory_fraction_is_refused(hal0):
    with pytest.raises(ValueError):
        torch.hal.set_per_process_memory_fraction(0.0, hal0)
