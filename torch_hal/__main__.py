"""``python -m torch_hal info``: versions, adapters (with why any is unavailable), devices and properties."""
import argparse
import platform
import sys


def info() -> int:
    import torch

    import torch_hal

    print(f"torch_hal {torch_hal.__version__} (adapter ABI {torch_hal._C.abi_version()})")
    print(f"torch {torch.__version__}, Python {platform.python_version()}, {platform.platform()}")
    print("\nAdapters:")
    for a in torch_hal.adapters():
        detail = f" - {a.reason}" if a.reason else ""
        print(f"  {a.name:<14} {a.state:<12} devices={a.device_count}  ABI {a.abi_version}  {a.path}{detail}")
    print(f"\nDevices ({torch.hal.device_count()}):")
    for i in range(torch.hal.device_count()):
        p = torch.hal.get_device_properties(i)
        flags = [name for name in ("fp16", "bf16", "fp8", "fp64") if getattr(p, f"supports_{name}")]
        print(f"  hal:{i}  {p.name}")
        print(f"         adapter={p.adapter} vendor={p.vendor} arch={p.arch_name} "
              f"compute_units={p.multi_processor_count} memory={p.total_memory / 2**30:.1f} GiB "
              f"host_accessible={p.host_accessible} precisions={','.join(flags)}")
        if p.pci_bus_id:
            print(f"         pci={p.pci_bus_id} uuid={p.uuid} capability={p.major}.{p.minor}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torch_hal", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("info", help="print versions, adapters and devices")
    args = parser.parse_args(argv)
    if args.command in (None, "info"):
        return info()
    return 1


if __name__ == "__main__":
    sys.exit(main())
