"""torch_hal quickstart: list adapters and devices, then train the same MLP on the best hal device and on
the CPU from one seed, and compare losses, time per step and memory.

    python demos/quickstart.py [--steps 300] [--batch 64]
"""
import argparse
import time

import torch
import torch.nn as nn

import torch_hal


def make_data(n: int, seed: int):
    """A synthetic 10-class problem: labels come from a fixed random linear 'teacher'."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 784, generator=g)
    teacher = torch.randn(784, 10, generator=g)
    return x, (x @ teacher).argmax(dim=1)


def make_model(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def sync(device: torch.device):
    if device.type == "hal":
        torch.hal.synchronize(device)


WARMUP_STEPS = 10  # excluded from the time per step: first-use costs (thread pools, memory) are not speed


def train(device: torch.device, x_all, y_all, steps: int, batch: int, seed: int):
    model = make_model(seed).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    x_all, y_all = x_all.to(device), y_all.to(device)
    sync(device)
    start = time.perf_counter()
    for step in range(steps):
        if step == WARMUP_STEPS:
            sync(device)
            start = time.perf_counter()
        i = (step * batch) % (x_all.shape[0] - batch)
        xb, yb = x_all[i:i + batch], y_all[i:i + batch]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    sync(device)
    elapsed = time.perf_counter() - start
    return [float(l) for l in losses], elapsed / max(1, steps - WARMUP_STEPS), model


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300, help=f"training steps (more than {WARMUP_STEPS})")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.steps <= WARMUP_STEPS:
        parser.error(f"--steps must be more than the {WARMUP_STEPS} warm-up steps")

    print("Adapters:")
    for a in torch_hal.adapters():
        print(f"  {a.name:<14} {a.state:<12} devices={a.device_count} {a.reason}")
    print("Devices:")
    for i in range(torch.hal.device_count()):
        p = torch.hal.get_device_properties(i)
        print(f"  hal:{i}  {p.name}  ({p.adapter}, {p.total_memory / 2**30:.1f} GiB)")

    # Devices are numbered best first: accelerators before the host reference device.
    device = torch.device("hal", 0)
    x, y = make_data(8192, args.seed)
    # hal_model stays alive until the memory figures below are printed.
    hal_losses, hal_step, hal_model = train(device, x, y, args.steps, args.batch, args.seed)  # noqa: F841
    cpu_losses, cpu_step, _ = train(torch.device("cpu"), x, y, args.steps, args.batch, args.seed)

    diff = max(abs(a - b) for a, b in zip(hal_losses, cpu_losses))
    print(f"\nTrained 784-256-128-10 MLP for {args.steps} steps, batch {args.batch}:")
    print(f"  {device} ({torch.hal.get_device_name(device)}): first loss {hal_losses[0]:.6f}, "
          f"final loss {hal_losses[-1]:.6f}, {hal_step * 1e3:.3f} ms/step after {WARMUP_STEPS} warm-up steps")
    print(f"  cpu: first loss {cpu_losses[0]:.6f}, final loss {cpu_losses[-1]:.6f}, {cpu_step * 1e3:.3f} ms/step")
    print(f"  largest loss difference over all steps: {diff:.3e}")
    print(f"\nMemory on {device} with the trained model alive: allocated {torch.hal.memory_allocated(device) / 2**20:.2f} MiB, "
          f"peak {torch.hal.max_memory_allocated(device) / 2**20:.2f} MiB, "
          f"reserved {torch.hal.memory_reserved(device) / 2**20:.2f} MiB")
    print(torch.hal.memory_summary(device))
    print("CPU-fallback ops (copies to and from the device):", torch.hal.fallback_stats() or "none")


if __name__ == "__main__":
    main()
