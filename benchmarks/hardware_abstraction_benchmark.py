"""What the hardware abstraction layer costs: device discovery, device selection, per-op dispatch on each hal
device against CPU tensors (and torch.cuda where present), and copy bandwidth to and from each hal device.

    python benchmarks/hardware_abstraction_benchmark.py [--quick] [--output hal_results.json]

Every figure is timed here (benchmarks/timing.py: warm-up, batches, median). With --output the results go to
that JSON file and a chart of them to the PNG beside it (hal_results.png).

Each hal device is compared with what it stands in for (``reference_for``): a device whose memory the CPU addresses
(the host reference device, an OpenCL CPU device) with CPU tensors, so that its copies are compared with memcpy
between CPU tensors, never with PCIe copies to a GPU; an NVIDIA GPU with torch.cuda on the same GPU (matched by
PCI bus id) where torch.cuda has it; anything else with CPU tensors too.
"""
import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch

import torch_hal
from torch_hal.device_records import hal_devices
from torch_hal.vendor_adapters import all_vendor_adapters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from png_chart import write_bar_chart  # noqa: E402
from timing import time_pair, time_per_call  # noqa: E402

HAL_COLOR, REFERENCE_COLOR = (40, 110, 200), (150, 150, 150)


class Progress:
    """A plain-text progress bar on stderr, so that stdout keeps only the results."""

    def __init__(self, total: int):
        self.total, self.done, self.start = total, 0, time.perf_counter()

    def step(self, what: str) -> None:
        self.done += 1
        filled = 30 * self.done // self.total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} "
                         f"{time.perf_counter() - self.start:5.1f}s {what[:48]:<48}")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def row(case, device, value, unit, better, reference=None, reference_value=None):
    ratio = value / reference_value if reference_value else None
    return {"case": case, "device": device, "value": value, "unit": unit, "better": better,
            "reference": reference, "reference_value": reference_value, "ratio": ratio}


def discovery_rows(timer):
    no_sync = lambda: None  # noqa: E731
    yield row("discovery: properties of every hal device", "all", timer(hal_devices, no_sync) * 1e6, "us", "lower")
    yield row("discovery: torch_hal.adapters()", "all", timer(torch_hal.adapters, no_sync) * 1e6, "us", "lower")
    every_vendor = lambda: [a.discover_devices() for a in all_vendor_adapters()]  # noqa: E731
    yield row("discovery: every vendor adapter", "all", timer(every_vendor, no_sync) * 1e6, "us", "lower")


def selection_rows(timer):
    adapter = torch_hal.HardwareAdapter(enable_hal=True)
    no_sync = lambda: None  # noqa: E731
    yield row("selection: no requirements", "all", timer(adapter.get_optimal_device_hal, no_sync) * 1e6, "us",
              "lower")
    fits = lambda: adapter.get_optimal_device_hal(memory_requirement_gb=0.5, required_precisions=["fp16"])  # noqa
    yield row("selection: memory and precision", "all", timer(fits, no_sync) * 1e6, "us", "lower")
    # A compute requirement makes selection measure devices that report no peak: once, then cached.
    compute = lambda: adapter.get_optimal_device_hal(compute_requirement_tflops=1e-6, explain=True)  # noqa
    start = time.perf_counter()
    compute()
    first = time.perf_counter() - start
    yield row("selection: compute, first call (measures)", "all", first * 1e3, "ms", "lower")
    yield row("selection: compute, cached, explain=True", "all", timer(compute, no_sync) * 1e6, "us", "lower")


def _bus_id(text) -> str:
    return str(text or "").lower().replace("0000:", "").strip()


def reference_for(device: torch.device) -> torch.device:
    """What a hal device is compared with: CPU tensors for host-accessible devices (whose copies are memcpy), the
    same GPU through torch.cuda for an NVIDIA GPU that torch.cuda has, else CPU tensors."""
    props = torch.hal.get_device_properties(device)
    if props.host_accessible or props.vendor.lower() != "nvidia" or not torch.cuda.is_available():
        return torch.device("cpu")
    bus = _bus_id(getattr(props, "pci_bus_id", None))
    for i in range(torch.cuda.device_count()):
        cuda = torch.cuda.get_device_properties(i)
        cuda_bus = f"{getattr(cuda, 'pci_bus_id', 0):02x}:{getattr(cuda, 'pci_device_id', 0):02x}.0"
        if bus and bus.endswith(cuda_bus):
            return torch.device("cuda", i)
    # No bus id to match: the n-th NVIDIA hal device is taken to be cuda:n (both order GPUs by bus id unless
    # CUDA_DEVICE_ORDER says otherwise).
    nvidia = [i for i in range(torch.hal.device_count())
              if torch.hal.get_device_properties(i).vendor.lower() == "nvidia"]
    index = nvidia.index(device.index)
    return torch.device("cuda", index) if index < torch.cuda.device_count() else torch.device("cpu")


def sync_of(device):
    if device.type == "hal":
        return lambda: torch.hal.synchronize(device)
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None


