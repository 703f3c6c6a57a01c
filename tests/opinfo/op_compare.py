"""One (op, variant, dtype) of PyTorch's OpInfo database on a device, compared with CPU: every sample, and for
float32 ops with autograd the gradients of every input that requires grad. Runs inside worker.py's child process.
"""
import collections

import torch
from torch.utils._pytree import tree_flatten, tree_map

# Ops whose values are random or uninitialized, by exact full name (op.name[.variant_test_name]). They must run,
# and their outputs must have CPU's shapes and dtypes, but the device draws from its own generator (or leaves its
# own memory uninitialized), so CPU's values say nothing about the device's.
RANDOM_VALUES = frozenset({
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial",
    "normal", "normal.in_place", "normal.number_mean", "uniform",
    "rand_like", "randint", "randint_like", "randn", "randn_like",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout.with_train", "nn.functional.rrelu",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",  # random pooling regions
    "svd_lowrank", "pca_lowrank",  # random projections
    "empty", "empty_like", "empty_permuted", "empty_strided", "new_empty", "new_empty_strided",
})
# Ops random in some samples only (those with dropout): their other samples are compared.
RANDOM_SAMPLES = {
    "nn.functional.scaled_dot_product_attention": lambda s: s.kwargs.get("dropout_p", 0.0) > 0,
    "nn.functional.multi_head_attention_forward": lambda s: bool(s.kwargs.get("training", True)),
}


def full_name(op) -> str:
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0][:240] if text else ''}"


def _named_device(x):
    """The device an argument names (a torch.device, or a string such as "cpu" or "cuda:0"), else None."""
    if isinstance(x, torch.device):
        return x
    if isinstance(x, str):
        try:
            return torch.device(x)
        except RuntimeError:
            return None
    return None


def check(actual, expected, values: bool, device_type=None, what: str = "output") -> None:
    """Raises AssertionError unless `actual` (device) matches `expected` (CPU): structure, device (when
    `device_type` is given), shapes and dtypes, and with `values` the values, within torch.testing.assert_close's
    defaults for the dtype (a few ulps: float32 rtol 1.3e-6, float16 1e-3, bfloat16 1.6e-2, atol 1e-5; integers and
    bool exact). With these a value of the other sign passes only when both are within atol of zero."""
    flat_a, _ = tree_flatten(actual)
    flat_e, _ = tree_flatten(expected)
    if len(flat_a) != len(flat_e):
        raise AssertionError(f"{len(flat_a)} {what}s where CPU gives {len(flat_e)}")
    for i, (a, e) in enumerate(zip(flat_a, flat_e)):
        where = f"{what} {i}" if len(flat_e) > 1 else what
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                raise AssertionError(f"{where}: {type(a).__name__} where CPU gives a tensor")
            if device_type is not None and a.device.type != device_type:
                raise AssertionError(f"{where} on {a.device}, not on {device_type}")
            if a.shape != e.shape or a.dtype != e.dtype:
                raise AssertionError(f"{where}: {tuple(a.shape)} {a.dtype} where CPU gives {tuple(e.shape)} {e.dtype}")
            if values:
                a = a.detach().cpu()  # outside the try: an error of the device surfaces here as an error
                try:
                    torch.testing.assert_close(a, e.detach(), equal_nan=True, check_device=False,
                                               check_stride=False, check_layout=False)
                except Exception as err:  # noqa: BLE001  (also the TypeErrors of mismatched layouts)
                    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
                    raise AssertionError(f"{where}: " + "; ".join(lines[:4])) from None
        elif values and isinstance(e, (bool, int, float, complex)):
            a = a.item() if isinstance(a, torch.Tensor) else a
            if type(a) is not type(e) or not (a == e or (a != a and e != e)):
                raise AssertionError(f"{where}: {a!r} where CPU gives {e!r}")
        elif values and isinstance(e, (str, torch.dtype, torch.Size)) and a != e:
            raise AssertionError(f"{where}: {a!r} where CPU gives {e!r}")


def _grads(outputs, inputs, weights):
    """The gradients of sum(output * weight) over the chosen outputs, for every input (zeros where unused)."""
    return torch.autograd.grad(outputs, inputs, grad_outputs=weights, allow_unused=True, materialize_grads=True)


class Outcome:
    """Failures of one op's samples, by status; the first failure of the worst status describes them all."""

    def __init__(self):
        self.failures = collections.defaultdict(list)
        self.fallback_ops = collections.Counter()
        self.compared = 0
        self.random = 0  # compared samples whose values are random: shapes and dtypes only

    def fail(self, status, i, n, message):
        self.failures[status].append(f"sample {i}/{n}: {message}")

    def result(self, n):
        for status in ("error", "wrong"):
            if self.failures[status]:
                counts = ", ".join(f"{len(v)} {k}" for k, v in self.failures.items() if v)
                return status, f"{self.failures[status][0]}\n({counts} of {n} samples)"
        if not self.compared:
            return "skip", f"CPU accepts none of {n} samples"
        random = f" ({self.random} random: shapes and dtypes only)" if self.random else ""
        passed = f"{self.compared} samples{random}"
        if self.fallback_ops:
            ops = ", ".join(f"{k} x{v}" for k, v in self.fallback_ops.most_common(8))
            return "pass_fallback", f"{passed}; CPU fallback: {ops}"
        return "pass_native", passed


