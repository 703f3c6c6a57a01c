"""The adapter conformance suite on custom devices: the example ASIC plugin (two chips, loaded through
TORCH_HAL_ADAPTERS) and Python backends (one moving bytes through its own copy methods, one on the
defaults), each in a fresh interpreter beside the host device. Gaps are declared in known_gaps.py."""
import os
import subprocess
import sys

from conftest import REPO_ROOT

PLUGIN = REPO_ROOT / "torch_hal" / "plugins" / "libexample_asic.so"

REGISTER_PYTHON_BACKENDS_THEN_RUN = """
import sys
import torch_hal
from torch_hal import CustomDeviceBackend, register_custom_device
sys.path.insert(0, "tests/python")
from custom_backends import RecordingBackend
register_custom_device(RecordingBackend())
register_custom_device(CustomDeviceBackend("py_default", memory_per_device="1G"))
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def run_conformance(prefix, **env):
    full_env = dict(os.environ, **{k: str(v) for k, v in env.items()})
    return subprocess.run(prefix + ["-v", "-p", "no:cacheprovider", "tests/conformance"], capture_output=True,
                          text=True, env=full_env, cwd=REPO_ROOT, timeout=600)


def check(out, adapter, devices):
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]
    assert " failed" not in out.stdout
    for d in devices:  # every device of the adapter was tested, not just collected
        assert f"[{d}-{adapter}]" in out.stdout or f"-{d}-{adapter}]" in out.stdout, f"{d} of {adapter} not tested"
    assert out.stdout.count(f"-{adapter}") >= 30


def test_conformance_on_the_example_asic_plugin():
    out = run_conformance([sys.executable, "-m", "pytest"], TORCH_HAL_ADAPTERS=PLUGIN, EXAMPLE_ASIC_DEVICES=2)
    check(out, "example_asic", ["hal:0", "hal:1"])


def test_conformance_on_python_backends():
    out = run_conformance([sys.executable, "-c", REGISTER_PYTHON_BACKENDS_THEN_RUN])
    check(out, "py_recording", ["hal:1", "hal:2"])
    check(out, "py_default", ["hal:3"])
