"""Runs OpInfo samples of some ops on one device and compares them with CPU; one JSON line per (op, dtype).

Started by run_opinfo.py as a child process, so that a crash or hang in one op costs only that op: the
child announces each op before running it ({"start": ...}), and the parent blames the announced op when the
child dies or goes silent.
"""
import json
import sys
import traceback

import torch
from torch.utils._pytree import tree_flatten, tree_map

# Ops whose values are random or uninitialized: they must run, but only shapes and dtypes can be compared.
_UNCOMPARABLE = ("rand", "normal", "bernoulli", "multinomial", "dropout", "uniform", "exponential", "geometric",
                 "cauchy", "log_normal", "rrelu", "poisson", "empty", "new_empty", "randint", "randn")


def _comparable(name: str) -> bool:
    return not any(word in name for word in _UNCOMPARABLE)


def _to(device):
    return lambda x: x.to(device) if isinstance(x, torch.Tensor) else x


def _check(actual, expected, exact_values: bool):
    flat_a, _ = tree_flatten(actual)
    flat_e, _ = tree_flatten(expected)
    if len(flat_a) != len(flat_e):
        raise AssertionError(f"{len(flat_a)} outputs where CPU gives {len(flat_e)}")
    for a, e in zip(flat_a, flat_e):
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                raise AssertionError(f"got {type(a).__name__} where CPU gives a tensor")
            a = a.cpu()
            if a.shape != e.shape or a.dtype != e.dtype:
                raise AssertionError(f"shape/dtype {tuple(a.shape)} {a.dtype} != {tuple(e.shape)} {e.dtype}")
            if exact_values:
                torch.testing.assert_close(a, e, equal_nan=True, check_device=False, check_stride=False)
        elif exact_values and isinstance(e, (int, float, bool, complex)):
            if isinstance(a, torch.Tensor):
                a = a.item()
            if not (a == e or (a != a and e != e)):
                raise AssertionError(f"{a} != {e}")


def run_op(op, dtype, device: str, max_samples: int):
    """Returns (status, detail): pass, wrong, error, or skip (CPU itself has no result for any sample)."""
    compared = 0
    exact = _comparable(op.name)
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))[:max_samples]
    except Exception as e:  # noqa: BLE001
        return "skip", f"no samples: {type(e).__name__}"
    for sample in samples:
        try:
            expected = op(sample.input, *sample.args, **sample.kwargs)
        except Exception:  # noqa: BLE001  (CPU refuses this sample: not ours to compare)
            continue
        moved = tree_map(_to(device), (sample.input, sample.args, sample.kwargs))
        try:
            actual = op(moved[0], *moved[1], **moved[2])
        except Exception as e:  # noqa: BLE001
            return "error", f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        try:
            _check(actual, expected, exact)
        except AssertionError as e:
            return "wrong", str(e).splitlines()[0][:300] if str(e) else "mismatch"
        compared += 1
    return ("pass", f"{compared} samples") if compared else ("skip", "CPU accepts no sample")


def main():
    device, max_samples = sys.argv[1], int(sys.argv[2])
    if device.startswith("hal"):
        import torch_hal  # noqa: F401
    from torch.testing._internal.common_methods_invocations import op_db

    by_key = {(op.name, op.variant_test_name): op for op in op_db}
    for line in sys.stdin:
        job = json.loads(line)
        op = by_key[(job["op"], job["variant"])]
        dtype = getattr(torch, job["dtype"])
        print(json.dumps({"start": job}), flush=True)
        try:
            status, detail = run_op(op, dtype, device, max_samples)
        except Exception:  # noqa: BLE001  (a bug of the harness itself, reported as such)
            status, detail = "error", "harness: " + traceback.format_exc().splitlines()[-1][:300]
        print(json.dumps({"done": job, "status": status, "detail": detail}), flush=True)


if __name__ == "__main__":
    main()
