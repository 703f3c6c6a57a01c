"""``python -m torch_hal info``: versions, adapters (with why any is unavailable), devices and properties.
``python -m torch_hal coverage``: which aten ops a device runs natively, in place on the CPU, or through the
CPU fallback.
``python -m torch_hal zoo``: models of several families trained a few steps on a device and on the CPU, compared
(torch_hal/zoo/)."""
import argparse
import platform
import sys

from torch_hal import coverage_format, op_coverage
from torch_hal.zoo import command as zoo_command


def info() -> int:
    import torch

    import torch_hal
    from torch_hal.device_records import hal_device
    from torch_hal.vendor_adapters import all_vendor_adapters

    print(f"torch_hal {torch_hal.__version__} (adapter ABI {torch_hal._C.abi_version()})")
    print(f"torch {torch.__version__}, Python {platform.python_version()}, {platform.platform()}")
    print("\nAdapters:")
    for a in torch_hal.adapters():
        detail = f" - {a.reason}" if a.reason else ""
        print(f"  {a.name:<14} {a.state:<12} devices={a.device_count}  ABI {a.abi_version}  {a.path}{detail}")
    print("\nVendors (HardwareAdapter):")
    for va in all_vendor_adapters():
        count = len(va.discover_devices())
        names = ", ".join(a.name for a in va.adapter_libraries()) or "none found"
        print(f"  {va.vendor.value:<14} devices={count}  adapters: {names}")
    print(f"\nDevices ({torch.hal.device_count()}):")
    for i in range(torch.hal.device_count()):
        p = torch.hal.get_device_properties(i)
        flags = [name for name in ("fp16", "bf16", "fp8", "fp64") if getattr(p, f"supports_{name}")]
        # An adapter serving several vendors (OpenCL) reports itself as the vendor; HardwareAdapter tells them
        # apart (torch_hal.device_records.vendor_of).
        vendor = hal_device(i).vendor.value
        vendor_text = p.vendor if vendor == p.vendor else f"{p.vendor} (HardwareAdapter: {vendor})"
        print(f"  hal:{i}  {p.name}")
        print(f"         adapter={p.adapter} vendor={vendor_text} arch={p.arch_name} "
              f"compute_units={p.multi_processor_count} memory={p.total_memory / 2**30:.1f} GiB "
              f"host_accessible={p.host_accessible} precisions={','.join(flags)}")
        if p.pci_bus_id:
            print(f"         pci={p.pci_bus_id} uuid={p.uuid} capability={p.major}.{p.minor}")
    return 0


def coverage(args) -> int:
    try:
        index = op_coverage.existing_device(args.device)
    except (ValueError, RuntimeError) as error:
        # A device that does not parse ("gpu:0"), is not hal ("cuda:0") or does not exist ("hal:7"): say
        # which ones do.
        message = str(error)
        if "devices:" not in message:
            message += f"; {op_coverage.describe_devices()}"
        print(f"python -m torch_hal coverage: bad --device {args.device!r}: {message}", file=sys.stderr)
        return 2
    report = op_coverage.coverage(index).select(args.op or (), args.category or ())
    sys.stdout.write(coverage_format.RENDERERS[args.format](report))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torch_hal", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("info", help="print versions, adapters and devices")
    cov = sub.add_parser("coverage", help="which aten ops a device runs natively, in place on the CPU, or "
                                          "through the CPU fallback")
    cov.add_argument("--device", default="hal", help="hal device (default: the current one), e.g. hal:1")
    cov.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    cov.add_argument("--op", action="append", metavar="NAME",
                     help="only this op: 'add' (every overload), 'add.out', or a glob such as '*softmax*'; "
                          "repeatable")
    cov.add_argument("--category", action="append", choices=tuple(op_coverage.CATEGORIES),
                     help="only ops of this category; repeatable")
    zoo_command.add_arguments(sub.add_parser("zoo", help="train models of several families a few steps on a device "
                                                         "and on the CPU (and cuda), and compare"))
    args = parser.parse_args(argv)
    if args.command in (None, "info"):
        return info()
    if args.command == "coverage":
        return coverage(args)
    if args.command == "zoo":
        return zoo_command.run(args)
    return 1


if __name__ == "__main__":
    sys.exit(main())
