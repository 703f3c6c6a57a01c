"""Beyond one device: a device mesh over every hal device, several models placed by their memory and compute
needs, a measured performance comparison of the devices, and a live look at their memory.

    python demos/hardware_abstraction/enhanced_multi_vendor_demo.py [--quick]

TORCH_HAL_HOST_DEVICES=2 gives this machine a two-device mesh without any GPU.
"""
import argparse
import copy
from typing import List

import torch
import torch.nn as nn
from torch.utils.flop_counter import FlopCounterMode

import torch_hal
from torch_hal import HardwareAdapter
from torch_hal.timing import time_per_call


class HalMesh:
    """A one-dimensional mesh of hal devices for data parallel inference: the model is replicated on every
    device, a batch is split along its first dimension, and the pieces come back in order."""

    def __init__(self, devices: List[torch.device]):
        self.devices = devices

    def run(self, model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
        replicas = [_copy_of(model).to(d) for d in self.devices]
        shards = batch.chunk(len(self.devices))
        with torch.no_grad():
            # Each device queues its work on its own stream before any result is read back.
            outs = [r(s.to(d, non_blocking=True)) for r, s, d in zip(replicas, shards, self.devices)]
        return torch.cat([o.cpu() for o in outs])


def _copy_of(model: nn.Module) -> nn.Module:
    return copy.deepcopy(model)  # .to() moves a module in place; the CPU original stays the reference


def show_mesh(batch: int):
    devices = [torch.device("hal", i) for i in range(torch.hal.device_count())]
    mesh = HalMesh(devices)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 256)).eval()
    x = torch.randn(batch, 256)
    out = mesh.run(model, x)
    with torch.no_grad():
        diff = (out - model(x)).abs().max().item()
    print(f"== Device mesh over {len(devices)} hal device(s): {', '.join(map(str, devices))}")
    print(f"  batch of {batch} split {len(devices)} ways; largest difference from one CPU run {diff:.2e}")
    if diff > 1e-4:
        raise SystemExit(f"the mesh result differs from the CPU result by {diff}")


def workloads():
    """(name, model, one sample's shape, samples per second wanted)."""
    torch.manual_seed(0)
    yield "MLP 784-256-10", nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)), (784,), 2000
    yield "wide MLP 1024-4096-1024", nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)), \
        (1024,), 500
    yield "layer-norm MLP 512-512-128", nn.Sequential(
        nn.Linear(512, 512), nn.LayerNorm(512), nn.GELU(), nn.Linear(512, 128)), (512,), 1000
    yield "transformer layer d=256, 64 tokens", nn.TransformerEncoderLayer(
        256, 4, dim_feedforward=1024, batch_first=True), (64, 256), 100
    # Asks for far more than a CPU gives, to show a request no device meets falling back to the CPU.
    yield "transformer layer at 1M samples/s", nn.TransformerEncoderLayer(
        256, 4, dim_feedforward=1024, batch_first=True), (64, 256), 1_000_000


def needs(model: nn.Module, sample_shape):
    """Memory: parameters, gradients and Adam's two moments (4x the parameter bytes). Compute: forward
    FLOPs of one sample, counted by PyTorch's FlopCounterMode."""
    param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    counter = FlopCounterMode(display=False)
    # In training mode: in eval mode a transformer layer takes a fused fast path the counter cannot see.
    with counter, torch.no_grad():
        model.train()(torch.randn(1, *sample_shape))
    model.eval()
    return 4 * param_bytes / 1e9, counter.get_total_flops()


