"""torch.distributed with NCCL on two GPUs (hal:0 and hal:1 through the NVIDIA adapter): every collective
against the math, DDP of the MLP and of a transformer against single-process training, FSDP2, and a rank
that dies. Skipped without two NVIDIA GPUs and NCCL, but for one rank's run of the NCCL path on one GPU.
The ranks are tests/python/distributed_workers.py."""
import sys
from pathlib import Path

import pytest
import torch

import torch_hal.distributed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from test_distributed import assert_all_ok, run_ranks  # noqa: E402


def nvidia_gpus():
    return [i for i in range(torch.hal.device_count())
            if str(torch.hal.get_device_properties(i).vendor).lower() == "nvidia"]


def nccl_engine():
    gpus = nvidia_gpus()
    return torch_hal.distributed.engine_of(gpus[0]) if gpus else ""


two_gpus = pytest.mark.skipif(len(nvidia_gpus()) < 2 or not nccl_engine().startswith("NCCL"),
                              reason="needs two NVIDIA GPUs and NCCL (libnccl.so.2)")


@pytest.mark.skipif(not nvidia_gpus() or not nccl_engine().startswith("NCCL"),
                    reason="needs an NVIDIA GPU and NCCL (libnccl.so.2)")
def test_one_rank_runs_every_collective_and_ddp_through_nccl(tmp_path):
    """The NCCL path on one GPU (a communicator of one rank): the library loaded, the unique id through the
    store, every collective but send/recv against the math, DDP of a transformer, on hal's streams."""
    results, _ = run_ranks("collectives_ddp_transformer", 1, tmp_path, TORCH_HAL_HOST_DEVICES="1")
    assert_all_ok(results)
    assert "NCCL" in results[0][1], results[0][1]


@two_gpus
def test_collectives_and_ddp_with_nccl(tmp_path):
    results, _ = run_ranks("collectives_ddp_transformer", 2, tmp_path, TORCH_HAL_HOST_DEVICES="1")
    assert_all_ok(results)
    assert "NCCL" in results[0][1], results[0][1]


@two_gpus
def test_fsdp2_with_nccl(tmp_path):
    results, _ = run_ranks("fsdp", 2, tmp_path, TORCH_HAL_HOST_DEVICES="1")
    assert_all_ok(results)


@two_gpus
def test_dead_rank_with_nccl_ends_the_process_with_the_error(tmp_path):
    """torch.cuda's semantics: wait() orders the stream only, so the watchdog ends a rank whose peer died,
    naming the collective, before the rank reads a value the collective never wrote."""
    timeout_s = 20
    results, wall_s = run_ranks("dead_peer", 2, tmp_path, timeout_s=120, TORCH_HAL_HOST_DEVICES="1",
                                HAL_TEST_TIMEOUT_S=timeout_s)
    code, out = results[0]
    assert code == 1 and "torch_hal: rank 0: NCCL" in out and "ALLREDUCE on hal:0 failed" in out, \
        f"rank 0 exited {code}:\n{out}"
    assert "this process ends now" in out and "x reads" not in out, out
    assert wall_s < timeout_s + 60, wall_s


@two_gpus
def test_dead_rank_with_nccl_and_blocking_wait_raises(tmp_path):
    timeout_s = 20
    results, _ = run_ranks("dead_peer", 2, tmp_path, timeout_s=120, TORCH_HAL_HOST_DEVICES="1",
                           HAL_TEST_TIMEOUT_S=timeout_s, TORCH_HAL_BLOCKING_WAIT=1)
    code, out = results[0]
    assert code == 3 and "RANK 0 ERROR" in out and "ALLREDUCE on hal:0 failed" in out, f"rank 0 exited {code}:\n{out}"
    assert float(out.split("ERROR after ")[1].split("s:")[0]) < timeout_s + 15, out
