"""torch.distributed on hal host devices: every collective against the math, DDP against single-process
training, FSDP2, and a rank that dies or goes silent, on 2 and 4 processes (one per rank, spawned fresh:
TORCH_HAL_HOST_DEVICES is read at import). The ranks themselves are tests/python/distributed_workers.py."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import torch_hal.distributed

WORKER = Path(__file__).resolve().parent / "distributed_workers.py"
REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not torch_hal.distributed.is_available(),
                                reason="this PyTorch has no torch.distributed with gloo")


def run_ranks(case, world, tmp_path, timeout_s=150, **env):
    """Starts `world` ranks of `case`; returns [(returncode, output)] by rank, with the wall time."""
    store = tmp_path / f"store_{case}_{world}"
    full_env = dict(os.environ, TORCH_HAL_HOST_DEVICES="2", OMP_NUM_THREADS="1",
                    PYTHONPATH=os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    full_env.update({k: str(v) for k, v in env.items()})
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, str(WORKER), case, str(r), str(world), str(store)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full_env,
                              cwd=REPO_ROOT) for r in range(world)]
    results = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=max(1.0, timeout_s - (time.monotonic() - start)))
            results.append((p.returncode, out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return results, time.monotonic() - start


def assert_all_ok(results):
    for rank, (code, out) in enumerate(results):
        assert code == 0 and f"RANK {rank} OK" in out, f"rank {rank} exited {code}:\n{out}"


@pytest.mark.parametrize("world", [2, 4])
def test_collectives_and_ddp_on_host_devices(world, tmp_path):
    results, _ = run_ranks("collectives_ddp", world, tmp_path)
    assert_all_ok(results)
    # rank 0 says which engine each device uses
    assert "torch_hal.distributed: world size" in results[0][1] and "zero-copy" in results[0][1], results[0][1]


@pytest.mark.parametrize("backend", ["hal", "cpu:gloo,hal:hal"])
def test_named_backends(backend, tmp_path):
    results, _ = run_ranks("collectives", 2, tmp_path, HAL_TEST_BACKEND=backend)
    assert_all_ok(results)


def test_collectives_staged_through_cpu_copies(tmp_path):
    """Memory the CPU cannot address (TORCH_HAL_HOST_ACCESSIBLE=0) goes through staged copies."""
    results, _ = run_ranks("collectives", 2, tmp_path, TORCH_HAL_HOST_ACCESSIBLE="0")
    assert_all_ok(results)
    assert "staged through CPU copies" in results[0][1], results[0][1]


def test_fsdp2_fully_shard_transformer(tmp_path):
    pytest.importorskip("torch.distributed.device_mesh")
    results, _ = run_ranks("fsdp", 2, tmp_path)
    assert_all_ok(results)


@pytest.mark.parametrize("case", ["dead_peer", "silent_peer"])
def test_failing_rank_gives_an_error_not_a_hang(case, tmp_path):
    timeout_s = 4
    results, wall = run_ranks(case, 2, tmp_path, timeout_s=90, HAL_TEST_TIMEOUT_S=timeout_s)
    code, out = results[0]
    assert code == 3 and "RANK 0 ERROR" in out, f"rank 0 exited {code}:\n{out}"
    elapsed = float(out.split("ERROR after ")[1].split("s:")[0])
    assert elapsed < timeout_s + 10, out
    message = out.split("ERROR after ")[1].lower()
    if case == "silent_peer":
        assert "timed out" in message or "timeout" in message, out
    else:
        assert any(w in message for w in ("connection", "closed", "reset", "peer")), out