def show_placement(adapter: HardwareAdapter, batch: int):
    print("== Workload placement by memory and compute (get_optimal_device_hal per model)")
    placed = []  # models stay on their devices, so each placement sees the memory the previous ones took
    for name, model, shape, rate in workloads():
        memory_gb, flops = needs(model, shape)
        tflops = flops * rate / 1e12
        dev = adapter.get_optimal_device_hal(memory_requirement_gb=memory_gb, compute_requirement_tflops=tflops)
        if dev is None:
            why = "; ".join(f"{d} {r}" for d, r in adapter.last_selection_reasons.items())
            dev = adapter.get_optimal_device_placement(memory_gb=memory_gb, compute_tflops=tflops)
            where = f"{dev.torch_device} (no hal device fits: {why})"
        else:
            where = str(dev.torch_device)
        model = model.to(dev.torch_device)
        x = torch.randn(batch, *shape, device=dev.torch_device)
        with torch.no_grad():
            seconds = time_per_call(lambda: model(x), lambda: _sync(dev.torch_device), repeats=3, min_time=0.02)
        placed.append(model)
        print(f"  {name:<36} needs {memory_gb * 1e3:7.2f} MB, {tflops:9.3g} TFLOP/s ({rate} samples/s) -> "
              f"{where}; measured {batch / seconds:9.0f} samples/s")
    return placed


def _sync(device: torch.device):
    if device.type == "hal":
        torch.hal.synchronize(device)
    elif device.type == "cuda":
        torch.cuda.synchronize(device)


def show_performance():
    print("== Measured performance (torch_hal.measure: timed matmul and copy; cached per device)")
    devices = [f"hal:{i}" for i in range(torch.hal.device_count())] + ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda:0")
    print(f"  {'device':<8}{'fp32 TFLOP/s':>14}{'bf16 TFLOP/s':>14}{'copy GB/s':>11}  reported peaks")
    for d in devices:
        m = torch_hal.measure(d)
        bf16 = f"{m.bf16_tflops:.3f}" if m.bf16_tflops is not None else "failed" if m.bf16_error else "n/a"
        peaks = "none (CPU tensors)" if d == "cpu" else _reported_peaks(d, m)
        print(f"  {d:<8}{m.fp32_tflops:>14.3f}{bf16:>14}{m.copy_gbps:>11.1f}  {peaks}")
        if m.bf16_error:
            print(f"          bf16 matmul failed: {m.bf16_error}")


def _reported_peaks(device: str, m) -> str:
    if not device.startswith("hal"):
        return "not reported by torch.cuda"
    p = torch.hal.get_device_properties(device)
    if not p.peak_fp32_tflops:
        return "none reported by the adapter: the measurement is the figure"
    return (f"{p.peak_fp32_tflops:.1f} TFLOP/s fp32 ({m.fp32_tflops / p.peak_fp32_tflops:.0%} reached), "
            f"{p.memory_bandwidth_gbps:.0f} GB/s ({m.copy_gbps / p.memory_bandwidth_gbps:.0%} reached)"
            if p.memory_bandwidth_gbps else f"{p.peak_fp32_tflops:.1f} TFLOP/s fp32")


def show_live_state():
    print("== Live capability analysis")
    for i in range(torch.hal.device_count()):
        free, total = torch.hal.mem_get_info(i)
        print(f"  hal:{i}: {free / 1e9:.2f} of {total / 1e9:.2f} GB free (mem_get_info); allocated by torch "
              f"{torch.hal.memory_allocated(i) / 1e6:.1f} MB, reserved {torch.hal.memory_reserved(i) / 1e6:.1f} MB; "
              f"utilization: not reported (the hal adapter ABI has no utilization counter)")
    if torch.cuda.is_available():
        try:
            print(f"  cuda:0 utilization: {torch.cuda.utilization(0)}% (torch.cuda)")
        except Exception as error:  # torch.cuda.utilization needs pynvml or amdsmi
            print(f"  cuda:0 utilization: not reported ({error})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small batches (CI)")
    args = parser.parse_args()
    adapter = HardwareAdapter(enable_hal=True)
    print(f"torch_hal {torch_hal.__version__}: {torch.hal.device_count()} hal device(s)")
    show_mesh(batch=64 if args.quick else 4096)
    placed = show_placement(adapter, batch=16 if args.quick else 256)
    show_performance()
    show_live_state()  # while the placed models still hold their memory
    del placed


if __name__ == "__main__":
    main()
