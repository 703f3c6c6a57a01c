"""Lightning on hal: an Accelerator registered as ``"hal"`` in ``lightning.pytorch`` and/or ``pytorch_lightning``.

``Trainer(accelerator="hal", devices=1, precision="bf16-mixed")`` then trains on hal:0. Lightning's
AcceleratorConnector handles an accelerator it does not know in two ways that would put the work on the CPU:

- one device: its automatic strategy is ``SingleDeviceStrategy(device="cpu")`` (only CUDA and MPS get their
  device), so the model would train on the CPU;
- ``precision="16-mixed"``/``"bf16-mixed"``: ``MixedPrecision(precision, device="cuda")`` for every device but
  CPU and MPS, i.e. ``autocast("cuda")`` (on a CPU-only PyTorch: disabled, fp32) and ``GradScaler("cuda")``.

The accelerator's ``setup(trainer)`` hook, which the strategy calls before it moves the model and before the
precision plugin touches it, corrects both: the strategy's device becomes hal (the one private attribute written,
``SingleDeviceStrategy._root_device``; there is no setter), and a ``MixedPrecision`` plugin on another device is
replaced, through the public ``strategy.precision_plugin`` setter, by ``MixedPrecision(precision, "hal")``: autocast
on hal and, for 16-mixed, ``torch.amp.GradScaler("hal")``. A precision plugin or strategy the user passes is left as
it is. With the opt-in, ``accelerator="auto"`` picks hal where Lightning would otherwise pick the CPU.
DDP (``strategy="ddp"``, ``devices=N``) needs nothing more: its devices are hal:0..N-1 and its process group
backend is PyTorch's default for the device type, the c10d backend ``hal`` that torch_hal registers.
"""
import importlib
import warnings

import torch

from torch_hal.integrations import warn_untested


def _parse_devices(devices, exception):
    """Lightning's ``devices`` argument (an int, "N", "0,2", -1 or a list) as hal device indices."""
    count = torch.hal.device_count()
    if isinstance(devices, str):
        devices = devices.strip()
        devices = [int(d) for d in devices.split(",") if d.strip()] if "," in devices else int(devices)
    if isinstance(devices, int):
        devices = list(range(count)) if devices == -1 else list(range(devices))
    devices = list(devices)
    missing = [d for d in devices if not 0 <= int(d) < count]
    if not devices or missing:
        raise exception(f"hal devices {devices} requested, but this process has {count} hal device(s) "
                        f"(TORCH_HAL_HOST_DEVICES=N gives N host devices)")
    return [int(d) for d in devices]


def _make_accelerator(package: str):
    accelerators = importlib.import_module(f"{package}.accelerators")
    strategies = importlib.import_module(f"{package}.strategies")
    precision = importlib.import_module(f"{package}.plugins.precision")
    exceptions = importlib.import_module(f"{package}.utilities.exceptions")

    class HalAccelerator(accelerators.Accelerator):
        """Accelerator for torch_hal's ``hal`` devices."""

        def setup_device(self, device: torch.device) -> None:
            # Lightning's automatic single-device strategy asks for "cpu" here; setup() below moves it to hal.
            if device.type == "hal":
                torch.hal.set_device(device)

        def setup(self, trainer) -> None:
            strategy = trainer.strategy
            if isinstance(strategy, strategies.SingleDeviceStrategy) and strategy.root_device.type != "hal":
                if type(strategy) is not strategies.SingleDeviceStrategy or not hasattr(strategy, "_root_device"):
                    raise exceptions.MisconfigurationException(
                        f"accelerator='hal' with {type(strategy).__name__} on {strategy.root_device}: pass "
                        f"strategy=SingleDeviceStrategy('hal:0')")
                connector = getattr(trainer, "_accelerator_connector", None)
                chosen = [torch.device(d) if not isinstance(d, int) else torch.device("hal", d)
                          for d in (getattr(connector, "_parallel_devices", None) or [])]
                device = chosen[0] if chosen and chosen[0].type == "hal" else torch.device("hal", 0)
                strategy._root_device = device
            if strategy.root_device.type == "hal":
                torch.hal.set_device(strategy.root_device)
            if isinstance(strategy, strategies.DDPStrategy) and strategy.root_device.type == "hal":
                # DDPStrategy wraps the model under torch.cuda.stream(torch.cuda.Stream()) whenever it has
                # device ids (any device but the CPU). DDP takes device_ids=None for a module on one device and
                # uses that device, so this strategy answers None (also what its barrier passes on).
                strategy.determine_ddp_device_ids = lambda: None
            plugin = strategy.precision_plugin
            if type(plugin) is precision.MixedPrecision and plugin.device != "hal":
                strategy.precision_plugin = precision.MixedPrecision(plugin.precision, "hal")

        def get_device_stats(self, device):
            return torch.hal.memory_stats(device)

        def teardown(self) -> None:
            pass

        @staticmethod
        def parse_devices(devices):
            return _parse_devices(devices, exceptions.MisconfigurationException)

        @staticmethod
        def get_parallel_devices(devices):
            return [torch.device("hal", i) for i in devices]

        @staticmethod
        def auto_device_count() -> int:
            return torch.hal.device_count()

        @staticmethod
        def is_available() -> bool:
            return torch.hal.device_count() > 0

        @staticmethod
        def name() -> str:
            return "hal"

        @classmethod
        def register_accelerators(cls, registry) -> None:
            registry.register("hal", cls, description=cls.__name__, override=True)

    HalAccelerator.__module__ = __name__
    HalAccelerator.__qualname__ = HalAccelerator.__name__ = "HalAccelerator"
    return HalAccelerator


def _prefer_hal_for_auto(package: str) -> None:
    # accelerator="auto" (the default) asks _select_auto_accelerator, which knows TPU, MPS, CUDA and then the CPU.
    connector = importlib.import_module(f"{package}.trainer.connectors.accelerator_connector")
    original = getattr(connector, "_select_auto_accelerator", None)
    if original is None:
        warnings.warn(f"torch_hal.integrations.lightning: {package} has no _select_auto_accelerator; "
                      f"accelerator='auto' will not pick hal, pass accelerator='hal'", stacklevel=4)
        return
    if getattr(original, "_torch_hal", False):
        return

    def _select_auto_accelerator() -> str:
        chosen = original()
        return "hal" if chosen == "cpu" and torch.hal.device_count() > 0 else chosen

    _select_auto_accelerator._torch_hal = True
    connector._select_auto_accelerator = _select_auto_accelerator


# package -> its HalAccelerator class (lightning.pytorch and pytorch_lightning have separate class hierarchies)
accelerators = {}


def install(name: str = "lightning") -> None:
    module = importlib.import_module(name)
    warn_untested(name, module.__version__)
    package = "lightning.pytorch" if name == "lightning" else name
    cls = _make_accelerator(package)
    cls.register_accelerators(importlib.import_module(f"{package}.accelerators").AcceleratorRegistry)
    _prefer_hal_for_auto(package)
    accelerators[package] = cls
