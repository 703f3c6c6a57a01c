"""hal:N on an NVIDIA GPU against torch.cuda on the same GPU, in one run, printed as ratios.

    python benchmarks/cuda_comparison_benchmark.py [--quick] [--rounds N] [--markdown FILE] [--json FILE]
        [--device hal:N] [--reference cuda:0 | hal:M] [--only TEXT]

--reference hal:M compares two hal devices instead, e.g. the same GPU through two adapters (the AMD adapter
on HIP's NVIDIA platform against the NVIDIA adapter: `scripts/gpu_check.sh amd_vs_nvidia`), with the same
pairing of batches and processes as against cuda.

Each case runs the same PyTorch code on the hal device and on cuda. Cases without autograd run both sides in
this process, in alternating batches (time_pair), so that both see the same core, clock and moment of the
machine: on the lent H100 machine the same op differs by up to 40% between two processes, depending on
where and when each runs. The training steps cannot share a process: once hal is registered it is
PyTorch's accelerator, and PyTorch's autograd engine then refuses backward passes over cuda tensors in that
process (pytorch/pytorch#161129). So each side of them runs in a fresh child process of its own (the cuda one
never imports torch_hal), and the two children are timed in lockstep: this process asks one for a timed
batch, then the other, and so on (the idle one waits on its pipe), which gives them the alternating batches
that time_pair gives the other cases. Neither inherits the state this process built up over the other
cases, and every round starts a new set of workers.

Figures are medians, never the best: per round, each side's median of its alternating batches (hal batch, reference
batch, hal, reference, ...); over --rounds rounds, each side's median of those, and the median of the rounds'
hal/reference ratios with their middle half ("round by round", lockstep.paired_summary).

Autograd threading (sides.py): importing torch_hal runs backward on the calling thread, so the reference training
worker runs with the same setting (torch.autograd.set_multithreading_enabled(False) in the cuda process too): the
"hal/ref time" column. A third training worker, the reference with PyTorch's default (backward on autograd's
device thread), gives the "hal/ref default" column. The other cases run no backward.

"hal/cuda time" below 1 means hal is faster; for transfers and large kernels the speed ratio (cuda time /
hal time) is printed too. Targets (issue 3): pageable H2D and D2H speed at least 2.0x torch.cuda's; pinned
copies, D2D, elementwise on 256 MiB and matrix products at least 0.95x; `empty` and per-op time at most
1.0x; MLP and transformer steps at most 1.05x.
"""
import argparse
import datetime
import json
import platform
import statistics
import sys
from pathlib import Path
from typing import Callable, NamedTuple, Optional

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402  (the training processes in lockstep)
from reference_models import TinyTransformer, mlp, training_step, transformer_batch  # noqa: E402  (torch only)
import sides  # noqa: E402  (autograd threading, alike on both sides)
from timing import batch_size, time_pair, timed_batch  # noqa: E402  (loaded without the torch_hal package)

MiB = 1 << 20


def gpu_hal_device():
    """The first GPU among the hal devices: an NVIDIA GPU through the NVIDIA adapter, or the same GPU through
    the AMD adapter's HIP path (vendor_adapters/amd/nvidia_platform, `scripts/gpu_check.sh amd_benchmark`)."""
    import torch_hal  # noqa: F401  (the cuda training worker never calls this, so never registers hal)
    for i in range(torch.hal.device_count()):
        if torch.hal.get_device_properties(i).vendor.lower() in ("nvidia", "amd"):
            return torch.device("hal", i)
    return None


def parse_device(text: Optional[str]) -> Optional[torch.device]:
    """A device named on the command line; hal devices register torch_hal first."""
    if text is None:
        return None
    if text.startswith("hal"):
        import torch_hal  # noqa: F401  (names the hal device type; a cuda worker never gets here)
    return torch.device(text)


def syncer(device):
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: torch.hal.synchronize(device)


class Case(NamedTuple):
    name: str
    work: Optional[float]  # bytes moved or FLOPs per call, for a rate; None for latency cases
    make: Callable  # make(device) -> the function to time
    trains: bool = False  # runs backward: each side runs in a child process (the cuda one without torch_hal)


