"""hal <-> torch.cuda copies of one GPU in one process against torch.cuda's own device-to-device copy (issue 39):
medians of alternating rounds, GB/s counting the bytes read and written.

    python benchmarks/accelerator_copy_benchmark.py [--mib 256] [--rounds 11]
"""
import argparse
import statistics
import time

import torch

import torch_hal  # noqa: F401


def timed(copy, sync, repeats=5):
    sync()
    start = time.perf_counter()
    for _ in range(repeats):
        copy()
    sync()
    return (time.perf_counter() - start) / repeats


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    hal = next(torch.device("hal", i) for i in range(torch.hal.device_count())
               if torch.hal.get_device_properties(i).adapter in ("nvidia", "amd"))
    cuda = torch.device("cuda", torch.hal.get_device_properties(hal.index).local_index)
    n = args.mib * (1 << 20) // 4
    c, c2, h = torch.randn(n, device=cuda), torch.empty(n, device=cuda), torch.empty(n, device=hal)

    def sync():
        torch.cuda.synchronize(cuda)
        torch.hal.synchronize(hal)

    cases = {"cuda -> hal (h.copy_(c))": lambda: h.copy_(c), "hal -> cuda (c2.copy_(h))": lambda: c2.copy_(h),
             "cuda -> cuda (c2.copy_(c), reference)": lambda: c2.copy_(c)}
    times = {name: [] for name in cases}
    for _ in range(args.rounds):  # alternating: each round times every case once
        for name, copy in cases.items():
            times[name].append(timed(copy, sync))
    print(f"{torch.cuda.get_device_name(cuda)}, {args.mib} MiB, torch {torch.__version__}, "
          f"median of {args.rounds} alternating rounds")
    for name, samples in times.items():
        t = statistics.median(samples)
        print(f"| {name} | {t * 1e6:.1f} us | {2 * n * 4 / t / 1e9:.0f} GB/s |")


if __name__ == "__main__":
    main()
