"""A captured step against the same step run eagerly, on one hal device (issue 43's host-device target: a replayed
small-model step faster than the eager one). Two workloads: an MLP training step (forward, backward, SGD with
momentum) and a decoder step over a static KV cache (tests/python/test_graphs.py's DecoderLayer, no grad).
Eager and replay are timed in alternating batches, medians of the rounds (torch_hal.timing.time_pair).

    python benchmarks/graph_benchmark.py [--device hal:0] [--repeats 9]

What a replay saves today is Python's side of a step (modules, autograd's graph building, the optimizer's loops):
the captured graph is a recorded list of aten calls (torch_hal/graphs.py), so every kernel still launches one by
one; the vendor graph APIs (CUDA graphs) are what would remove the launches on GPUs.
"""
import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
import torch_hal  # noqa: E402,F401
from torch_hal.timing import time_pair  # noqa: E402


def mlp_step(device):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 128),
                                torch.nn.GELU(), torch.nn.Linear(128, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x, target = torch.randn(32, 64, device=device), torch.randn(32, 10, device=device)

    def step():
        opt.zero_grad(set_to_none=False)
        F.mse_loss(model(x), target).backward()
        opt.step()

    return step


def decoder_step(device):
    from test_graphs import DecoderLayer

    torch.manual_seed(0)
    layer = DecoderLayer(dim=64, heads=4, max_len=64).to(device)
    token, position = torch.randn(1, 1, 64, device=device), torch.zeros(1, dtype=torch.long, device=device)

    def step():
        with torch.no_grad():
            layer(token, position)

    return step


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    sync = lambda: torch.hal.synchronize(device)  # noqa: E731
    props = torch.hal.get_device_properties(device)
    print(f"graph capture on {device} ({props.adapter}: {props.name}), medians of {args.repeats} alternating rounds")
    print(f"{'workload':<28}{'eager us':>12}{'replay us':>12}{'replay/eager':>14}")
    for name, make in (("MLP training step", mlp_step), ("decoder step, static cache", decoder_step)):
        step = make(device)
        step()  # warm-up: gradients and optimizer state exist before capture, as torch.cuda's graphs need
        graph = torch.hal.HALGraph()
        with torch.hal.graph(graph):
            step()
        eager, replay = time_pair(step, sync, graph.replay, sync, repeats=args.repeats)
        print(f"{name:<28}{eager * 1e6:>12.1f}{replay * 1e6:>12.1f}{replay / eager:>14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
