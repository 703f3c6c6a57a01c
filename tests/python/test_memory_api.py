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


def test_record_stream_defers_reuse_without_error(hal0):
    side = torch.hal.Stream(hal0)
    x = torch.empty(1 << 20, device=hal0)
    with torch.hal.stream(side):
        x.fill_(1.0)
    x.record_stream(side)
    del x
    torch.hal.synchronize(hal0)
    y = torch.ones(1 << 20, device=hal0)
    assert y.sum().item() == float(1 << 20)


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
