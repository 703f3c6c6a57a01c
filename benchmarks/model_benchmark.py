"""Standard models trained side by side on hal:N and a reference device, printed as ratios.

    python benchmarks/model_benchmark.py [--device hal:0] [--reference auto|cpu|cuda:N] [--models gpt2,resnet18]
                                         [--dtype fp32|bf16] [--optimizer foreach|fused] [--steps 20] [--quick]
                                         [--markdown FILE]

The reference (--reference auto) is cuda:N for hal:N where torch.cuda is available, else CPU tensors. Each
side runs in a process of its own (model_worker.py; the reference never imports torch_hal), and a fresh pair
of processes serves each model.
Per model:
  - the two sides build the model and train STEPS steps from the same seed on the same batches (AdamW,
    foreach or fused as --optimizer says, clip_grad_norm_), one side after the other while the other waits: the
    final losses and their difference, the peak memory and the CPU fallback calls per step (torch.hal.fallback_stats()). Peak memory is measured alike on
    both sides by two methods (sides.py): "device", the device-wide used memory (mem_get_info) after the steps minus
    before the build, every byte each side took from the device, library workspaces included (the honest figure);
    and "reserved", the caching allocator's peak (max_memory_reserved). n/a on CPU tensors;
  - training steps and inference forwards are then timed in lockstep, in alternating rounds (lockstep.py): the
    median of each side's rounds, and the median of the round-by-round ratios;
  - one more step under torch.hal.strict() says whether the step needs the CPU fallback at all.
Autograd threading (sides.py): importing torch_hal runs backward on the calling thread, so the reference runs
with the hal side's setting (torch.autograd.set_multithreading_enabled(False) there too): "step hal/ref". A third
process, the reference with PyTorch's default (backward on autograd's device thread), gives the second figure,
"step hal/ref default" (not for CPU tensors, whose backward runs on the calling thread either way).
Ratios are hal / reference: below 1, hal takes less time or memory. --dtype bf16 runs forward and loss under
torch.autocast with bfloat16. The models: model_zoo/ (transformers and torchvision ones where importable, the
built-in mini_gpt and mini_convnet otherwise).
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402
import model_zoo  # noqa: E402
import sides  # noqa: E402

WORKER = str(Path(__file__).resolve().parent / "model_worker.py")
COLUMNS = ("model", "sizes", "params", "hal step", "ref step", "step hal/ref", "step hal/ref, round by round",
           "step hal/ref default", "forward hal/ref", "peak memory hal/ref (device)", "peak memory hal/ref (reserved)",
           "fallback calls/step", "strict step", "loss hal", "loss ref", "loss diff")


def auto_reference(hal_device: str) -> str:
    """cuda:N for hal:N where torch.cuda is available, else "cpu". Asked in a child, so that this process
    imports no torch device backend at all."""
    code = "import torch; print(torch.cuda.is_available())"
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    has_cuda = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()
    return f"cuda:{hal_device.partition(':')[2] or 0}" if has_cuda == "True" else "cpu"


def start_worker(device: str, args, threading: str = "keep") -> lockstep.Worker:
    command = [WORKER, "--device", device, "--dtype", args.dtype, "--autograd-threading", threading,
               "--optimizer", args.optimizer]
    command += ["--quick"] if args.quick else []
    # Only the hal side loads torch_hal (lockstep.py says why the others must not).
    env = {} if device.startswith("hal") else {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    return lockstep.Worker(f"{device} ({threading} autograd threading)", command, env=env)


def ratio(a, b):
    return a / b if a is not None and b else None


def measure_model(name: str, devices, args) -> dict:
    """One model on a fresh set of workers: hal (with torch_hal's autograd threading), the reference with the same
    threading, and, where it differs, the reference with PyTorch's default threading (sides.py)."""
    workers = [start_worker(devices[0], args)]
    try:
        describe = [json.loads(workers[0].ask("describe"))]
        threadings = sides.reference_threadings(describe[0]["autograd"], devices[1])
        for mode in threadings:
            workers.append(start_worker(devices[1], args, mode))
            describe.append(json.loads(workers[-1].ask("describe")))
        # Build and train one side after the other, the others idle: the device-wide memory figure of each is its own.
        trained = []
        for w in workers[:2]:
            w.ask(f"build {name}")
            trained.append(json.loads(w.ask(f"train {args.steps}")))
        for w in workers[2:]:
            w.ask(f"build {name}")
        step_samples = lockstep.lockstep_samples(workers, "time_step", args.repeats)
        # An inference forward runs no backward: autograd's threading cannot change it, so two sides suffice.
        forward_samples = lockstep.lockstep_samples(workers[:2], "time_forward", args.repeats)
        strict = json.loads(workers[0].ask("strict"))
    finally:
        for w in workers:
            w.close()
    hal, ref = trained
    step, forward = lockstep.medians(step_samples), lockstep.medians(forward_samples)
    # The spread of the timed batches, to stderr: how much of a ratio is the machine's noise.
    labels = [devices[0]] + [f"{devices[1]} ({mode})" for mode in threadings]
    for what, samples in (("step", step_samples), ("forward", forward_samples)):
        print(f"    {name} {what}: " + ", ".join(f"{d} {min(s) * 1e3:.1f}..{max(s) * 1e3:.1f} ms"
                                           for d, s in zip(labels, samples)), file=sys.stderr, flush=True)
    return {"model": name, "devices": describe, "params": hal["params"], "step": step, "forward": forward,
            "step_samples": step_samples, "forward_samples": forward_samples, "threadings": threadings,
            "step_ratio": step[0] / step[1], "forward_ratio": forward[0] / forward[1],
            "step_ratio_paired": lockstep.paired_summary(lockstep.paired_ratios(step_samples, 0, 1)),
            "step_ratio_default": step[0] / step[2] if len(step) > 2 else None,
            "memory": [{k: v for k, v in t.items() if k.endswith("_bytes")} for t in trained],
            "memory_ratio": ratio(hal["device_used_bytes"], ref["device_used_bytes"]),
            "reserved_ratio": ratio(hal["peak_reserved_bytes"], ref["peak_reserved_bytes"]),
            "fallback_per_step": hal["fallback_calls"] / args.steps, "fallback_ops": hal["fallback_ops"],
            "strict": strict, "loss": [hal["losses"][-1], ref["losses"][-1]],
            "first_loss": [hal["losses"][0], ref["losses"][0]],
            "loss_diff": abs(hal["losses"][-1] - ref["losses"][-1])}


def fmt_count(n: int) -> str:
    return f"{n / 1e6:.1f} M" if n >= 1e6 else f"{n / 1e3:.1f} k"


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def table_row(result: dict, sizes: str) -> str:
    strict = result["strict"]
    strict_text = "pass" if strict["strict"] == "pass" else f"fails ({strict.get('op', '')})"
    fmt_ratio = lambda r: "n/a" if r is None else f"{r:.2f}"  # noqa: E731
    default = ("n/a (CPU)" if result["devices"][1]["device"].startswith("cpu") else "= (same threading)") \
        if result["step_ratio_default"] is None else f"{result['step_ratio_default']:.2f}"
    cells = (result["model"], sizes, fmt_count(result["params"]), fmt_time(result["step"][0]),
             fmt_time(result["step"][1]), f"{result['step_ratio']:.2f}", result["step_ratio_paired"], default,
             f"{result['forward_ratio']:.2f}", fmt_ratio(result["memory_ratio"]), fmt_ratio(result["reserved_ratio"]),
             f"{result['fallback_per_step']:g}", strict_text, f"{result['loss'][0]:.4f}", f"{result['loss'][1]:.4f}",
             f"{result['loss_diff']:.2e}")
    return "| " + " | ".join(cells) + " |"


def fmt_mib(n) -> str:
    return "n/a" if n is None else f"{n / (1 << 20):.0f} MiB"


def report(results, summaries, args, devices) -> str:
    hal_name = results[0]["devices"][0]["name"] if results else ""
    ref = results[0]["devices"][1] if results else {"name": devices[1]}
    hal_threading = results[0]["devices"][0]["autograd"] if results else "?"
    lines = [f"{devices[0]} ({hal_name}) vs {devices[1]} ({ref['name']}), torch {ref.get('torch', '')}, "
             f"{args.dtype}, AdamW {args.optimizer}, {args.steps} training steps, median of {args.repeats} alternating "
             f"rounds per side (lockstep; round by round: the median of the rounds' ratios and their middle half).",
             f"Autograd threading: hal {sides.describe_threading(hal_threading)}; \"ref\" the same "
             f"(torch.autograd.set_multithreading_enabled({hal_threading == 'worker'}) in the reference process); "
             f"\"ref default\": the reference with {sides.describe_threading('worker')}.",
             f"Peak memory, the same two methods on both sides ({sides.MEMORY_METHODS}).",
             "", "| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += [table_row(r, summaries[r["model"]]) for r in results]
    lines += ["", "Peak memory in bytes (hal / ref): " + "; ".join(
        f"{r['model']} device {fmt_mib(r['memory'][0]['device_used_bytes'])} / "
        f"{fmt_mib(r['memory'][1]['device_used_bytes'])}, reserved {fmt_mib(r['memory'][0]['peak_reserved_bytes'])} / "
        f"{fmt_mib(r['memory'][1]['peak_reserved_bytes'])}" for r in results)]
    return "\n".join(lines) + "\n"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"{datetime.date.today().isoformat()}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0", help="the hal device (default hal:0)")
    parser.add_argument("--reference", default="auto", help="cpu, cuda:N, or auto (default): cuda:N for hal:N "
                        "where torch.cuda is available, else cpu")
    parser.add_argument("--models", help="comma-separated names (default: " + ", ".join(
        c.name for c in model_zoo.all_cases(False)) + " as available)")
    parser.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32", help="bf16: torch.autocast")
    parser.add_argument("--optimizer", choices=("foreach", "fused"), default="foreach",
                        help="AdamW's implementation on both sides: foreach (PyTorch's default) or fused=True")
    parser.add_argument("--steps", type=int, help="training steps before the losses are compared (default 20, "
                        "3 with --quick)")
    parser.add_argument("--repeats", type=int, help="timed batches per side (default 5, 2 with --quick)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke test")
    parser.add_argument("--markdown", help="also write the table, with the machine and date, to this file")
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args(argv)
    args.steps = args.steps or (3 if args.quick else 20)
    args.repeats = args.repeats or (2 if args.quick else 5)
    names = args.models.split(",") if args.models else model_zoo.default_names(args.quick)
    try:
        summaries = {n: model_zoo.case(n, args.quick).summary for n in names}
    except ValueError as error:
        parser.error(str(error))
    devices = [args.device, auto_reference(args.device) if args.reference == "auto" else args.reference]
    results = []
    for i, name in enumerate(names, 1):
        print(f"[{i}/{len(names)}] {name} ({summaries[name]}) on {devices[0]} and {devices[1]}", file=sys.stderr,
              flush=True)
        results.append(measure_model(name, devices, args))
    text = report(results, summaries, args, devices)
    print(text, end="")
    bad = [r["model"] for r in results if not all(map(math.isfinite, (r["step_ratio"], r["forward_ratio"])))]
    if args.markdown:
        Path(args.markdown).write_text(f"Machine: {machine()}.\n\n" + text)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "results": results}, indent=1) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
