"""Training libraries on hal under the one opt-in, ``import torch_hal.integrations``: Lightning (Trainer and Fabric),
accelerate and transformers' Trainer each train a tiny model a few steps on hal:0 (fp32, bf16 and fp16 mixed
precision), and the run must (1) keep parameters and activations on hal, (2) run autocast in the requested dtype (a
forward hook sees that dtype), (3) use a GradScaler on hal for fp16, and (4) give the losses of the same run on the
CPU within a tolerance derived from the dtype. On two host devices (TORCH_HAL_HOST_DEVICES=2), the DDP of
Lightning's Trainer and of Fabric, and ``accelerate launch`` with two processes, put rank N on hal:N over the hal
c10d backend, end with the same weights on both ranks, and give each rank the losses of the same two-process run
on the CPU (gloo). Each run is a process of its own (tests/python/integrations_workers.py): accelerate's state is a
per-process singleton and the opt-in changes library defaults.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest
import torch

WORKER = pathlib.Path(__file__).with_name("integrations_workers.py")
ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARIES = {"lightning": "lightning", "pytorch_lightning": "pytorch_lightning", "lightning.fabric": "lightning",
             "lightning_fabric": "pytorch_lightning", "accelerate": "accelerate", "transformers": "transformers"}
DTYPES = {"32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def tolerance(precision: str) -> float:
    # A handful of ops between the parameters and the loss, each rounding to the compute dtype: a few units of
    # that dtype's epsilon relative to the loss. The host device runs the CPU's kernels, so fp32 agrees to the
    # bit today; 64 eps leaves room for a device whose reductions add in another order.
    eps = torch.finfo(DTYPES[precision]).eps
    return (64 if precision == "32" else 4) * eps


def run(case: str, device: str, precision: str, launcher=(), **env) -> list:
    """The worker's RESULT lines; ``launcher``: the arguments of ``python`` that start the worker script
    (``-m accelerate.commands.launch ...``), one RESULT per process it starts."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **env)
    environ.pop("ACCELERATE_TORCH_DEVICE", None)
    proc = subprocess.run([sys.executable, *launcher, str(WORKER), case, device, precision], env=environ,
                          cwd=str(ROOT), capture_output=True, text=True, timeout=240)
    results = [json.loads(line[len("RESULT "):]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and results, f"{case} on {device} ({precision}) failed:\n{proc.stdout[-3000:]}\n" \
                                             f"{proc.stderr[-6000:]}"
    return results


def check_run(hal: dict, cpu: dict, precision: str) -> None:
    dtype = str(DTYPES[precision])
    assert hal["params"] == ["hal"], hal
    assert hal["act"] == [f"{dtype}@hal"], f"autocast on hal did not run in {dtype}: {hal['act']}"
    assert hal["scaler"] == ("hal" if precision == "fp16" else None), hal
    assert len(hal["losses"]) == len(cpu["losses"]) >= 3
    rtol = tolerance(precision)
    for step, (a, b) in enumerate(zip(hal["losses"], cpu["losses"])):
        assert abs(a - b) <= rtol * abs(b), f"step {step}: loss {a} on hal, {b} on the CPU (rtol {rtol:.2g})"


@pytest.mark.parametrize("precision", ["32", "bf16", "fp16"])
@pytest.mark.parametrize("case", ["lightning", "pytorch_lightning", "lightning.fabric", "lightning_fabric",
                                  "accelerate", "transformers"])
def test_trains_on_hal_like_cpu(case, precision):
    pytest.importorskip(LIBRARIES[case])
    hal, = run(case, "hal", precision)
    cpu, = run(case, "cpu", precision)
    check_run(hal, cpu, precision)
    if "lightning" in case:
        # devices=1: Lightning's (and Fabric's) own choice would be a SingleDeviceStrategy on the CPU
        assert hal["strategy"] == "SingleDeviceStrategy" and hal["root_device"] == "hal:0", hal
        if "fabric" in case:
            assert hal["device"] == "hal:0" and hal["precision_device"] == (None if precision == "32" else "hal"), hal
    else:
        assert hal["device"].startswith("hal"), hal


def test_lightning_ddp_two_host_devices():
    # strategy="ddp" on two host devices: Lightning launches a second process, each rank trains on its own hal
    # device over the hal c10d backend, and DDP's gradient all-reduce leaves both with the same weights.
    pytest.importorskip("lightning")
    env = {"TORCH_HAL_HOST_DEVICES": "2", "WORKER_DEVICES": "2"}
    ranks = sorted(run("lightning", "hal", "bf16", **env), key=lambda r: r["rank"])
    assert [r["rank"] for r in ranks] == [0, 1], ranks
    assert [r["root_device"] for r in ranks] == ["hal:0", "hal:1"], ranks
    assert all(r["strategy"] == "DDPStrategy" and r["backend"] == "hal" for r in ranks), ranks
    assert all(r["act"] == [f"{torch.bfloat16}@hal"] and r["params"] == ["hal"] for r in ranks), ranks
    assert ranks[0]["weights"] == pytest.approx(ranks[1]["weights"], rel=1e-6)
    # the same DDP run on the CPU (gloo): each rank's losses agree within bf16's tolerance
    cpu = sorted(run("lightning", "cpu", "bf16", WORKER_DEVICES="2"), key=lambda r: r["rank"])
    for hal_rank, cpu_rank in zip(ranks, cpu):
        for a, b in zip(hal_rank["losses"], cpu_rank["losses"]):
            assert abs(a - b) <= tolerance("bf16") * abs(b), (hal_rank["losses"], cpu_rank["losses"])


def check_ranks(hal: list, cpu: list, precision: str) -> None:
    """Two ranks on hal:0 and hal:1 over the hal c10d backend, ending with the same weights, each with the losses
    of the same rank of the two-process run on the CPU (gloo)."""
    assert [r["rank"] for r in hal] == [0, 1] and all(r["world_size"] == 2 for r in hal), hal
    assert [r["device"] for r in hal] == ["hal:0", "hal:1"], hal
    assert all(r["backend"] == "hal" for r in hal), hal
    assert all(r["act"] == [f"{DTYPES[precision]}@hal"] and r["params"] == ["hal"] for r in hal), hal
    # DDP's all-reduce: both ranks take the same steps (they train on different halves of each batch)
    assert hal[0]["weights"] == pytest.approx(hal[1]["weights"], rel=1e-6)
    assert hal[0]["losses"] != hal[1]["losses"]
    assert [r["rank"] for r in cpu] == [0, 1] and all(r["backend"] == "gloo" for r in cpu), cpu
    rtol = tolerance(precision)
    for hal_rank, cpu_rank in zip(hal, cpu):
        assert len(hal_rank["losses"]) == len(cpu_rank["losses"]) >= 3
        for a, b in zip(hal_rank["losses"], cpu_rank["losses"]):
            assert abs(a - b) <= rtol * abs(b), (hal_rank["losses"], cpu_rank["losses"])


def test_fabric_ddp_two_host_devices():
    # Fabric(accelerator="hal", devices=2, strategy="ddp"): fabric.launch() starts the second process; each rank
    # on its own hal device, the forward under autocast on hal, gradients all-reduced over the hal backend.
    pytest.importorskip("lightning")
    env = {"TORCH_HAL_HOST_DEVICES": "2", "WORKER_DEVICES": "2"}
    hal = sorted(run("lightning.fabric", "hal", "bf16", **env), key=lambda r: r["rank"])
    assert all(r["strategy"] == "DDPStrategy" and r["precision_device"] == "hal" for r in hal), hal
    assert [r["root_device"] for r in hal] == ["hal:0", "hal:1"], hal
    cpu = sorted(run("lightning.fabric", "cpu", "bf16", WORKER_DEVICES="2"), key=lambda r: r["rank"])
    check_ranks(hal, cpu, "bf16")


def test_accelerate_launch_two_host_devices(tmp_path):
    # `accelerate launch --multi_gpu --num_processes 2 script.py` (no config file: HF_HOME is empty, so a default
    # config of this machine cannot change the run). Without a GPU, --multi_gpu is what makes it start two
    # processes (torchrun); the opt-in makes each rank's Accelerator() take hal:LOCAL_RANK, the hal c10d backend
    # and DDP. The reference: the same launch on the CPU, Accelerator(cpu=True), i.e. gloo.
    pytest.importorskip("accelerate")
    launcher = ("-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--main_process_port", "0")
    env = {"HF_HOME": str(tmp_path), "TORCH_HAL_HOST_DEVICES": "2"}
    hal = sorted(run("accelerate", "hal", "bf16", launcher, **env), key=lambda r: r["rank"])
    assert all(r["distributed_type"] == "MULTI_GPU" and r["model"] == "DistributedDataParallel" for r in hal), hal
    cpu = sorted(run("accelerate", "cpu", "bf16", launcher, HF_HOME=str(tmp_path)), key=lambda r: r["rank"])
    assert all(r["distributed_type"] == "MULTI_CPU" for r in cpu), cpu
    check_ranks(hal, cpu, "bf16")