def run_op(op, dtype, device: str, progress=lambda i, n, phase, sample: None):
    """Returns (status, detail): pass_native, pass_fallback, wrong, error or skip. `progress` is told which sample
    and phase starts, so that the parent can name them if this process dies."""
    name = full_name(op)
    with_grad = dtype == torch.float32 and op.supports_autograd
    torch.manual_seed(0)  # the same samples on every run: "sample i" names one input for a bug report
    try:
        samples = list(op.sample_inputs("cpu", dtype, requires_grad=with_grad))
    except Exception as e:  # noqa: BLE001
        return "skip", f"no samples: {_first_line(e)}"
    hal = device.startswith("hal")
    outcome, n = Outcome(), len(samples)
    for i, sample in enumerate(samples):
        values = name not in RANDOM_VALUES and not RANDOM_SAMPLES.get(name, lambda s: False)(sample)
        progress(i, n, "forward", sample)
        # The device's copies first: some ops write into their inputs. Each is a leaf with the sample's flag.
        moved = tree_map(lambda x: x.detach().to(device, copy=True).requires_grad_(x.requires_grad)
                         if isinstance(x, torch.Tensor) else x, (sample.input, sample.args, sample.kwargs))
        # Factories (and *_like) are asked for CPU by their samples: ask them for the device instead. Only `to`
        # names CPU in its arguments, and its output rightly stays there.
        if "device" in moved[2]:
            moved[2]["device"] = device
        elif not any(isinstance(x, torch.Tensor) for x in tree_flatten(moved)[0]):
            continue  # no tensor and no device (arange(2), broadcast_shapes): this sample never meets the device
        # Outputs belong on the device, or on the one a sample names (`to`'s "cpu", or "cuda:0": the samples are
        # made for CPU, which adds a cuda target where CUDA is present; torch.cuda's run gets that sample too).
        named = [d for d in map(_named_device, tree_flatten(sample.args)[0]) if d is not None]
        on_device = named[0].type if named else torch.device(device).type
        # With grad first; where CPU refuses that (an in-place op on a leaf), the same sample without it.
        for grad in ((True, False) if with_grad else (False,)):
            try:
                with torch.set_grad_enabled(grad):
                    expected = op(sample.input, *sample.args, **sample.kwargs)
                break
            except Exception:  # noqa: BLE001
                continue
        else:
            continue  # CPU accepts no form of this sample: nothing to compare
        if hal:
            torch.hal.reset_fallback_stats()
        try:
            with torch.set_grad_enabled(grad):
                actual = op(moved[0], *moved[1], **moved[2])
            # A non_blocking copy to the CPU (`to`'s samples) lands in pinned memory and is defined only once the
            # device's stream is synchronized, as on cuda.
            getattr(torch, torch.device(device).type).synchronize()
            check(actual, expected, values, on_device)
        except AssertionError as e:
            outcome.fail("wrong", i, n, str(e).splitlines()[0])
            continue
        except Exception as e:  # noqa: BLE001
            outcome.fail("error", i, n, _first_line(e))
            continue
        if grad:
            progress(i, n, "backward", sample)
            if not _compare_grads(sample, expected, actual, moved, device, values, outcome, i, n):
                continue
        if hal:
            outcome.fallback_ops.update(torch.hal.fallback_stats())
        outcome.compared += 1
        outcome.random += not values
    return outcome.result(n)


def _compare_grads(sample, expected, actual, moved, device, values, outcome, i, n) -> bool:
    """Backward on both sides with the same fixed cotangents; False (and a failure recorded) when they differ."""
    cpu_inputs = [x for x in tree_flatten((sample.input, sample.args, sample.kwargs))[0]
                  if isinstance(x, torch.Tensor) and x.requires_grad]
    dev_inputs = [x for x in tree_flatten(moved)[0] if isinstance(x, torch.Tensor) and x.requires_grad]
    # output_process_fn_grad picks the outputs that have a gradient to check (for linalg.svd: the ones that are
    # unique), as PyTorch's own gradient tests do.
    cpu_out = tree_flatten(sample.output_process_fn_grad(expected))[0]
    picked = [k for k, o in enumerate(cpu_out) if isinstance(o, torch.Tensor) and o.requires_grad
              and (o.is_floating_point() or o.is_complex())]
    if not cpu_inputs or not picked:
        return True
    generator = torch.Generator().manual_seed(1000 + i)
    weights = [torch.randn(cpu_out[k].shape, dtype=cpu_out[k].dtype, generator=generator) for k in picked]
    try:
        expected_grads = _grads([cpu_out[k] for k in picked], cpu_inputs, weights)
    except Exception:  # noqa: BLE001  (CPU has no backward for this sample: nothing to compare)
        return True
    try:
        dev_out = tree_flatten(sample.output_process_fn_grad(actual))[0]
        if len(dev_out) != len(cpu_out) or not all(isinstance(dev_out[k], torch.Tensor) and dev_out[k].requires_grad
                                                    for k in picked):
            raise AssertionError("outputs that CPU differentiates do not require grad on the device")
        dev_weights = [w.to(dev_out[k].device) for w, k in zip(weights, picked)]
        actual_grads = _grads([dev_out[k] for k in picked], dev_inputs, dev_weights)
        check(actual_grads, expected_grads, values, torch.device(device).type, what="grad")
    except AssertionError as e:
        outcome.fail("wrong", i, n, "grad wrong: " + str(e).splitlines()[0])
        return False
    except Exception as e:  # noqa: BLE001
        outcome.fail("error", i, n, "grad error: " + _first_line(e))
        return False
    return True
