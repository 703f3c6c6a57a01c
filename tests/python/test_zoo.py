"""`python -m torch_hal zoo`: models trained a few steps on the host device and on the CPU, compared. The builtin
family passes; a device side made to differ (the --test-perturb hook), or a CPU fallback under --strict (the host
device without host access), fails with its reason; the cuda side's process runs the zoo without registering hal.
The torchvision and transformers families are tried where their packages import."""
import importlib
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO_ROOT
from test_coverage_command import host_device
from torch_hal.zoo import builtin, cuda_side, training


def zoo_cli(tmp_path, *args, **env):
    """(completed process, JSON report) of a zoo run on the host device."""
    report = tmp_path / "zoo.json"
    out = subprocess.run([sys.executable, "-m", "torch_hal", "zoo", "--device", host_device(), "--cuda", "off",
                          "--json", str(report), *args], capture_output=True, text=True, cwd=REPO_ROOT, timeout=600,
                         env=dict(os.environ, **{k: str(v) for k, v in env.items()}))
    return out, (json.loads(report.read_text()) if report.exists() else None)


def table_row(stdout: str, name: str) -> list:
    return next(line.split() for line in stdout.splitlines() if line.split()[:1] == [name])


def test_builtin_family_agrees_with_the_cpu(tmp_path):
    out, report = zoo_cli(tmp_path, "--family", "builtin", "--steps", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    names = [m.name for m in builtin.models()]
    assert [r["name"] for r in report["results"]] == names
    for result in report["results"]:
        assert result["status"] == "pass", result
        assert len(result["sides"]["cpu"]["losses"]) == 2
        assert result["loss_diff"]["cpu"] <= result["tolerance"] and result["grad_diff"]["cpu"] <= result["tolerance"]
        assert result["ops"]["total"] > 0 and result["fallback"] == {}  # in place on the host device
        assert "pass" in table_row(out.stdout, result["name"])
    assert "dropout p=0" in " ".join(table_row(out.stdout, "dropout_mlp"))  # the deterministic configuration
    assert f"{len(names)} passed, 0 failed, 0 skipped" in out.stdout


def test_a_device_side_made_to_differ_fails(tmp_path):
    out, report = zoo_cli(tmp_path, "--models", "mini_gpt,dropout_mlp", "--steps", "1", "--test-perturb", "mini_gpt")
    assert out.returncode == 1, out.stdout + out.stderr
    results = {r["name"]: r for r in report["results"]}
    assert results["dropout_mlp"]["status"] == "pass"
    failed = results["mini_gpt"]
    assert failed["status"] == "fail" and "perturbed (test hook)" in failed["notes"]
    assert failed["loss_diff"]["cpu"] > failed["tolerance"]
    assert any(reason.startswith("losses differ from cpu's") for reason in failed["reasons"])
    assert "builtin/mini_gpt: losses differ" in out.stdout and "1 passed, 1 failed" in out.stdout


def test_fallback_is_counted_and_fails_under_strict(tmp_path):
    # Without host access, the host device runs every op through the counted CPU fallback.
    out, report = zoo_cli(tmp_path, "--models", "dropout_mlp", "--steps", "1", TORCH_HAL_HOST_ACCESSIBLE=0)
    assert out.returncode == 0, out.stdout + out.stderr
    fallback = report["results"][0]["fallback"]
    assert fallback["aten::addmm"] > 0 and "aten::native_layer_norm" in fallback
    assert "CPU fallback ops:" in out.stdout and "aten::addmm" in out.stdout
    out, report = zoo_cli(tmp_path, "--models", "dropout_mlp", "--steps", "1", "--strict",
                          TORCH_HAL_HOST_ACCESSIBLE=0)
    assert out.returncode == 1
    assert report["results"][0]["reasons"][0].startswith("CPU fallback under --strict: aten::")


def test_bad_arguments_exit_2(tmp_path):
    for args, message in ((("--family", "nope"), "unknown family nope"), (("--models", "nope"), "no model named nope"),
                          (("--steps", "0"), "--steps must be 1 or more")):
        out, _ = zoo_cli(tmp_path, *args)
        assert out.returncode == 2 and message in out.stderr, out.stderr


def test_the_cuda_side_process_does_not_register_hal():
    """cuda_side.records() on the CPU (no cuda here): the child loads the zoo without torch_hal's __init__ and
    trains as this process's CPU side does."""
    model = builtin.models()[0]
    record = cuda_side.records("cpu", [model], steps=2, seed=0, multithreading=False)[model.name]
    assert "error" not in record and record["torch_hal_loaded"] is False
    cpu_model, _ = training.build(model, 0)
    side = training.Side(model, cpu_model, "cpu")
    for batch in training.batches(model, 0, 2):
        side.step(batch)
    assert record["losses"] == side.losses and record["grad_norms"] == side.grad_norms


def importable(package: str) -> bool:
    try:
        importlib.import_module(package)
        return True
    except Exception:  # noqa: BLE001  (a package built for another torch can fail with any error)
        return False


@pytest.mark.skipif(not importable("transformers"), reason="transformers is not importable")
def test_transformers_models_agree_and_generate_alike(tmp_path):
    out, report = zoo_cli(tmp_path, "--family", "transformers", "--models", "llama,t5,bert", "--steps", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    assert {r["name"]: (r["status"], r.get("generate")) for r in report["results"]} == {
        "llama": ("pass", "same"), "t5": ("pass", "same"), "bert": ("pass", None)}


@pytest.mark.skipif(not importable("transformers"), reason="transformers is not importable")
@pytest.mark.xfail(strict=True, reason="transformers' mixture-of-experts layers count tokens per expert with "
                                       "torch.histc on int32 on every device but cpu and mps (as cuda has it); the "
                                       "host device runs ATen's CPU histc, which has no integer kernel")
def test_a_mixture_of_experts_trains(tmp_path):
    out, report = zoo_cli(tmp_path, "--family", "transformers", "--models", "mixtral", "--steps", "1")
    assert report["results"][0]["status"] == "pass", report["results"][0]["reasons"]


@pytest.mark.skipif(not importable("torchvision"), reason="torchvision is not importable")
def test_torchvision_models_agree(tmp_path):
    out, report = zoo_cli(tmp_path, "--family", "torchvision", "--models", "resnet18,lraspp_mobilenet_v3_large",
                          "--steps", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    assert [r["status"] for r in report["results"]] == ["pass", "pass"]


def test_a_missing_family_is_skipped_with_its_reason(tmp_path):
    if importable("timm"):
        pytest.skip("timm is importable here")
    out, report = zoo_cli(tmp_path, "--family", "timm")
    assert out.returncode == 0 and report["results"] == []
    assert "timm: skipped: the timm family needs the timm package" in out.stdout