def dispatch_rows(device, pair):
    ref = reference_for(device)
    cases = {}
    for d in (device, ref):
        a, b = torch.randn(16, device=d), torch.randn(16, device=d)
        cases[d] = [("add_ on 16 elements", lambda a=a, b=b: a.add_(b)),
                    ("empty 4 KiB", lambda d=d: torch.empty(1024, device=d)),
                    ("relu on 16 elements", lambda a=a: torch.relu(a))]
    for (name, fn_hal), (_, fn_ref) in zip(cases[device], cases[ref]):
        t_hal, t_ref = pair(fn_hal, sync_of(device), fn_ref, sync_of(ref))
        yield row(f"dispatch: {name}", str(device), t_hal * 1e6, "us", "lower", str(ref), t_ref * 1e6)


def copy_rows(device, nbytes, pair, timer):
    src = torch.randn(nbytes // 4)
    on_device, host_dst, cpu_dst = src.to(device), torch.empty_like(src), torch.empty_like(src)
    mib = nbytes >> 20
    gbs = lambda seconds: nbytes / seconds / 1e9  # noqa: E731
    # Reference (reference_for): the same copy between CPU tensors (memcpy) for a host-accessible device, or
    # torch.cuda's own host-device copies to the same GPU.
    ref = reference_for(device)
    ref_dev = src.to(ref) if ref.type == "cuda" else cpu_dst
    t_h2d, t_ref_h2d = pair(lambda: on_device.copy_(src), sync_of(device), lambda: ref_dev.copy_(src),
                            sync_of(ref))
    yield row(f"copy cpu->device {mib} MiB", str(device), gbs(t_h2d), "GB/s", "higher", f"{ref} copy_",
              gbs(t_ref_h2d))
    t_d2h, t_ref_d2h = pair(lambda: host_dst.copy_(on_device), sync_of(device), lambda: host_dst.copy_(ref_dev),
                            sync_of(ref))
    yield row(f"copy device->cpu {mib} MiB", str(device), gbs(t_d2h), "GB/s", "higher", f"{ref} copy_",
              gbs(t_ref_d2h))


def print_table(rows):
    header = f"{'case':<44}{'device':>8}{'value':>14}{'reference':>26}{'ratio':>7}"
    print(header)
    print("-" * len(header))
    for r in rows:
        value = f"{r['value']:.2f} {r['unit']}"
        ref = f"{r['reference_value']:.2f} ({r['reference']})" if r["reference"] else ""
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else ""
        print(f"{r['case']:<44}{r['device']:>8}{value:>14}{ref:>26}{ratio:>7}")


def write_chart(path, rows, reference_name):
    chart_rows = []
    for r in rows:
        values = [(r["value"], f"{r['value']:.2f} {r['unit']}")]
        values.append((r["reference_value"], f"{r['reference_value']:.2f} {r['unit']}") if r["reference"]
                      else (0.0, ""))
        chart_rows.append((f"{r['case']} ({r['device']}, {r['better']} is better)", values))
    write_bar_chart(str(path), "torch_hal hardware abstraction benchmark",
                    [("hal", HAL_COLOR), (reference_name, REFERENCE_COLOR)], chart_rows,
                    note=f"torch {torch.__version__}, {os.cpu_count()} CPU cores, {platform.machine()}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and 32 MiB copies (CI)")
    parser.add_argument("--output", help="write the results to this JSON file, and the chart beside it (.png)")
    args = parser.parse_args(argv)

    repeats, min_time, copy_bytes = (3, 0.01, 32 << 20) if args.quick else (9, 0.05, 256 << 20)
    timer = lambda fn, sync: time_per_call(fn, sync, repeats=repeats, min_time=min_time)  # noqa: E731
    pair = lambda a, sa, b, sb: time_pair(a, sa, b, sb, repeats=repeats, min_time=min_time)  # noqa: E731
    devices = [d.torch_device for d in hal_devices()]

    steps = [("discovery", lambda: discovery_rows(timer)), ("selection", lambda: selection_rows(timer))]
    for d in devices:
        steps.append((f"dispatch on {d}", lambda d=d: dispatch_rows(d, pair)))
        steps.append((f"copies to and from {d}", lambda d=d: copy_rows(d, copy_bytes, pair, timer)))
    progress, rows = Progress(len(steps)), []
    for what, produce in steps:
        rows.extend(produce())
        progress.step(what)

    refs = {str(d): str(reference_for(d)) for d in devices}
    print(f"torch_hal {torch_hal.__version__}, torch {torch.__version__}, {os.cpu_count()} CPU cores; "
          f"hal devices: {', '.join(f'{d} = {torch.hal.get_device_name(d)} (against {refs[str(d)]})' for d in devices)}")
    print_table(rows)
    if args.output:
        out = Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        result = {"torch_hal": torch_hal.__version__, "torch": torch.__version__, "python": platform.python_version(),
                  "machine": platform.machine(), "cpu_count": os.cpu_count(), "quick": args.quick,
                  "references": refs, "devices": {str(d): torch.hal.get_device_name(d) for d in devices},
                  "rows": rows}
        out.write_text(json.dumps(result, indent=2) + "\n")
        write_chart(out.with_suffix(".png"), rows, "reference (cpu or cuda, per row)")
        print(f"wrote {out} and {out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
