"""benchmarks/model_benchmark.py --quick with the built-in models on the host device, as CI runs it: a row
per model with finite ratios, and the figures that do not depend on timing (no CPU fallback on host-accessible
memory; the same losses as CPU tensors, which run the same kernels)."""
import json
import math
import os
import subprocess
import sys

from conftest import REPO_ROOT
from test_coverage_command import host_device

MODELS = ("mini_gpt", "mini_convnet")


def run_benchmark(tmp_path, *args, **env):
    results = tmp_path / "results.json"
    out = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "model_benchmark.py"), "--quick",
                          "--models", ",".join(MODELS), "--reference", "cpu", "--json", str(results),
                          *args], capture_output=True,
                         text=True, cwd=REPO_ROOT, env=dict(os.environ, **env), timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    return out.stdout, json.loads(results.read_text())["results"]


def table_rows(stdout: str) -> dict:
    """The markdown table's rows by model, as {column: cell}."""
    lines = [line for line in stdout.splitlines() if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return {cells[0]: dict(zip(header, cells))
            for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}  # after | --- |


def test_quick_run_on_the_host_device(tmp_path):
    stdout, results = run_benchmark(tmp_path, "--device", host_device())
    rows = table_rows(stdout)
    assert sorted(rows) == sorted(MODELS)
    for model, row in rows.items():
        for column in ("step hal/ref", "forward hal/ref"):
            value = float(row[column])
            assert math.isfinite(value) and value > 0, (model, column, row[column])
        # The reference is CPU tensors here: no device memory to compare, by either method.
        assert row["peak memory hal/ref (device)"] == "n/a" and row["peak memory hal/ref (reserved)"] == "n/a", row
        assert row["step hal/ref default"] == "n/a (CPU)", row  # CPU backward runs on the calling thread anyway
        assert row["fallback calls/step"] == "0" and row["strict step"] == "pass", row
    for result in results:
        assert result["devices"][1]["device"] == "cpu"
        hal_loss, ref_loss = result["loss"]
        assert math.isfinite(hal_loss) and abs(hal_loss - ref_loss) <= 1e-3 * abs(ref_loss), result


def test_fallback_calls_are_counted_without_host_access(tmp_path):
    # The host device taking a discrete GPU's paths: every op without a native kernel is a counted fallback.
    stdout, results = run_benchmark(tmp_path, "--device", "hal:0", "--steps", "2",
                                    TORCH_HAL_HOST_ACCESSIBLE="0", HAL_VISIBLE_DEVICES="host:0")
    rows = table_rows(stdout)
    for model, row in rows.items():
        assert float(row["fallback calls/step"]) > 0 and row["strict step"].startswith("fails"), row
    # The models' central ops are among the calls counted.
    central = {"mini_gpt": "aten::addmm", "mini_convnet": "aten::convolution"}
    for result in results:
        assert central[result["model"]] in result["fallback_ops"], result["fallback_ops"]
