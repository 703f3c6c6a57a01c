"""torch.compile on hal devices.

install() (run by `import torch_hal`) registers, as soon as PyTorch loads its compile machinery and never
earlier (importing it costs seconds):
  - the hal device interface of torch._dynamo (device_interface.py), for guards, streams, events and device
    properties in compiled code;
  - Inductor's code generation for hal (inductor_backends.py), chosen by the adapter of each graph's device;
  - hal's convolution output layouts for fake tensors (conv_layout.py), which compiled graphs check against;
  - hal inputs for the models torch._inductor.aoti_load_package loads (aoti.py: torch.export and AOTInductor).

The eager and aot_eager backends need nothing more than the device itself.
"""
from torch_hal.compile.lazy_registration import after_import


def _register_device_interface(module) -> None:
    from torch_hal.compile.device_interface import HalInterface

    module.register_interface_for_device("hal", HalInterface)


def _register_inductor_backends(module) -> None:
    from torch_hal.compile import inductor_backends

    inductor_backends.register()


def _register_conv_layout(module) -> None:
    from torch_hal.compile import conv_layout

    conv_layout.install(module)


def install() -> None:
    from torch_hal.compile import aoti

    aoti.install()
    after_import("torch._dynamo.device_interface", _register_device_interface)
    after_import("torch._subclasses.fake_impls", _register_conv_layout)
    after_import("torch._inductor.codegen.common", _register_inductor_backends)
