"""One side of the compile benchmark (compile_benchmark.py): a process that runs the compile models
(model_zoo/compile_models.py) or the model benchmark's models (model_zoo: gpt2, llama, bert, resnet18, ...)
on one device, eagerly or through torch.compile (Inductor), and answers the runner's requests over its pipes
(lockstep.py's protocol).

    python benchmarks/compile_worker.py --device hal:0|cuda:0|cpu --scale N [--threads N] [--batch-seconds S]
                                        [--autograd-threading calling|worker|keep]

Only the hal side imports torch_hal: a process that runs cuda must not register hal (lockstep.py). The runner
gives the reference the hal side's autograd threading, and a second reference PyTorch's default (sides.py).

Requests:
  describe            the device, torch version, autograd threading
  build NAME MODE     the model (seeded) in MODE eager or compiled, compiled and warmed up: its compile seconds
  time_step           seconds per training step (forward, loss, backward) over one timed batch
  time_forward        seconds per inference forward (no_grad) over one timed batch
  strict              hal only: CPU fallback calls of one compiled step under torch.hal.strict()
"""
import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402
import model_zoo  # noqa: E402
import sides  # noqa: E402
from model_zoo import compile_models  # noqa: E402
from timing import batch_size, timed_batch  # noqa: E402

SEED = 0


def model_and_calls(name: str, scale: int, device: torch.device):
    """The model (seeded, on the device) and its training loss and inference forward as functions of the module
    to call (the model itself or its compiled form)."""
    generator = torch.Generator().manual_seed(SEED)
    torch.manual_seed(SEED)
    if name in compile_models.MODELS:
        build, shape = compile_models.MODELS[name]
        model = build(scale).to(device)
        x = torch.randn(shape(scale), generator=generator).to(device)
        return model, (lambda fn: (fn(x) ** 2).mean()), (lambda fn: fn(x))
    # The model benchmark's models at its sizes (scale 1: its quick sizes), without the optimizer: what the
    # compiled graphs run is the forward, the loss and the backward.
    case = model_zoo.case(name, quick=scale == 1)
    model = case.build().to(device)
    batch = {k: v.to(device) for k, v in case.batch(generator).items()}
    return model, (lambda fn: case.loss(fn, batch)), (lambda fn: case.forward(fn, batch))


def model_names():
    return list(compile_models.MODELS) + [c.name for c in model_zoo.all_cases(quick=True)]


class Run:
    def __init__(self, device: torch.device, name: str, mode: str, scale: int, batch_seconds: float = 0.05):
        self.device = device
        self.batch_seconds = batch_seconds
        self.model, self.loss, self.infer = model_and_calls(name, scale, device)
        self.fn = torch.compile(self.model) if mode == "compiled" else self.model
        self.batch_sizes = {}
        started = time.perf_counter()
        self.step()
        self.forward()
        self.sync()
        self.compile_s = time.perf_counter() - started

    def set_training(self, training: bool):
        # Only on a change: module.train() walks every submodule, host time that would land in the timings.
        if self.model.training != training:
            self.model.train(training)

    def sync(self):
        if self.device.type in ("hal", "cuda"):
            getattr(torch, self.device.type).synchronize(self.device)

    def step(self):
        for p in self.model.parameters():
            p.grad = None
        self.set_training(True)
        self.loss(self.fn).backward()

    def forward(self):
        self.set_training(False)
        with torch.no_grad():
            return self.infer(self.fn)

    def timed(self, kind: str) -> float:
        fn = self.step if kind == "step" else self.forward
        if kind not in self.batch_sizes:
            self.batch_sizes[kind] = batch_size(fn, self.sync, self.batch_seconds)
        return timed_batch(fn, self.sync, self.batch_sizes[kind])

    def strict(self) -> dict:
        torch.hal.reset_fallback_stats()
        try:
            with torch.hal.strict():
                self.step()
                self.sync()
        except RuntimeError as error:
            return {"strict": "fail", "op": str(error).splitlines()[0][:200]}
        return {"strict": "pass", "fallback_calls": sum(torch.hal.fallback_stats().values())}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", required=True)
    parser.add_argument("--scale", type=int, default=8)
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (Inductor's C++ kernels too)")
    parser.add_argument("--batch-seconds", type=float, default=0.05, help="least duration of one timed batch")
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="keep", help=sides.THREADING_HELP)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.device.startswith("hal"):
        import torch_hal  # noqa: F401
    threading = sides.set_autograd_threading(args.autograd_threading)  # after torch_hal, which sets its own
    device = torch.device(args.device)
    torch._dynamo.config.cache_size_limit = 64
    run = None

    def answer(line: str) -> str:
        nonlocal run
        request, *arguments = line.split()
        if request == "describe":
            name = {"hal": lambda: torch.hal.get_device_properties(device).name,
                    "cuda": lambda: torch.cuda.get_device_name(device)}.get(device.type, lambda: "CPU tensors")()
            return json.dumps({"device": str(device), "name": name, "torch": torch.__version__, "autograd": threading})
        if request == "build":
            run = None
            run = Run(device, arguments[0], arguments[1], args.scale, args.batch_seconds)
            return json.dumps({"compile_s": run.compile_s})
        return lockstep.answer_run_request(run, request)

    lockstep.serve(answer)


if __name__ == "__main__":
    main()
