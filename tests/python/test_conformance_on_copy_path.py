"""The conformance suite once more, with the host device reporting memory the CPU cannot address
(TORCH_HAL_HOST_ACCESSIBLE=0) and two devices: every copy then takes the path discrete GPUs take
(transfers, staging through pinned buffers, the counted CPU fallback), which CI can run."""
import subprocess
import sys

from conftest import REPO_ROOT


def run_conformance(**env):
    import os
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/conformance"],
                          capture_output=True, text=True, env=full_env, cwd=REPO_ROOT, timeout=600)


def test_conformance_without_host_access_on_two_devices():
    out = run_conformance(TORCH_HAL_HOST_ACCESSIBLE="0", TORCH_HAL_HOST_DEVICES="2")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


def test_conformance_through_the_staging_ring():
    out = run_conformance(TORCH_HAL_HOST_ACCESSIBLE="0", TORCH_HAL_FORCE_STAGING="1")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
