"""F.scaled_dot_product_attention forward and backward at one shape, on one device: the measurement behind the
attention figures of benchmarks/RESULTS.md (BERT's shapes by default: q, k, v [8, 8, 256, 64] float32 with an
additive [8, 1, 256, 256] mask).

    python benchmarks/sdpa_benchmark.py --device hal:0|cuda:0|cpu [--shape 8,8,256,64] [--no-mask] [--dtype fp32|bf16]
                                        [--repeats 9] [--autograd-threading calling|worker|keep]

Run it once per device, in separate processes (a process that imports torch_hal cannot run autograd on cuda
tensors: lockstep.py), and compare the medians. Autograd threading defaults to torch_hal's (the calling thread) on
every device, so both processes run the backward alike (sides.py). For the kernels behind each call, profile the
same process: `python benchmarks/profile_model.py` does it for whole models.
"""
import argparse
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sides  # noqa: E402
from timing import batch_size, timed_batch  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--shape", default="8,8,256,64", help="batch, heads, sequence, head dim")
    parser.add_argument("--no-mask", action="store_true", help="no additive mask")
    parser.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32")
    parser.add_argument("--repeats", type=int, default=9, help="timed batches (the median counts)")
    parser.add_argument("--autograd-threading", choices=sides.THREADING, default="calling", help=sides.THREADING_HELP)
    args = parser.parse_args(argv)
    if args.device.startswith("hal"):
        import torch_hal  # noqa: F401
    threading = sides.set_autograd_threading(args.autograd_threading)
    device = torch.device(args.device)
    module = getattr(torch, device.type)
    sync = lambda: module.synchronize(device) if device.type != "cpu" else None  # noqa: E731
    batch, heads, seq, dim = (int(x) for x in args.shape.split(","))
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(batch, heads, seq, dim, generator=generator).to(device, dtype).requires_grad_()
               for _ in range(3))
    mask = None if args.no_mask else torch.randn(batch, 1, seq, seq, generator=generator).to(device, dtype)
    grad = torch.randn(batch, heads, seq, dim, generator=generator).to(device, dtype)

    def forward():
        with torch.no_grad():
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    def forward_backward():
        q.grad = k.grad = v.grad = None
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask).backward(grad)

    print(f"SDPA on {device}, q/k/v [{batch}, {heads}, {seq}, {dim}] {args.dtype}, "
          f"{'no mask' if mask is None else f'additive mask [{batch}, 1, {seq}, {seq}]'}, "
          f"{sides.describe_threading(threading)}, torch {torch.__version__}; median of {args.repeats} timed batches")
    for name, fn in (("forward", forward), ("forward and backward", forward_backward)):
        n = batch_size(fn, sync)
        t = statistics.median(timed_batch(fn, sync, n) for _ in range(args.repeats))
        print(f"  {name}: {t * 1e6:.1f} µs a call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
