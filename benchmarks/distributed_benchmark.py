"""all_reduce bus bandwidth (1 KiB .. 1 GiB) and DDP step time on two devices: hal's "hal" backend against
torch.cuda's NCCL on the same two GPUs (or, without CUDA, against gloo on CPU tensors).

    python benchmarks/distributed_benchmark.py [--quick] [--max-bytes N] [--steps 10] [--repeats 5] [--json out.json]

Each side is a group of two ranks: the lockstep worker (benchmarks/lockstep.py) is rank 0, which starts rank 1
itself and hands it each request through the group's gloo backend. The sides run in separate processes, since
a process that imports torch_hal cannot run autograd on cuda tensors (lockstep.py says why), and are timed in
alternating rounds (hal, reference, reference, hal, ...: lockstep.lockstep_samples). Every figure is the median of
--repeats rounds per side (never the best), and each ratio is also given round by round (the median of the rounds'
ratios, lockstep.paired_summary). Bus bandwidth is NCCL-tests' definition for all_reduce: 2 (n - 1) / n * bytes /
time.

Autograd threading (sides.py): the reference ranks run backward with the hal ranks' setting (torch_hal keeps
PyTorch's worker threads in a process that sees two or more GPUs, and runs backward on the calling thread
otherwise); where that is not PyTorch's default, the DDP step is timed a third time, on the reference with
PyTorch's default, as a second figure. all_reduce runs no backward.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from lockstep import Worker, lockstep_samples, medians, paired_ratios, paired_summary, serve  # noqa: E402
import sides  # noqa: E402  (imports torch only inside its functions)

WORLD = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------- ranks
def rank_main(side: str, rank: int, port: int, threading: str = "keep"):
    import datetime
    import faulthandler

    # A rank that hangs (in a collective, or in tearing the group down) shows where, on stderr, and exits:
    # the timer is set again at each request, and for the teardown.
    def hang_watch(seconds=240):
        faulthandler.dump_traceback_later(seconds, exit=True)

    hang_watch()

    import torch
    import torch.distributed as dist

    if side == "hal":
        import torch_hal  # noqa: F401

        device = torch.device("hal", rank % torch.hal.device_count())
        torch.hal.set_device(device)
        backend, sync = "hal", torch.hal.synchronize
    elif side == "cuda":
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)
        backend, sync = "nccl", torch.cuda.synchronize
    else:
        device, backend, sync = torch.device("cpu"), "gloo", (lambda: None)
    sides.set_autograd_threading(threading)  # after torch_hal, which sets its own
    dist.init_process_group(backend=backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=300))
    control = dist.new_group(backend="gloo")  # carries the requests from rank 0 to rank 1
    # reference_models imports torch only: the cuda side must not register hal (lockstep.py says why).
    from reference_models import TinyTransformer, transformer_batch

    state = {}

    def run(request: str) -> str:
        hang_watch()
        words = request.split()
        if words[0] == "threading":
            return sides.autograd_threading()
        if words[0] == "allreduce":
            nbytes, iters = int(words[1]), int(words[2])
            x = torch.ones(max(1, nbytes // 4), dtype=torch.float32, device=device)
            dist.all_reduce(x)
            sync()
            dist.barrier(group=control)
            start = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(x)
            sync()
            return str((time.perf_counter() - start) / iters)
        if words[0] == "ddp":
            steps = int(words[1])
            if "ddp" not in state:
                torch.manual_seed(0)
                model = torch.nn.parallel.DistributedDataParallel(TinyTransformer(vocab=1000, dim=256).to(device))
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                tokens, targets = transformer_batch(batch=8, seq=128, vocab=1000, seed=rank)
                state["ddp"] = (model, opt, tokens.to(device), targets.to(device))
            model, opt, tokens, targets = state["ddp"]

            def step():
                opt.zero_grad(set_to_none=True)
                logits = model(tokens)
                torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)).backward()
                opt.step()

            step()
            sync()
            dist.barrier(group=control)
            start = time.perf_counter()
            for _ in range(steps):
                step()
            sync()
            return str((time.perf_counter() - start) / steps)
        raise ValueError(f"unknown request {request!r}")

    if rank == 0:
        def answer(request: str) -> str:
            message = [request]
            dist.broadcast_object_list(message, src=0, group=control)
            return run(request)

        serve(answer)
        hang_watch(60)  # from here on, the teardown
        dist.broadcast_object_list(["quit"], src=0, group=control)
    else:
        while True:
            message = [None]
            dist.broadcast_object_list(message, src=0, group=control)
            if message[0] == "quit":
                break
            run(message[0])
            hang_watch(120)  # the next request comes once the other side has answered its own
    hang_watch(60)
    dist.destroy_process_group()
    # The watch stays armed through the interpreter's exit: a process that hangs there is ended after 60 s with
    # its stacks on stderr, and these lines say how far it came.
    print(f"{side} rank {rank}: left the group, exiting", file=sys.stderr, flush=True)


def side_worker(side: str, threading: str = "keep"):
    """Rank 0 of a side (the lockstep worker): starts rank 1, then serves."""
    port = free_port()
    peer = subprocess.Popen([sys.executable, __file__, "--rank-of", side, "1", str(port), threading],
                            stdout=subprocess.DEVNULL)
    try:
        rank_main(side, 0, port, threading)
    finally:
        peer.wait()
        print(f"{side} rank 1 exited with {peer.returncode}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------- parent
def sizes(max_bytes: int):
    """1 KiB, 4 KiB, ... (powers of 4: 1 GiB is one of them) up to max_bytes."""
    n = 1024
    while n <= max_bytes:
        yield n
        n *= 4


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="sizes up to 1 MiB, fewer repeats")
    parser.add_argument("--max-bytes", type=int, default=1 << 30)
    parser.add_argument("--steps", type=int, default=10, help="DDP steps per timed batch")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reference", choices=["auto", "cuda", "gloo"], default="auto")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--rank-of", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="keep", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rank_of:
        return rank_main(args.rank_of[0], int(args.rank_of[1]), int(args.rank_of[2]), args.rank_of[3])
    if args.side:
        return side_worker(args.side, args.autograd_threading)

    reference = args.reference
    if reference == "auto":
        probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
                               capture_output=True, text=True)
        reference = "cuda" if probe.stdout.strip().isdigit() and int(probe.stdout) >= WORLD else "gloo"
    max_bytes = min(args.max_bytes, 1 << 20) if args.quick else args.max_bytes
    repeats = 3 if args.quick else args.repeats

    def start_side(side: str, threading: str = "keep") -> Worker:
        return Worker(f"{side} ({threading} autograd threading)",
                      [__file__, "--side", side, "--autograd-threading", threading])

    workers = [start_side("hal")]
    hal_threading = workers[0].ask("threading")
    threadings = sides.reference_threadings(hal_threading, "cpu" if reference == "gloo" else reference)
    workers.append(start_side(reference, threadings[0]))
    results = {"reference": reference, "repeats": repeats, "statistic": "median of alternating rounds",
               "autograd_threading": {"hal": hal_threading, "reference": threadings[0]}, "allreduce": [], "ddp": {}}
    try:
        print(f"hal vs {reference}: medians of {repeats} alternating rounds per side (hal, {reference}, {reference}, "
              f"hal, ...); ratio: {reference} time / hal time, of the medians and round by round (median, middle "
              f"half). Autograd threading: hal {sides.describe_threading(hal_threading)}, {reference} the same.")
        print(f"{'bytes':>12} {'hal busbw GB/s':>15} {reference + ' busbw GB/s':>17} {'ratio':>7} {'round by round':>20}")
        for n in sizes(max_bytes):
            # Each timed batch a few milliseconds at least (50 calls of the small sizes, 10 of 1 GiB): a batch of
            # two calls would measure the launch and the synchronize as much as the transfer.
            iters = max(10, min(50, (1 << 30) // n))
            samples = lockstep_samples(workers, f"allreduce {n} {iters}", repeats)
            t_hal, t_ref = medians(samples)
            paired = paired_summary(paired_ratios(samples, 1, 0))  # reference time / hal time: speed of hal
            bus = lambda t: 2 * (WORLD - 1) / WORLD * n / t / 1e9  # noqa: E731
            results["allreduce"].append({"bytes": n, "hal_s": t_hal, "reference_s": t_ref, "samples": samples,
                                         "hal_busbw_gbps": bus(t_hal), "reference_busbw_gbps": bus(t_ref),
                                         "speed_ratio_round_by_round": paired})
            print(f"{n:>12} {bus(t_hal):>15.3f} {bus(t_ref):>17.3f} {t_ref / t_hal:>7.2f} {paired:>20}")
        steps = 2 if args.quick else args.steps
        if len(threadings) > 1:  # the reference again with PyTorch's default autograd threading, for the DDP step
            workers.append(start_side(reference, threadings[1]))
        samples = lockstep_samples(workers, f"ddp {steps}", repeats)
        times = medians(samples)
        t_hal, t_ref = times[:2]
        results["ddp"] = {"model": "TinyTransformer(dim=256), batch 8x128 per rank", "hal_step_s": t_hal,
                          "reference_step_s": t_ref, "samples": samples,
                          "ratio_round_by_round": paired_summary(paired_ratios(samples, 0, 1))}
        line = (f"DDP step: hal {t_hal * 1e3:.1f} ms, {reference} {t_ref * 1e3:.1f} ms (same autograd threading; "
                f"ratio {t_hal / t_ref:.2f}, round by round {results['ddp']['ratio_round_by_round']})")
        if len(times) > 2:
            results["ddp"]["reference_default_threading_step_s"] = times[2]
            line += (f"; {reference} with {sides.describe_threading('worker')} {times[2] * 1e3:.1f} ms (ratio "
                     f"{t_hal / times[2]:.2f})")
        print(line)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))
    finally:
        for w in workers:
            close_within(w, 90)


def close_within(worker: Worker, seconds: float):
    """Ends a side: its ranks leave the group and exit; one that does not within `seconds` is named and killed
    (its stack went to stderr through faulthandler), and the benchmark fails."""
    worker.process.stdin.close()
    try:
        worker.process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        worker.process.kill()
        worker.process.wait()
        raise SystemExit(f"the {worker.name} side did not exit within {seconds:.0f} s of its last request")


if __name__ == "__main__":
    main()
