"""Trains each zoo model on a hal device and on the CPU, step by step in turn, and judges the comparison.

Per model: the model is built on the CPU from the seed (training.build, deterministic configuration), deep-copied to
each side, and each side trains STEPS steps on the same batches; the CPU and hal steps alternate, so that a busy
moment of the machine lands on both. Recorded:
  - ops: the aten calls of the first hal step on hal tensors, and how many of them the adapter's own kernels run
    (op_counts.py); fallback: the calls torch.hal.fallback_stats() counted over generate() and all steps, by op;
  - the loss and the gradient norm of every step on every side: their largest relative difference to the CPU's
    (and to cuda's, where a cuda side ran) against case.loss_tolerance(dtype, depth);
  - generative models: the greedy tokens of generate() before training, which must equal the CPU's;
  - the step time: the median of the steps after the first (which warms up and is counted), or where a step is
    shorter than training.SHORT_STEP, of batches of more steps timed after the compared ones; hal over the CPU's,
    or over cuda's where a cuda side ran.
A model fails on an exception on any side, a loss, gradient or token disagreement, or (under strict) any fallback.
"""
import gc
import sys
import time
from typing import Dict, List, Optional

import torch

from torch_hal import timing
from torch_hal.zoo import case as zoo_case
from torch_hal.zoo import training
from torch_hal.zoo.op_counts import OpCounter, PathOfOps

# Bytes per parameter both sides hold: the CPU model and the device copy, each with its gradients (fp32).
BYTES_PER_PARAMETER = 16
# The standard deviation of the noise the test hook adds to the device copy's first parameter (test_zoo.py).
PERTURBATION = 0.1


def available_memory() -> Optional[int]:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class SideFailed(Exception):
    """An exception on one side of the comparison; its message names the side."""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def _largest_difference(a: List[float], b: List[float]) -> float:
    return max((zoo_case.relative_difference(x, y) for x, y in zip(a, b)), default=0.0)


def perturb(model: torch.nn.Module) -> None:
    """Test hook (--test-perturb): makes the device side differ from the CPU's on purpose, by noise of standard
    deviation PERTURBATION on its first parameter (noise, not a constant: a norm layer would take a constant away)."""
    with torch.no_grad():
        first = next(p for p in model.parameters() if p.is_floating_point())
        noise = torch.randn(first.shape, generator=torch.Generator().manual_seed(0)) * PERTURBATION
        first.add_(noise.to(first.device, first.dtype))


