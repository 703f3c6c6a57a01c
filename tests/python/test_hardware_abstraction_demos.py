"""The two hardware abstraction demos and the benchmark, run as a user runs them (--quick), so CI runs them."""
import json
import os
import struct
import subprocess
import sys

from conftest import REPO_ROOT


def run_script(relative_path, *args, **env):
    return subprocess.run([sys.executable, str(REPO_ROOT / relative_path), *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=dict(os.environ, **env), timeout=300)


def test_multi_vendor_demo():
    out = run_script("demos/hardware_abstraction/multi_vendor_demo.py", "--quick")
    assert out.returncode == 0, out.stderr
    assert "== Selection with the guide's request" in out.stdout
    if "result: None" in out.stdout:  # nothing from nvidia, amd or intel here: then a request that fits
        assert "== A request that fits" in out.stdout and "won: meets every requirement" in out.stdout
    assert "output on hal:" in out.stdout


def test_enhanced_multi_vendor_demo_on_two_devices():
    out = run_script("demos/hardware_abstraction/enhanced_multi_vendor_demo.py", "--quick",
                     TORCH_HAL_HOST_DEVICES="2")
    assert out.returncode == 0, out.stderr
    assert "== Device mesh over 2 hal device(s): hal:0, hal:1" in out.stdout
    assert "transformer layer at 1M samples/s" in out.stdout and "-> cpu (no hal device fits" in out.stdout
    assert "hal:1: " in out.stdout and "utilization: not reported" in out.stdout


def test_benchmark_writes_json_and_chart(tmp_path):
    output = tmp_path / "hal_results.json"
    out = run_script("benchmarks/hardware_abstraction_benchmark.py", "--quick", "--output", str(output))
    assert out.returncode == 0, out.stderr
    assert "[" + "#" * 30 + "]" in out.stderr  # the progress bar reached the end
    result = json.loads(output.read_text())
    cases = {r["case"] for r in result["rows"]}
    assert {"selection: no requirements", "discovery: properties of every hal device",
            "dispatch: add_ on 16 elements", "copy cpu->device 32 MiB"} <= cases
    assert all(r["value"] > 0 for r in result["rows"])
    assert all(r["reference_value"] > 0 for r in result["rows"] if r["reference"])
    png = output.with_suffix(".png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    assert width == 1100 and height > 100 * len(result["rows"]) / 2
    assert "selection: no requirements" in out.stdout  # the table
