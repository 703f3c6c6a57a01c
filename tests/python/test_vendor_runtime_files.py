"""A vendor runtime named by a setting (TORCH_HAL_OPENCL_LIBRARY, TORCH_HAL_LEVEL_ZERO_LIBRARY) that is a truncated
file (an interrupted copy) or a FIFO must leave `import torch` working, with the adapter unavailable and the reason
naming the file and the setting: dlopen would kill the process with SIGBUS on the first and block forever on the
second, as it would for adapter files, which the loader checks the same way."""
import os
import subprocess
import sys

import pytest

from conftest import REPO_ROOT

SETTINGS = {"TORCH_HAL_OPENCL_LIBRARY": "opencl", "TORCH_HAL_LEVEL_ZERO_LIBRARY": "intel"}
# `import torch` alone loads torch_hal through PyTorch's backend autoload, as a user's program does.
PROBE = ("import torch, torch_hal\n"
         "a = next(a for a in torch_hal.adapters() if a.name == {name!r})\n"
         "print(a.state, '|', a.reason)\n")


def import_torch_with(setting, path):
    env = dict(os.environ, **{setting: str(path)})
    env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    return subprocess.run([sys.executable, "-c", PROBE.format(name=SETTINGS[setting])], capture_output=True,
                          text=True, env=env, cwd=REPO_ROOT, timeout=120)


@pytest.fixture
def truncated_library(tmp_path):
    whole = REPO_ROOT / "torch_hal" / "lib" / "libhal_adapter_host.so"  # any real shared library of this machine
    cut = tmp_path / "libcut.so"
    cut.write_bytes(whole.read_bytes()[:4096])
    return cut


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "libfifo.so"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_truncated_runtime_is_refused_by_name(setting, truncated_library):
    out = import_torch_with(setting, truncated_library)
    assert out.returncode == 0, out.stderr[-2000:]
    state, reason = out.stdout.strip().split(" | ", 1)
    assert state == "unavailable"
    assert str(truncated_library) in reason and setting in reason and "is truncated" in reason, reason


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_fifo_is_refused_without_waiting_for_a_writer(setting, fifo):
    out = import_torch_with(setting, fifo)  # the old loader blocked here until the 120 s timeout
    assert out.returncode == 0, out.stderr[-2000:]
    state, reason = out.stdout.strip().split(" | ", 1)
    assert state == "unavailable"
    assert str(fifo) in reason and "is not a regular file" in reason, reason
