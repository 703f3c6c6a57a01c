"""PyTorch's OpInfo database on the host device, as it is and without host access (the discrete-GPU paths),
compared with CPU: no op may crash or hang the process, and the pass rate per dtype may not fall below what
was measured (issue 11; figures in benchmarks/RESULTS.md). The same runner measures NVIDIA on the GPU
machine: python tests/opinfo/run_opinfo.py --device hal:0 (and --device cuda:0 for torch.cuda's rate)."""
import os

import pytest

from run_opinfo import run, summarize

# Measured on the host device (2-core CI machine, 3 samples per op, 2026-11-24): float32 99.3%, float16 and
# bfloat16 98.5%, complex64 97.7-97.9%, int64 99.4%, bool 99.1%, with or without host access. Each floor is
# that rate less about two ops, and never below torch.cuda's rate on the same samples on the H100 (float32
# 98.1%, float16 93.5%, bfloat16 93.7%, complex64 97.2%, int64 92.4%, bool 97.7%).
MIN_RATES = {"float32": 0.985, "float16": 0.975, "bfloat16": 0.975, "complex64": 0.972, "int64": 0.985,
             "bool": 0.98}


@pytest.fixture(scope="module", params=["1", "0"], ids=["host_access", "no_host_access"])
def opinfo_results(request):
    env = dict(os.environ, TORCH_HAL_HOST_ACCESSIBLE=request.param)
    return run("hal:0", list(MIN_RATES), max_samples=3, timeout=120, workers=2, env=env)


def test_no_op_crashes_or_hangs(opinfo_results):
    broken = [r for r in opinfo_results if r["status"] in ("crash", "hang")]
    assert not broken, broken


@pytest.mark.parametrize("dtype", list(MIN_RATES))
def test_pass_rate_per_dtype(opinfo_results, dtype):
    row = summarize(opinfo_results)[dtype]
    failing = sorted(f"{r['op']}: {r['status']}: {r['detail'][:100]}" for r in opinfo_results
                     if r["dtype"] == dtype and r["status"] not in ("pass", "skip"))
    assert row["rate"] >= MIN_RATES[dtype], "\n".join(failing)
