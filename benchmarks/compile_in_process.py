"""Compiled models on the host device against compiled CPU tensors in one process, round by round.

    python benchmarks/compile_in_process.py [--models mlp,norm_net] [--kinds step,forward] [--scale 8]
                                            [--rounds 120] [--round-seconds 0.02]

compile_benchmark.py compares separate processes, as a user's two programs would run; on a shared 2-core machine a
fresh process can run a small model 5-10% faster or slower than the next, depending on where its code and data
land, which hides changes of a few percent. Here both devices' compiled models live in one process (the CPU side
then pays PyTorch's per-frame accelerator prologue too) and alternate in rounds of about --round-seconds each;
each round gives hal's time over CPU tensors', and the median of those ratios is what a change to the host path
moves. Only the host device: the autograd of one accelerator per process rules out cuda beside hal. Both devices
share this process's autograd threading (torch_hal's: backward on the calling thread; CPU tensors' backward runs
there under any setting), and the rounds alternate as lockstep.alternating_rounds orders them.
"""
import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402
from compile_worker import Run  # noqa: E402
from model_zoo import compile_models  # noqa: E402
from timing import batch_size, timed_batch  # noqa: E402


def compare(name: str, kind: str, args) -> str:
    """One table row: each device's median time per call of `kind` (compile_worker.Run's step or forward) and the
    median of the rounds' ratios."""
    runs = {device: Run(torch.device(device), name, "compiled", args.scale) for device in ("cpu", args.device)}
    calls = {device: getattr(run, kind) for device, run in runs.items()}
    sizes = {device: batch_size(calls[device], runs[device].sync, args.round_seconds) for device in runs}
    devices = list(runs)
    samples = lockstep.alternating_rounds(
        [lambda d=d: timed_batch(calls[d], runs[d].sync, sizes[d]) * 1e6 for d in devices], args.rounds)
    times = dict(zip(devices, samples))
    ratios = lockstep.paired_ratios([times[args.device], times["cpu"]])
    return (f"| {name} | {kind} | {statistics.median(times[args.device]):.1f} µs | "
            f"{statistics.median(times['cpu']):.1f} µs | {lockstep.paired_summary(ratios, digits=3)} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0", help="a host-accessible hal device (default hal:0)")
    parser.add_argument("--models", default="mlp,norm_net", help=f"of {', '.join(compile_models.MODELS)}")
    parser.add_argument("--kinds", default="step,forward")
    parser.add_argument("--scale", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=120)
    parser.add_argument("--round-seconds", type=float, default=0.02)
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    import torch_hal  # noqa: F401
    if not torch.hal.get_device_properties(torch.device(args.device)).host_accessible:
        parser.error(f"{args.device} is not host-accessible: compare it with compile_benchmark.py instead")
    names, kinds = args.models.split(","), args.kinds.split(",")
    unknown = [n for n in names if n not in compile_models.MODELS] + [k for k in kinds if k not in ("step", "forward")]
    if unknown:
        parser.error(f"unknown models or kinds: {unknown}")
    print(f"{args.device} against CPU tensors in one process, torch {torch.__version__}, scale {args.scale}, "
          f"{args.threads} CPU threads, {args.rounds} alternating rounds of about {args.round_seconds} s per side, "
          f"autograd's backward on the {'worker' if torch.autograd.is_multithreading_enabled() else 'calling'} "
          "thread for both\n")
    print(f"| model | kind | {args.device} | CPU tensors | round by round (median, middle half) |")
    print("| --- | --- | ---: | ---: | --- |")
    for name in names:
        for kind in kinds:
            print(compare(name, kind, args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
