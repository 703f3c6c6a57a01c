"""The conformance suite once more, with the host device reporting memory the CPU cannot address
(TORCH_HAL_HOST_ACCESSIBLE=0) and two devices: every copy then takes the path discrete GPUs take
(transfers, staging through pinned buffers, the counted CPU fallback), which CI can run."""
import re
import subprocess
import sys

from conftest import REPO_ROOT

# The child's pytest, with a plugin that reports what the suite really ran on: each hal device's
# host-accessible flag, and the CPU-fallback calls (the copy path's kernel route) summed over the tests,
# read after each test (tests reset the counters themselves).
CHILD = r"""
import sys, pytest, torch, torch_hal

class CopyPathReport:
    fallback_calls = 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        torch.hal.reset_fallback_stats()
        yield
        CopyPathReport.fallback_calls += sum(torch.hal.fallback_stats().values())

    def pytest_sessionfinish(self, session):
        props = [torch_hal._C.get_device_properties(i) for i in range(torch.hal.device_count())]
        flags = [p["host_accessible"] for p in props if p["vendor"] == "host"]
        print(f"\nCOPY-PATH host_devices={len(flags)} host_accessible={flags} "
              f"fallback_calls={CopyPathReport.fallback_calls}")

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "tests/conformance"], plugins=[CopyPathReport()]))
"""


def run_conformance(**env):
    import os
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=full_env, cwd=REPO_ROOT,
                          timeout=600)


def check_summary(out, devices):
    """The child passed tests and failed none (its own summary line says so), on `devices` host devices none
    of which is host-accessible, and its ops went through the CPU fallback that discrete devices take."""
    log = out.stdout[-4000:] + out.stderr[-2000:]
    assert out.returncode == 0, log
    summary = out.stdout.strip().splitlines()
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed)",
                                                      next(line for line in reversed(summary) if " in " in line))}
    assert counts.get("passed", 0) >= 30 and not counts.get("failed") and not counts.get("error") \
        and not counts.get("errors"), (counts, log)
    report = re.search(r"COPY-PATH host_devices=(\d+) host_accessible=\[(.*)\] fallback_calls=(\d+)", out.stdout)
    assert report, log
    assert int(report.group(1)) == devices, log
    assert report.group(2) == ", ".join(["False"] * devices), log
    assert int(report.group(3)) > 0, log
    return counts


def test_conformance_without_host_access_on_two_devices():
    out = run_conformance(TORCH_HAL_HOST_ACCESSIBLE="0", TORCH_HAL_HOST_DEVICES="2")
    counts = check_summary(out, devices=2)
    assert counts["passed"] >= 60, counts  # the device-parametrized tests ran on both devices


def test_conformance_through_the_staging_ring():
    out = run_conformance(TORCH_HAL_HOST_ACCESSIBLE="0", TORCH_HAL_FORCE_STAGING="1")
    check_summary(out, devices=1)