def copy_cases(nbytes):
    n = nbytes // 4

    def h2d_pageable(dev):
        src = torch.randn(n)
        return lambda: src.to(dev)

    def d2h_pageable(dev):
        src = torch.randn(n, device=dev)
        return lambda: src.cpu()

    def h2d_pinned(dev):
        src = torch.randn(n).pin_memory(dev.type)
        dst = torch.empty(n, device=dev)
        return lambda: dst.copy_(src, non_blocking=True)

    def d2h_pinned(dev):
        src = torch.randn(n, device=dev)
        dst = torch.empty(n).pin_memory(dev.type)
        return lambda: dst.copy_(src, non_blocking=True)

    def d2d(dev):
        src = torch.randn(n, device=dev)
        dst = torch.empty(n, device=dev)
        return lambda: dst.copy_(src)

    yield Case("H2D pageable 256 MiB (x.to)", nbytes, h2d_pageable)
    yield Case("D2H pageable 256 MiB (x.cpu())", nbytes, d2h_pageable)
    yield Case("H2D pinned 256 MiB", nbytes, h2d_pinned)
    yield Case("D2H pinned 256 MiB", nbytes, d2h_pinned)
    yield Case("D2D 256 MiB (read+write)", 2 * nbytes, d2d)


def kernel_cases(nbytes):
    n = nbytes // 4

    def empty(dev):
        return lambda: torch.empty(1024, device=dev)

    def add_small(dev):
        a, b = torch.randn(16, device=dev), torch.randn(16, device=dev)
        return lambda: a.add_(b)

    def add_large(dev):
        a, b = torch.randn(n, device=dev), torch.randn(n, device=dev)
        return lambda: a + b

    def relu_large(dev):
        a = torch.randn(n, device=dev)
        return lambda: torch.relu(a)

    def mm(dtype):
        def make(dev):
            a = torch.randn(4096, 4096, device=dev, dtype=dtype)
            b = torch.randn(4096, 4096, device=dev, dtype=dtype)
            return lambda: a @ b
        return make

    def cast_to_bf16(dev):
        a = torch.randn(n, device=dev)
        return lambda: a.to(torch.bfloat16)

    def dropout(dev):
        a = torch.randn(n, device=dev)
        return lambda: torch.native_dropout(a, 0.1, True)

    def topk_vocab(dev):  # top-k sampling over GPT-2's vocabulary: lines longer than one block sorts
        logits = torch.randn(8, 50257, device=dev)
        return lambda: torch.topk(logits, 50, dim=-1)

    def sort_long(dev):
        a = torch.randn(1 << 20, device=dev)
        return lambda: torch.sort(a)

    def rfft_frames(n):  # an STFT's frames: the library transforms by definition, n^2 work per line
        def make(dev):
            frames = torch.randn(64, n, device=dev)
            return lambda: torch.fft.rfft(frames)
        return make

    yield Case("empty 4 KiB", None, empty)
    yield Case("add_ on 16 elements", None, add_small)
    yield Case("add 256 MiB (2 reads + 1 write)", 3 * nbytes, add_large)
    yield Case("relu 256 MiB (read + write)", 2 * nbytes, relu_large)
    yield Case("mm fp32 4096", 2 * 4096 ** 3, mm(torch.float32))
    yield Case("mm bf16 4096", 2 * 4096 ** 3, mm(torch.bfloat16))
    yield Case("cast fp32 -> bf16 256 MiB (read + write)", nbytes + nbytes // 2, cast_to_bf16)
    yield Case("native_dropout 256 MiB (read, write, mask)", 2 * nbytes + nbytes // 4, dropout)
    yield Case("topk 50 of 8 x 50257 (fp32)", None, topk_vocab)
    yield Case("sort 1M fp32", None, sort_long)
    yield Case("rfft 64 frames x 512", None, rfft_frames(512))
    yield Case("rfft 64 frames x 4096", None, rfft_frames(4096))


def model_cases():
    def mlp_forward(dev):
        torch.manual_seed(0)
        model = mlp().to(dev)
        x = torch.randn(64, 784, device=dev)

        def fn():
            with torch.no_grad():
                return model(x)
        return fn

    def mlp_step(dev):
        torch.manual_seed(0)
        model = mlp().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        x = torch.randn(64, 784, device=dev)
        y = torch.randint(0, 10, (64,), device=dev)
        return lambda: training_step(model, opt, x, y)

    def transformer_step(dev):
        torch.manual_seed(0)
        model = TinyTransformer().to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        tokens, targets = transformer_batch()
        tokens, targets = tokens.to(dev), targets.to(dev)
        return lambda: training_step(model, opt, tokens, targets)

    def adamw_step(fused):
        def make(dev):
            # GPT-2 small's parameter tensors (124M parameters, 148 tensors), gradients drawn once.
            torch.manual_seed(0)
            shapes = [(50257, 768), (1024, 768)] + [s for _ in range(12) for s in (
                (768,), (768,), (768, 2304), (2304,), (768, 768), (768,), (768,), (768,), (768, 3072), (3072,),
                (3072, 768), (768,))] + [(768,), (768,)]
            params = [torch.nn.Parameter(torch.randn(s, device=dev) * 0.02) for s in shapes]
            for p in params:
                p.grad = torch.randn_like(p) * 1e-3
            kind = {"fused": True} if fused else {"foreach": True}
            opt = torch.optim.AdamW(params, lr=1e-4, **kind)
            return opt.step
        return make

    yield Case("MLP 784-256-128-10 forward, batch 64", None, mlp_forward)
    yield Case("AdamW step foreach, GPT-2 small's 124M parameters", None, adamw_step(False))
    yield Case("AdamW step fused, GPT-2 small's 124M parameters", None, adamw_step(True))
    yield Case("MLP training step (AdamW)", None, mlp_step, trains=True)
    yield Case("transformer block training step (AdamW)", None, transformer_step, trains=True)


ONLY: list[str] = []  # --only: case names containing one of these (all cases when empty)


def all_cases(quick: bool):
    nbytes = (32 if quick else 256) * MiB
    cases = list(copy_cases(nbytes)) + list(kernel_cases(nbytes)) + list(model_cases())
    return [c for c in cases if not ONLY or any(part in c.name for part in ONLY)]


def empty_cache(device):
    (torch.cuda if device.type == "cuda" else torch.hal).empty_cache()


def time_side_by_side(case, hal, cuda, quick: bool):
    """Seconds per call on hal and on cuda, timed in alternating batches in this process."""
    t_hal, t_cuda = time_pair(case.make(hal), syncer(hal), case.make(cuda), syncer(cuda), repeats=repeats(quick))
    empty_cache(hal)
    empty_cache(cuda)
    return t_hal, t_cuda


def repeats(quick: bool) -> int:
    return 3 if quick else 9


def start_training_worker(device: torch.device, quick: bool, threading: str = "keep") -> lockstep.Worker:
    """A child process that times the training cases on one side ("hal" or "cuda"), one batch per request."""
    args = [__file__, "--training-worker", str(device), "--autograd-threading", threading]
    args += (["--quick"] if quick else []) + [arg for part in ONLY for arg in ("--only", part)]
    # A cuda side must not load torch_hal (lockstep.py says why).
    return lockstep.Worker(f"{device} ({threading} autograd threading)", args,
                           env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})


def paired_training_times(cases, hal, reference, quick: bool, threadings):
    """Per training case, the seconds per call of each worker (hal, then the reference with each of `threadings`),
    from a fresh set of worker processes whose batches alternate, each the median of repeats(quick) batches."""
    workers = [start_training_worker(hal, quick)]
    workers += [start_training_worker(reference, quick, mode) for mode in threadings]
    try:
        return [tuple(lockstep.lockstep_medians(workers, str(i), repeats(quick))) for i in range(len(cases))]
    finally:
        for worker in workers:
            worker.close()


def training_worker(side: str, quick: bool, threading: str):
    """A child process's job: build and warm up every training case on one side (the device `side` names, with
    autograd's `threading`), then answer each case index read from stdin with the seconds per call of one timed
    batch of it."""
    device = parse_device(side)
    sides.set_autograd_threading(threading)  # after parse_device, whose import of torch_hal sets its own
    sync = syncer(device)
    fns = [c.make(device) for c in all_cases(quick) if c.trains]
    sizes = [batch_size(fn, sync) for fn in fns]
    lockstep.serve(lambda line: repr(timed_batch(fns[int(line)], sync, sizes[int(line)])))


def run(quick: bool, rounds: int, hal: Optional[torch.device], cuda: torch.device):
    """Per case and side, the per-round figures of `rounds` rounds; within a round, every case in order (see the
    module docstring for which share a process). `cuda` is the reference side: torch.cuda, or another hal device.
    Returns (hal, reference, threadings, rows), a row being (name, work, [hal per round], [reference per round],
    [reference with PyTorch's default threading per round, or None])."""
    hal = hal or gpu_hal_device()
    if hal is None or (cuda.type == "cuda" and not torch.cuda.is_available()):
        sys.exit("this benchmark needs a GPU as a hal device and torch.cuda (or --reference hal:M) on the same GPU")
    # This process imported torch_hal with the devices the hal training worker will see: its threading is theirs.
    threadings = sides.reference_threadings(sides.autograd_threading(), str(cuda))
    cases = all_cases(quick)
    in_process = [c for c in cases if not c.trains]
    training = [c for c in cases if c.trains]
    per_round = {c.name: [[], [], []] for c in cases}
    for r in range(rounds):
        for i, case in enumerate(in_process, 1):
            print(f"[round {r + 1}/{rounds}, {i}/{len(in_process)}] {case.name}", file=sys.stderr, flush=True)
            for side, t in enumerate(time_side_by_side(case, hal, cuda, quick)):
                per_round[case.name][side].append(t)
        if training:
            print(f"[round {r + 1}/{rounds}] training steps, a {hal} and {len(threadings)} {cuda} process(es) in "
                  "lockstep", file=sys.stderr, flush=True)
            for case, times in zip(training, paired_training_times(training, hal, cuda, quick, threadings)):
                # Each round's figures too: how far apart rounds land is the noise the medians summarize.
                print(f"    {case.name}: {hal} {times[0] * 1e6:.1f} µs, " + ", ".join(
                      f"{cuda} ({mode}) {t * 1e6:.1f} µs, ratio {times[0] / t:.2f}"
                      for mode, t in zip(threadings, times[1:])), file=sys.stderr, flush=True)
                for side, t in enumerate(times):
                    per_round[case.name][side].append(t)
    rows = [(c.name, c.work, *(per_round[c.name][side] or None for side in range(3))) for c in cases]
    return hal, cuda, threadings, rows


def fmt_rate(work, t, name):
    if work is None:
        return ""
    if name.startswith("mm"):
        return f"{work / t / 1e12:.0f} TFLOP/s"
    return f"{work / t / 1e9:.1f} GB/s"


def table(rows, reference: str = "cuda"):
    """Medians over the rounds, the ratio of the medians, the median of the rounds' ratios (with their middle half),
    and for the training steps the ratio against the reference with PyTorch's default autograd threading."""
    lines = [f"| case | hal | {reference} | hal/{reference} time | round by round | speed vs {reference} | "
             f"hal/{reference} default threading |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, work, hal_rounds, ref_rounds, default_rounds in rows:
        t_hal, t_ref = statistics.median(hal_rounds), statistics.median(ref_rounds)
        hal_s = f"{t_hal * 1e6:.1f} µs" + (f" ({fmt_rate(work, t_hal, name)})" if work else "")
        ref_s = f"{t_ref * 1e6:.1f} µs" + (f" ({fmt_rate(work, t_ref, name)})" if work else "")
        paired = lockstep.paired_summary(lockstep.paired_ratios([hal_rounds, ref_rounds]))
        default = (f"{t_hal / statistics.median(default_rounds):.2f}" if default_rounds else
                   "= (no backward)" if not any(c.name == name and c.trains for c in all_cases(False)) else "= (same)")
        lines.append(f"| {name} | {hal_s} | {ref_s} | {t_hal / t_ref:.2f} | {paired} | {t_ref / t_hal:.2f}x | {default} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="32 MiB copies and fewer repeats")
    parser.add_argument("--markdown", help="also write the table, with the GPU and the date, to this file")
    parser.add_argument("--json", help="also write every round's figures to this file")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every case (default 5); the medians count")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="run only the cases whose name contains TEXT (repeatable)")
    parser.add_argument("--device", help="the hal device to measure (default: the first GPU among hal devices)")
    parser.add_argument("--reference", default="cuda:0", help="what to compare with: cuda:0 (default) or hal:M")
    parser.add_argument("--training-worker", metavar="DEVICE", help=argparse.SUPPRESS)
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="keep", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ONLY.extend(args.only)
    if args.training_worker:
        training_worker(args.training_worker, args.quick, args.autograd_threading)
        return
    rounds = max(1, args.rounds)
    hal, reference, threadings, rows = run(args.quick, rounds, parse_device(args.device), parse_device(args.reference))
    import torch_hal

    def describe(device):
        if device.type != "hal":
            return str(device)
        return f"{device} through the {torch.hal.get_device_properties(device).adapter} adapter"

    props = torch.hal.get_device_properties(hal)
    header = (f"{props.name} as {describe(hal)} (torch_hal {torch_hal.__version__}) vs {describe(reference)}, "
              f"PyTorch {torch.__version__}, Python {platform.python_version()}, {datetime.date.today().isoformat()}")
    label = "cuda" if reference.type == "cuda" else str(reference)
    method = (f"\n\nMedians of {rounds} rounds; in each round hal and {label} alternate batch by batch (in this process; "
              f"the training steps in worker processes in lockstep), each side's median batch kept. Training steps: "
              f"hal {sides.describe_threading(threadings[0])}, {label} the same; \"default threading\": {label} with "
              f"{sides.describe_threading('worker')}" + ("" if len(threadings) > 1 else " (the same here)") + ".")
    text = header + method + "\n\n" + table(rows, label)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"header": header, "rounds": rounds, "threadings": threadings, "rows": [
            {"case": name, "work": work, "hal_s": h, "reference_s": r, "reference_default_threading_s": d}
            for name, work, h, r, d in rows]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
