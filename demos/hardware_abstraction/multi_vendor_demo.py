"""Cross-vendor discovery and selection: which adapters and devices this machine has, what they can do,
which device a request selects (and why every device won or lost), then a model run on the chosen device.

    python demos/hardware_abstraction/multi_vendor_demo.py [--quick]
"""
import argparse
import time

import torch
import torch.nn as nn

import torch_hal
from torch_hal import HardwareAdapter, HardwareVendor
from torch_hal.vendor_adapters import all_vendor_adapters, auto_detect_best_adapter


def show_discovery():
    print("== Adapters (C++), as the HAL core loaded them")
    for a in torch_hal.adapters():
        print(f"  {a.name:<12} {a.state:<12} devices={a.device_count} {a.reason}")
    print("== Vendor adapters (torch_hal.vendor_adapters)")
    for va in all_vendor_adapters():
        devices = va.discover_devices()
        status = ", ".join(str(d.torch_device) for d in devices) if devices else f"none: {va.unavailable_reason}"
        print(f"  {va.vendor.value:<12} {status}")
    print(f"  auto_detect_best_adapter() -> {auto_detect_best_adapter()!r}")


def show_capabilities(adapter):
    caps = adapter.get_cross_vendor_capabilities()
    print("== Capabilities (get_cross_vendor_capabilities)")
    for d in caps["cross_vendor_devices"]:
        peak = f"{d['peak_fp32_tflops']:.1f} TFLOP/s fp32" if d["peak_fp32_tflops"] else "no reported peak"
        print(f"  {d['device']:<6} {d['vendor']:<8} {d['name']}: {d['total_memory_gb']:.1f} GB "
              f"({d['free_memory_gb']:.1f} free), {peak}, precisions {', '.join(d['precisions'])}")
    print(f"  vendor distribution: { {v: n for v, n in caps['vendor_distribution'].items() if n} }")
    print(f"  accelerator memory available: {caps['available_memory_gb']:.1f} GB; host reference device "
          f"memory: {caps['host_available_memory_gb']:.1f} GB (counted apart)")


def show_selection(adapter):
    print("== Selection with the guide's request: 8 GB, 20 TFLOP/s, nvidia > amd > intel")
    dev = adapter.get_optimal_device_hal(memory_requirement_gb=8, compute_requirement_tflops=20,
                                         preferred_vendors=["nvidia", "amd", "intel"])
    print(f"  result: {dev}")
    for device, why in adapter.last_selection_reasons.items():
        print(f"  {device}: {why}")
    if dev is not None:
        return dev
    # A request this machine meets: half the free memory of its largest device, and half the throughput
    # that torch_hal.measure() times on the device selection ranks first.
    best = adapter.get_optimal_device_hal()
    m = torch_hal.measure(best.torch_device)
    memory = round(best.free_memory_gb() / 2, 1)
    print(f"== A request that fits: {memory} GB, {m.fp32_tflops / 2:.3g} TFLOP/s (half of {best.torch_device}'s "
          f"measured {m.fp32_tflops:.3g}), fp16, any vendor, host last")
    selection = adapter.get_optimal_device_hal(
        memory_requirement_gb=memory, compute_requirement_tflops=m.fp32_tflops / 2, required_precisions=["fp16"],
        preferred_vendors=[HardwareVendor.NVIDIA, HardwareVendor.AMD, HardwareVendor.INTEL,
                           HardwareVendor.CUSTOM_ASIC, HardwareVendor.HOST], explain=True)
    print("  " + str(selection).replace("\n", "\n  "))
    return selection.device


def run_model(dev, batch: int):
    chosen = dev.torch_device
    print(f"== A model on {chosen} ({dev.capabilities.device_name})")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10))
    x = torch.randn(batch, 784)
    expected = model(x)
    model = model.to(chosen)
    with torch.no_grad():
        out = model(x.to(chosen))
        torch.hal.synchronize(chosen)
        start = time.perf_counter()
        out = model(x.to(chosen))
        torch.hal.synchronize(chosen)
        elapsed = time.perf_counter() - start
    max_diff = (out.cpu() - expected.detach()).abs().max().item()
    print(f"  forward of a batch of {batch}: {elapsed * 1e3:.2f} ms; output on {out.device}; "
          f"largest difference from the CPU result {max_diff:.2e}")
    if max_diff > 1e-4:
        raise SystemExit(f"the output on {chosen} differs from the CPU's by {max_diff}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small batch (CI)")
    args = parser.parse_args()
    adapter = HardwareAdapter(enable_hal=True)
    print(f"torch_hal {torch_hal.__version__}, HAL enabled: {adapter.is_hal_enabled()}, "
          f"{torch.hal.device_count()} hal device(s)")
    show_discovery()
    show_capabilities(adapter)
    dev = show_selection(adapter)
    run_model(dev, batch=64 if args.quick else 4096)


if __name__ == "__main__":
    main()
