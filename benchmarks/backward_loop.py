"""The smallest autograd step, `(w * 1.0).sum().backward()` on a leaf (grad set to None first), on a hal device and
on CPU tensors in one process, in alternating rounds: what autograd and hal's host path cost per backward, without
a model around them. The RESULTS.md sections on the host device's compiled norm model use it (a four-node backward).

    python benchmarks/backward_loop.py [--device hal:0] [--elements 12288] [--rounds 21] [--round-seconds 0.05]
                                       [--autograd-threading calling|worker|keep] [--only hal|cpu --iterations N]

--only DEVICE --iterations N runs N steps on one side and nothing else, for instruction counts under a profiler:
  valgrind --tool=callgrind --cache-sim=yes python3 benchmarks/backward_loop.py --only hal --iterations 2000
  (then --only cpu; compare the two totals divided by N, as RESULTS.md did).
Both sides share this process's autograd threading: torch_hal's (the calling thread) unless --autograd-threading
says otherwise; CPU tensors' backward runs on the calling thread under any setting.
"""
import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402
import sides  # noqa: E402
from timing import batch_size, timed_batch  # noqa: E402


def make_step(device: torch.device, elements: int):
    w = torch.randn(elements, device=device, requires_grad=True)

    def step():
        w.grad = None
        (w * 1.0).sum().backward()
    return step


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--elements", type=int, default=12288, help="float32 elements of w (default 12288: 48 KB)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--round-seconds", type=float, default=0.05)
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="keep", help=sides.THREADING_HELP)
    parser.add_argument("--only", choices=("hal", "cpu"), help="run one side only (for a profiler)")
    parser.add_argument("--iterations", type=int, default=2000, help="with --only: steps to run")
    args = parser.parse_args(argv)
    import torch_hal  # noqa: F401
    threading = sides.set_autograd_threading(args.autograd_threading)
    devices = {"hal": torch.device(args.device), "cpu": torch.device("cpu")}
    syncs = {"hal": lambda: torch.hal.synchronize(devices["hal"]), "cpu": lambda: None}
    steps = {name: make_step(d, args.elements) for name, d in devices.items()}
    if args.only:
        for _ in range(args.iterations):
            steps[args.only]()
        syncs[args.only]()
        return 0
    sizes = {name: batch_size(steps[name], syncs[name], args.round_seconds) for name in steps}
    samples = lockstep.alternating_rounds(
        [lambda n=n: timed_batch(steps[n], syncs[n], sizes[n]) * 1e6 for n in ("hal", "cpu")], args.rounds)
    print(f"(w * 1.0).sum().backward(), w {args.elements} float32 elements, {args.device} against CPU tensors in one "
          f"process, {args.rounds} alternating rounds of about {args.round_seconds} s, "
          f"{sides.describe_threading(threading)}, torch {torch.__version__}")
    print(f"  {args.device}: {statistics.median(samples[0]):.1f} µs a step; CPU tensors: "
          f"{statistics.median(samples[1]):.1f} µs; round by round {lockstep.paired_summary(lockstep.paired_ratios(samples))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
