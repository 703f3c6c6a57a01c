"""One side of the model benchmark (model_benchmark.py): a process that trains the zoo's models on one device
and answers the runner's requests over its pipes (lockstep.py's protocol), one JSON line per request.

    python benchmarks/model_worker.py --device hal:0|cuda:0|cpu [--dtype fp32|bf16] [--quick]
                                      [--autograd-threading calling|worker|keep]

Only the hal side imports torch_hal: a process that trains on cuda must not register hal (lockstep.py). The runner
gives the reference the hal side's autograd threading, and a second reference PyTorch's default (sides.py).

Requests:
  describe        the device, torch version, autograd threading
  build NAME      the model (seeded, built on the CPU, then moved), its AdamW and the batch that timing uses; the
                  peak memory measurement (sides.PeakMemory) starts before it
  train STEPS     STEPS training steps on fresh batches from a fixed seed: losses, peak memory from before the
                  build to the end of these steps (device-wide used memory and allocator peaks), fallback calls
  time_step       seconds per training step over one timed batch of steps
  time_forward    seconds per inference forward (eval mode, no_grad) over one timed batch
  strict          hal only: whether one training step runs under torch.hal.strict()
"""
import argparse
import contextlib
import gc
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402
import model_zoo  # noqa: E402
import sides  # noqa: E402  (autograd threading and peak memory, alike on every side)
from timing import batch_size, timed_batch  # noqa: E402  (loaded without the torch_hal package)

SEED = 0
LEARNING_RATE = 1e-4  # small enough that 20 steps of random-init models stay far from divergence
CLIP_NORM = 1.0


class Side:
    """The device of this process and what differs between hal, cuda and CPU tensors."""

    def __init__(self, device: str, dtype: str, threading: str = "keep"):
        if device.startswith("hal"):
            import torch_hal  # noqa: F401  (registers the hal device type; sets the calling-thread backward)
        self.threading = sides.set_autograd_threading(threading)
        self.device = torch.device(device)
        self.module = {"hal": getattr(torch, "hal", None), "cuda": torch.cuda}.get(self.device.type)
        self.autocast_dtype = torch.bfloat16 if dtype == "bf16" else None

    def sync(self):
        if self.module is not None:
            self.module.synchronize(self.device)

    def autocast(self):
        if self.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=self.autocast_dtype)

    def fallback_calls(self) -> dict:
        return dict(torch.hal.fallback_stats()) if self.device.type == "hal" else {}

    def reset_fallback_calls(self):
        if self.device.type == "hal":
            torch.hal.reset_fallback_stats()

    def empty_cache(self):
        gc.collect()
        if self.module is not None:
            self.module.empty_cache()

    def describe(self) -> dict:
        if self.device.type == "hal":
            name = torch.hal.get_device_properties(self.device).name
        elif self.device.type == "cuda":
            name = torch.cuda.get_device_name(self.device)
        else:
            name = "CPU tensors"
        return {"device": str(self.device), "name": name, "torch": torch.__version__, "autograd": self.threading}


class ModelRun:
    """A model, its optimizer and its batches on one side; the same seed on every side."""

    def __init__(self, side: Side, case: "model_zoo.ModelCase", fused_optimizer: bool = False):
        self.side, self.case = side, case
        self.memory = sides.PeakMemory(side.device)
        self.memory.start()  # before the model: its parameters, gradients and optimizer state count too
        torch.manual_seed(SEED)
        self.model = case.build().to(side.device)
        # foreach (PyTorch's default on both sides) or fused=True (torch._fused_adamw_: one launch per step).
        kind = {"fused": True} if fused_optimizer else {"foreach": True}
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=LEARNING_RATE, **kind)
        self.timing_batch = self.batch(seed=SEED)
        self.batch_sizes = {}

    def batch(self, seed: int) -> dict:
        generator = torch.Generator().manual_seed(seed)
        return {k: v.to(self.side.device) for k, v in self.case.batch(generator).items()}

    def step(self, batch) -> torch.Tensor:
        self.optimizer.zero_grad(set_to_none=True)
        with self.side.autocast():
            loss = self.case.loss(self.model, batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), CLIP_NORM)
        self.optimizer.step()
        return loss

    def forward(self):
        with torch.no_grad(), self.side.autocast():
            return self.case.forward(self.model, self.timing_batch)

    def train(self, steps: int) -> dict:
        """Fresh batches (seeds 1..steps), the loss of each step; the CPU fallback calls over all of them; the peak
        memory from before the model was built to the end of the last step (sides.PeakMemory: device-wide used
        memory, and the allocator's peaks)."""
        self.side.sync()
        self.side.reset_fallback_calls()
        losses = [self.step(self.batch(seed=1 + i)).item() for i in range(steps)]
        self.side.sync()
        calls = self.side.fallback_calls()
        return {"losses": losses, **self.memory.stop(), "fallback_calls": sum(calls.values()),
                "fallback_ops": calls, "params": sum(p.numel() for p in self.model.parameters())}

    def timed(self, kind: str) -> float:
        fn = (lambda: self.step(self.timing_batch)) if kind == "step" else self.forward
        self.model.train(kind == "step")
        try:
            if kind not in self.batch_sizes:  # the first request also warms up (batch_size doubles from 1)
                self.batch_sizes[kind] = batch_size(fn, self.side.sync)
            return timed_batch(fn, self.side.sync, self.batch_sizes[kind])
        finally:
            self.model.train(True)

    def strict(self) -> dict:
        if self.side.device.type != "hal":
            return {"strict": None}
        try:
            with torch.hal.strict():
                self.step(self.timing_batch)
                self.side.sync()
            return {"strict": "pass"}
        except RuntimeError as error:  # strict mode's refusal names the op that would take the fallback
            return {"strict": "fail", "op": str(error).splitlines()[0][:200]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", required=True)
    parser.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="keep", help=sides.THREADING_HELP)
    parser.add_argument("--optimizer", choices=("foreach", "fused"), default="foreach")
    args = parser.parse_args()
    side = Side(args.device, args.dtype, args.autograd_threading)
    run = None

    def answer(line: str) -> str:
        nonlocal run
        request, _, argument = line.partition(" ")
        if request == "describe":
            return json.dumps(side.describe())
        if request == "build":
            run = None
            side.empty_cache()
            run = ModelRun(side, model_zoo.case(argument, args.quick), fused_optimizer=args.optimizer == "fused")
            return json.dumps({"built": argument})
        if request == "train":
            return json.dumps(run.train(int(argument)))
        return lockstep.answer_run_request(run, request)

    lockstep.serve(answer)


if __name__ == "__main__":
    main()
