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
import importlib.util
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


class _HalDevices:
    """What both Lightning's and Fabric's accelerators for hal say about the devices."""

    def setup_device(self, device: torch.device) -> None:
        # The Trainer's automatic single-device strategy asks for "cpu" here; HalAccelerator.setup() then moves it
        # to hal (Fabric's gets its hal device from _patch_fabric_connector).
        if device.type == "hal":
            torch.hal.set_device(device)

    def teardown(self) -> None:
        pass

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


def _make_accelerator(package: str):
    accelerators = importlib.import_module(f"{package}.accelerators")
    strategies = importlib.import_module(f"{package}.strategies")
    precision = importlib.import_module(f"{package}.plugins.precision")
    exceptions = importlib.import_module(f"{package}.utilities.exceptions")

    class HalAccelerator(_HalDevices, accelerators.Accelerator):
        """Accelerator for torch_hal's ``hal`` devices."""

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

        @staticmethod
        def parse_devices(devices):
            return _parse_devices(devices, exceptions.MisconfigurationException)

    HalAccelerator.__module__ = __name__
    HalAccelerator.__qualname__ = HalAccelerator.__name__ = "HalAccelerator"
    return HalAccelerator


def _make_fabric_accelerator(package: str):
    accelerators = importlib.import_module(f"{package}.accelerators")

    class HalFabricAccelerator(_HalDevices, accelerators.Accelerator):
        """Fabric's accelerator for torch_hal's ``hal`` devices."""

        @staticmethod
        def parse_devices(devices):
            return _parse_devices(devices, ValueError)  # what Fabric's own accelerators raise

    HalFabricAccelerator.__module__ = __name__
    HalFabricAccelerator.__qualname__ = HalFabricAccelerator.__name__ = "HalFabricAccelerator"
    return HalFabricAccelerator


_FABRIC_CONNECTOR_METHODS = ("_choose_auto_accelerator", "_choose_strategy", "_init_strategy",
                             "_check_and_init_precision")


def _patch_fabric_connector(package: str, accelerator_cls) -> None:
    """Fabric's _Connector (lightning 2.6.6) turns accelerator="hal" into work on the CPU, as the Trainer's does: its
    automatic one-device strategy is ``SingleDeviceStrategy("cpu")`` for any accelerator but CUDA and MPS, and its
    mixed precision ``MixedPrecision(precision, "cuda")`` for any but CPU and MPS. Fabric has no accelerator hook
    that sees the strategy, so the connector's choices are corrected where it makes them, only when the
    accelerator is hal, and only the ones it made itself (a strategy or precision plugin the user passes is
    kept): the strategy's device becomes the chosen hal device, the plugin ``MixedPrecision(precision, "hal")``
    (autocast on hal; for 16-mixed ``GradScaler("hal")``), and a DDP strategy passes ``device_ids=None`` (with
    device ids it builds DDP under ``torch.cuda.stream(torch.cuda.Stream())``; DDP uses the module's device).
    accelerator="auto" picks hal where it would pick the CPU, as for the Trainer."""
    connector_module = importlib.import_module(f"{package}.connector")
    strategies = importlib.import_module(f"{package}.strategies")
    precision = importlib.import_module(f"{package}.plugins.precision")
    connector = getattr(connector_module, "_Connector", None)
    missing = [m for m in _FABRIC_CONNECTOR_METHODS if connector is None or m not in connector.__dict__]
    if missing or not isinstance(connector.__dict__["_choose_auto_accelerator"], staticmethod):
        warnings.warn(f"torch_hal.integrations.lightning: {package}'s _Connector does not have "
                      f"{', '.join(missing) or '_choose_auto_accelerator as a staticmethod'} as lightning 2.6.6 "
                      f"has them; Fabric(accelerator='hal') may train on the CPU", stacklevel=4)
        return
    if getattr(connector._choose_strategy, "_torch_hal", False):
        return
    choose_auto = connector.__dict__["_choose_auto_accelerator"].__func__
    choose_strategy, init_strategy = connector._choose_strategy, connector._init_strategy
    init_precision = connector._check_and_init_precision

    def on_hal(self) -> bool:
        return isinstance(getattr(self, "accelerator", None), accelerator_cls)

    def _choose_auto_accelerator() -> str:
        chosen = choose_auto()
        return "hal" if chosen == "cpu" and torch.hal.device_count() > 0 else chosen

    def _choose_strategy(self):
        chosen = choose_strategy(self)
        if on_hal(self) and type(chosen) is strategies.SingleDeviceStrategy and chosen.root_device.type != "hal":
            devices = [d for d in self._parallel_devices if isinstance(d, torch.device) and d.type == "hal"]
            return strategies.SingleDeviceStrategy(device=devices[0] if devices else torch.device("hal", 0))
        return chosen

    def _init_strategy(self) -> None:
        init_strategy(self)
        if on_hal(self) and isinstance(self.strategy, strategies.DDPStrategy):
            self.strategy._determine_ddp_device_ids = lambda: None

    def _check_and_init_precision(self):
        chosen = init_precision(self)
        if on_hal(self) and type(chosen) is precision.MixedPrecision and chosen is not self._precision_instance \
                and chosen.device != "hal":
            return precision.MixedPrecision(chosen.precision, "hal")
        return chosen

    for function in (_choose_auto_accelerator, _choose_strategy, _init_strategy, _check_and_init_precision):
        function._torch_hal = True
    connector._choose_auto_accelerator = staticmethod(_choose_auto_accelerator)
    connector._choose_strategy = _choose_strategy
    connector._init_strategy = _init_strategy
    connector._check_and_init_precision = _check_and_init_precision


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


# package -> its HalAccelerator class (lightning.pytorch and pytorch_lightning have separate class hierarchies, and
# so do their Fabrics, lightning.fabric and lightning_fabric: HalFabricAccelerator)
accelerators = {}


def install(name: str = "lightning") -> None:
    module = importlib.import_module(name)
    warn_untested(name, module.__version__)
    package = "lightning.pytorch" if name == "lightning" else name
    cls = _make_accelerator(package)
    cls.register_accelerators(importlib.import_module(f"{package}.accelerators").AcceleratorRegistry)
    _prefer_hal_for_auto(package)
    accelerators[package] = cls
    # Fabric: lightning.fabric in the lightning package; pytorch_lightning's is the lightning_fabric package
    fabric = "lightning.fabric" if name == "lightning" else "lightning_fabric"
    if importlib.util.find_spec(fabric) is None:
        return
    fabric_cls = _make_fabric_accelerator(fabric)
    fabric_cls.register_accelerators(importlib.import_module(f"{fabric}.accelerators").ACCELERATOR_REGISTRY)
    _patch_fabric_connector(fabric, fabric_cls)
    accelerators[fabric] = fabric_cls
