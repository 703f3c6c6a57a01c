"""The host reference device against CPU tensors, in one run: per-op overhead, MLP forward and training
step, and copy bandwidth to and from hal:0.

    python benchmarks/host_device_benchmark.py [--device hal:0] [--markdown benchmarks/RESULTS.md]

Targets (DESIGN/issue 2): per-op overhead and MLP at most 1.2x the CPU time; 256 MiB copies to and from
hal:0 at least 0.8x the speed of torch.clone on the CPU.

Both sides run in this process, in alternating batches (timing.time_pair, the median batch of each), with the same
autograd threading: torch_hal's (backward on the calling thread), under which CPU tensors' backward runs on the
calling thread as it always does.
"""
import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

import torch
import torch.nn as nn

import torch_hal  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import time_pair, time_per_call  # noqa: E402


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def op_cases(device):
    a, b = torch.randn(16, device=device), torch.randn(16, device=device)
    yield "add_ on 16 elements", lambda: a.add_(b)
    yield "empty 4 KiB", lambda: torch.empty(1024, device=device)

    model = mlp().to(device)
    x = torch.randn(64, 784, device=device)
    y = torch.randint(0, 10, (64,), device=device)

    def forward():
        with torch.no_grad():
            model(x)

    yield "MLP 784-256-128-10 forward, batch 64", forward
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def train_step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()

    yield "MLP training step, batch 64", train_step


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--copy-mib", type=int, default=256)
    parser.add_argument("--markdown", help="write the results as a markdown section to this file")
    args = parser.parse_args()
    device = torch.device(args.device)
    sync_hal = lambda: torch.hal.synchronize(device)  # noqa: E731
    no_sync = lambda: None  # noqa: E731

    rows = []
    hal_cases = dict(op_cases(device))
    for name, cpu_fn in op_cases(torch.device("cpu")):
        t_hal, t_cpu = time_pair(hal_cases[name], sync_hal, cpu_fn, no_sync)
        rows.append((name, f"{t_hal * 1e6:.2f} us", f"{t_cpu * 1e6:.2f} us", t_hal / t_cpu, "<= 1.2 (time)"))

    nbytes = args.copy_mib << 20
    src = torch.randn(nbytes // 4)
    on_hal = src.to(device)
    t_h2d, t_clone = time_pair(lambda: src.to(device), sync_hal, lambda: src.clone(), no_sync, repeats=5)
    t_d2h = time_per_call(lambda: on_hal.cpu(), sync_hal, repeats=5)
    gbs = lambda t: nbytes / t / 1e9  # noqa: E731
    rows.append((f".to('{device}') {args.copy_mib} MiB", f"{gbs(t_h2d):.2f} GB/s", f"{gbs(t_clone):.2f} GB/s (clone)",
                 gbs(t_h2d) / gbs(t_clone), ">= 0.8 (speed)"))
    rows.append((f".cpu() {args.copy_mib} MiB", f"{gbs(t_d2h):.2f} GB/s", f"{gbs(t_clone):.2f} GB/s (clone)",
                 gbs(t_d2h) / gbs(t_clone), ">= 0.8 (speed)"))
    # clone and .cpu() pay for fresh pages; copies into memory that is already there show raw bandwidth.
    cpu_dst, hal_dst = torch.empty_like(src), torch.empty_like(on_hal)
    t_h2d_into, t_cpu_copy = time_pair(lambda: hal_dst.copy_(src), sync_hal, lambda: cpu_dst.copy_(src), no_sync,
                                       repeats=5)
    t_d2h_into = time_per_call(lambda: cpu_dst.copy_(on_hal), sync_hal, repeats=5)
    rows.append((f"copy_ cpu->hal {args.copy_mib} MiB, no alloc", f"{gbs(t_h2d_into):.2f} GB/s",
                 f"{gbs(t_cpu_copy):.2f} GB/s (copy_)", gbs(t_h2d_into) / gbs(t_cpu_copy), "(reference)"))
    rows.append((f"copy_ hal->cpu {args.copy_mib} MiB, no alloc", f"{gbs(t_d2h_into):.2f} GB/s",
                 f"{gbs(t_cpu_copy):.2f} GB/s (copy_)", gbs(t_d2h_into) / gbs(t_cpu_copy), "(reference)"))

    name = torch.hal.get_device_name(device)
    header = (f"{'case':<42}{'hal':>14}{'cpu':>24}{'ratio':>8}  target")
    lines = [header, "-" * len(header)]
    for case, h, c, ratio, target in rows:
        lines.append(f"{case:<42}{h:>14}{c:>24}{ratio:>8.2f}  {target}")
    print(f"{device} = {name}; torch {torch.__version__}; {os.cpu_count()} CPU cores; "
          f"torch threads {torch.get_num_threads()}; both sides in one process, medians of alternating batches, "
          f"autograd's backward on the {'worker' if torch.autograd.is_multithreading_enabled() else 'calling'} "
          "thread for both")
    print("\n".join(lines))

    if args.markdown:
        date = datetime.date.today().isoformat()
        md = [f"## Host reference device vs CPU tensors ({date})", "",
              f"Machine: {platform.machine()}, {os.cpu_count()} cores ({name}), Python {platform.python_version()}, "
              f"torch {torch.__version__}. Command: `python benchmarks/host_device_benchmark.py`. Both sides in one "
              "process (the same autograd threading), medians of alternating batches.", "",
              "| case | hal | cpu | ratio | target |", "| --- | ---: | ---: | ---: | --- |"]
        md += [f"| {case} | {h} | {c} | {ratio:.2f} | {target} |" for case, h, c, ratio, target in rows]
        Path(args.markdown).write_text("\n".join(md) + "\n")
        print(f"wrote {args.markdown}")


if __name__ == "__main__":
    main()