class Runner:
    def __init__(self, device: torch.device, steps: int, seed: int, strict: bool, perturbed=()):
        self.device, self.steps, self.seed, self.strict = device, steps, seed, strict
        self.perturbed = set(perturbed)
        self.paths = PathOfOps(device)

    def run(self, zoo_model: zoo_case.ZooModel, reference: Optional[dict] = None) -> dict:
        """The result of one model (a dict, as the JSON report has it); `reference` is the cuda side's record."""
        result = {"name": zoo_model.name, "family": zoo_model.family, "summary": zoo_model.summary, "status": "pass",
                  "reasons": [], "notes": [], "sides": {}}
        start = time.perf_counter()
        try:
            self._run(zoo_model, result, reference)
        except Exception as error:  # noqa: BLE001  (the report says which model failed and why)
            result["reasons"].append(str(error) if isinstance(error, SideFailed) else _first_line(error))
        finally:
            gc.collect()
            torch.hal.empty_cache()
        if result["status"] == "pass" and result["reasons"]:
            result["status"] = "fail"
        result["seconds"] = round(time.perf_counter() - start, 2)
        return result

    def _run(self, zoo_model, result, reference):
        try:
            cpu_model, notes = training.build(zoo_model, self.seed)
        except Exception as error:  # noqa: BLE001
            raise SideFailed(f"build on the CPU: {_first_line(error)}") from error
        result["notes"] += list(zoo_model.notes) + notes
        result["params"] = training.parameter_count(cpu_model)
        result["depth"] = zoo_case.zoo_depth(cpu_model)
        needed, available = BYTES_PER_PARAMETER * result["params"], available_memory()
        if available is not None and needed > available:
            result["status"] = "skip"
            result["reasons"].append(f"needs about {needed / 2**30:.1f} GiB of memory, {available / 2**30:.1f} GiB "
                                     f"is available")
            return
        cpu = training.Side(zoo_model, cpu_model, "cpu")
        hal = self._side(zoo_model, cpu_model)
        del cpu_model
        if zoo_model.name in self.perturbed:
            perturb(hal.model)
            result["notes"].append("perturbed (test hook)")
        result["tolerance"] = zoo_case.loss_tolerance(hal.dtype, result["depth"])
        result["dtype"] = str(hal.dtype).replace("torch.", "")
        torch.hal.reset_fallback_stats()
        if zoo_model.generate is not None:
            tokens = result["tokens"] = {"cpu": self._on("cpu", cpu.generate, self.first_batch(zoo_model)),
                                         "hal": self._on(str(self.device), hal.generate, self.first_batch(zoo_model))}
            result["generate"] = "same" if tokens["hal"] == tokens["cpu"] else "differ"
            if tokens["hal"] != tokens["cpu"]:
                result["reasons"].append(f"generate(): {self.device} gave {tokens['hal']}, the CPU {tokens['cpu']}")
        counter = OpCounter()
        for step, batch in enumerate(training.batches(zoo_model, self.seed, self.steps)):
            self._on("cpu", cpu.step, batch)
            self._on(str(self.device), hal.step, batch, counter if step == 0 else None)
        result["fallback"] = {op: n for op, n in sorted(torch.hal.fallback_stats().items()) if n}
        result["ops"] = self.paths.summarize(counter)
        result["sides"] = {"cpu": cpu.record(), str(self.device): hal.record()}
        result["step_seconds"] = self._step_seconds(cpu, hal, batch)
        self._judge(result, cpu, hal, reference)

    @staticmethod
    def _step_seconds(cpu: training.Side, hal: training.Side, batch) -> Dict[str, float]:
        """The median step time of each side; where a step is too short to time alone, more steps in alternating
        batches (timing.time_pair)."""
        seconds = {"cpu": cpu.median_step(), "hal": hal.median_step()}
        if min(seconds.values()) < training.SHORT_STEP:
            seconds["cpu"], seconds["hal"] = timing.time_pair(cpu.more_steps(batch), cpu.sync, hal.more_steps(batch),
                                                              hal.sync, repeats=5, min_time=training.SHORT_STEP)
        return seconds

    def first_batch(self, zoo_model):
        return training.batches(zoo_model, self.seed, 1)[0]

    def _side(self, zoo_model, cpu_model) -> training.Side:
        try:
            return training.Side(zoo_model, cpu_model, self.device)
        except Exception as error:  # noqa: BLE001
            raise SideFailed(f"copy to {self.device}: {_first_line(error)}") from error

    @staticmethod
    def _on(side: str, fn, *args):
        """fn(*args), an exception naming the side it came from."""
        try:
            return fn(*args)
        except Exception as error:  # noqa: BLE001
            raise SideFailed(f"{side}: {_first_line(error)}") from error

    def _judge(self, result: dict, cpu: training.Side, hal: training.Side, reference: Optional[dict]):
        references = {"cpu": cpu.record()}
        if reference is not None:
            if reference.get("error") or reference.get("torch_hal_loaded"):
                result["reasons"].append(f"{reference['device']} side: "
                                         f"{reference.get('error') or 'torch_hal was loaded there'}")
            else:
                references[reference["device"]] = reference
                result["sides"][reference["device"]] = {k: reference[k] for k in ("losses", "grad_norms", "seconds")}
                if "tokens" in result and reference.get("tokens") != result["tokens"]["cpu"]:
                    result["reasons"].append(f"generate(): {reference['device']} gave {reference.get('tokens')}, "
                                             f"the CPU {result['tokens']['cpu']}")
        tolerance = result["tolerance"]
        result["loss_diff"], result["grad_diff"] = {}, {}
        for name, ref in references.items():
            result["loss_diff"][name] = _largest_difference(hal.losses, ref["losses"])
            result["grad_diff"][name] = _largest_difference(hal.grad_norms, ref["grad_norms"])
            if result["loss_diff"][name] > tolerance:
                result["reasons"].append(f"losses differ from {name}'s by {result['loss_diff'][name]:.2e} (relative), "
                                         f"more than the tolerance {tolerance:.1e}: {self.device} {hal.losses}, "
                                         f"{name} {ref['losses']}")
            if result["grad_diff"][name] > tolerance:
                result["reasons"].append(f"gradient norms differ from {name}'s by {result['grad_diff'][name]:.2e} "
                                         f"(relative), more than the tolerance {tolerance:.1e}")
        against = reference["device"] if reference and reference["device"] in references else "cpu"
        hal_step = result["step_seconds"]["hal"]
        ref_step = result["step_seconds"]["cpu"] if against == "cpu" else reference["step_seconds"]
        result["step_ratio"] = hal_step / ref_step if hal_step and ref_step else None
        result["ratio_against"] = against
        if self.strict and result["fallback"]:
            ops = ", ".join(f"{op} ({n})" for op, n in result["fallback"].items())
            result["reasons"].append(f"CPU fallback under --strict: {ops}")


def run_all(models, runner: Runner, references: Dict[str, dict], log=sys.stderr) -> List[dict]:
    results = []
    for i, zoo_model in enumerate(models, 1):
        result = runner.run(zoo_model, references.get(zoo_model.name))
        results.append(result)
        print(f"[{i}/{len(models)}] {zoo_model.family}/{zoo_model.name}: {result['status']} "
              f"({result['seconds']:.1f} s)" + (f" - {result['reasons'][0]}" if result["reasons"] else ""),
              file=log, flush=True)
    return results
