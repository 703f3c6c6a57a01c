"""PyTorch's OpInfo database on the host device, with host access (TORCH_HAL_HOST_ACCESSIBLE=1: ATen's CPU kernels
run in place on hal memory) and without it (=0: the discrete-GPU paths, transfers and the counted CPU fallback),
and on the OpenCL device (Intel's CPU OpenCL runtime: the SPIR-V kernel library), compared with CPU: every sample
of every op, and the gradients of float32 ops with autograd (run_opinfo.py).

CI runs all of it, no share left out: both settings, all six dtypes, every op and sample. Measured on the 2-core
machine (2026-11-27, --workers 2, the machine also running another build and test suite, load average 4-6): a
whole run of all six dtypes took 98 s with host access and 75 s without; per dtype, in job-seconds summed over
both workers, float32 55/45 (gradients), float16 41/33, bfloat16 29/22, complex64 10/7, int64 13/10, bool 6/4,
plus about 20 s of imports per run. `pytest tests/opinfo` took 122 s and 154 s (two runs), far inside the OpInfo
part's share (about 40 minutes) of CI's 90, so nothing is left out. The split into two dtype groups per setting
only keeps each test near half a minute and says which group failed.

A test fails on any crash or hang, on any (op, dtype) that fails without being on its list of known failures
(known_failures/host.json, known_failures/host_no_host_access.json) or fails otherwise than listed, and on a listed
entry that passes (remove it). After a C++ fix, refresh a list in one command and review its diff:
    TORCH_HAL_HOST_ACCESSIBLE=0 python tests/opinfo/run_opinfo.py \\
        --write-known-failures tests/opinfo/known_failures/host_no_host_access.json
The GPUs run the same runner (python tests/opinfo/run_opinfo.py --device hal:0 --workers 8; lists nvidia.json and
amd.json)."""
import json
import os

import pytest

from conftest import opencl_cpu_device_env
from op_compare import RANDOM_SAMPLES, RANDOM_VALUES
from run_opinfo import DTYPES, all_jobs, run, summarize

GROUPS = [["float32", "complex64"], ["float16", "bfloat16", "int64", "bool"]]


def run_and_check(dtypes, env, adapter):
    """The whole database for `dtypes` on hal:0, which must be `adapter`'s device; fails on any result that leaves
    the adapter's list of known failures."""
    out = run("hal:0", dtypes, workers=2, env=dict(os.environ, **env))
    assert out["facts"].get("adapter") == adapter, f"hal:0 is not the {adapter} device: {out['facts']}"
    rates = {d: row["native_rate"] for d, row in summarize(out["results"]).items()}
    print(f"native pass rates {rates}, {out['seconds']} s")
    assert not out["unexpected"], (f"{len(out['unexpected'])} results leave {out['list_path']}:\n"
                                   + "\n".join(out["unexpected"]))


@pytest.mark.parametrize("dtypes", GROUPS, ids=["+".join(g) for g in GROUPS])
@pytest.mark.parametrize("host_access", ["1", "0"], ids=["host_access", "no_host_access"])
def test_opinfo(host_access, dtypes):
    # hal:0 must be the host device, also on machines whose GPUs come first.
    run_and_check(dtypes, {"TORCH_HAL_HOST_ACCESSIBLE": host_access, "HAL_VISIBLE_DEVICES": "host:0"}, "host")


@pytest.mark.parametrize("dtypes", GROUPS, ids=["+".join(g) for g in GROUPS])
def test_opinfo_on_the_opencl_device(dtypes):
    """The SPIR-V kernel library's numbers on CI: every sample of every op on Intel's CPU OpenCL runtime (the
    OpenCL adapter, the same SPIR-V modules a Level Zero GPU loads), against known_failures/opencl.json. The
    host device's runs above compare ATen's CPU kernels with themselves; this one compares the library's kernels
    and the glue's compositions over them with the CPU. Ops the kernels lack (half types, float64, sort, atomics)
    take the counted fallback there and are reported as pass_fallback, not as native passes. Measured on the 2-core
    machine (2026-11-28, a CI run beside it): all six dtypes in 127 s."""
    run_and_check(dtypes, opencl_cpu_device_env(), "opencl")


def test_a_listed_op_that_passes_fails_the_run(tmp_path):
    """The list must shrink: `add` passes, so listing it as a failure is reported."""
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps({"add:int64": {"status": "wrong", "reason": "listed by this test"}}))
    out = run("hal:0", ["int64"], ops=["add"], known=listed, env=dict(os.environ, HAL_VISIBLE_DEVICES="host:0"))
    assert [r["status"] for r in out["results"]] == ["pass_native"], out["results"]
    assert out["unexpected"] == ["add:int64: listed as wrong, now pass_native: remove it from the list"]


def test_an_order_dependent_entry_accepts_a_pass_and_a_miss_but_not_an_error():
    """Entries whose result depends on the order atomics land (known_failures.py) pass or miss from run to run."""
    import known_failures
    listed = {"index_reduce.mean:bfloat16": {"status": "order-dependent", "reason": "atomics' order"}}
    ops = {"index_reduce.mean"}
    result = {"op": "index_reduce.mean", "dtype": "bfloat16", "detail": "sample 6/8: output: not close"}
    for status in ("pass_native", "wrong"):
        assert known_failures.unexpected([dict(result, status=status)], listed, ops) == [], status
    assert known_failures.unexpected([dict(result, status="error")], listed, ops) != []


def test_random_op_names_are_exact_op_db_names():
    """A misspelt name would silently compare a random op's values (or stop comparing a deterministic one)."""
    names = {j["op"] for j in all_jobs(DTYPES)}
    assert (RANDOM_VALUES | set(RANDOM_SAMPLES)) - names == set()


def test_outputs_are_expected_on_the_device_a_sample_names():
    """`to`'s samples name their target ("cpu"; "cuda:0" where CUDA is present, since samples are made for CPU):
    the output is checked on that device, and arguments that merely are strings name none."""
    import torch
    from op_compare import _named_device, check

    assert [_named_device(x) for x in ("cpu", "cuda:0", torch.device("hal", 0), "mean", "reflect", 3)] == [
        torch.device("cpu"), torch.device("cuda", 0), torch.device("hal", 0), None, None, None]
    t = torch.ones(2)
    check(t, t, True, "cpu")
    with pytest.raises(AssertionError, match="not on hal"):
        check(t, t, True, "hal")
