"""Training libraries on hal: ``import torch_hal.integrations`` is the one opt-in.

It makes the libraries users bring train on the hal device, through the device-generic paths they already have
where they have them, and small patches where they hard-code a device list:

- Lightning (``lightning`` and/or ``pytorch_lightning``): an Accelerator registered as ``"hal"``, so
  ``Trainer(accelerator="hal", devices=1, precision="bf16-mixed")`` trains on hal:0 with autocast on hal, and the
  same accelerator for Fabric: ``Fabric(accelerator="hal", devices=2, strategy="ddp")``
  (:mod:`torch_hal.integrations.lightning`).
- accelerate: ``Accelerator()`` on hal (``ACCELERATE_TORCH_DEVICE=hal``), fp16 with ``GradScaler("hal")``, and
  under ``accelerate launch --multi_gpu --num_processes N`` one hal device per process over the hal c10d backend
  (:mod:`torch_hal.integrations.accelerate`).
- transformers' ``Trainer``: through accelerate, plus its bf16 check (:mod:`torch_hal.integrations.transformers`).

An explicit import, not something ``import torch_hal`` does by itself: it imports the libraries that are
installed (seconds) and changes their defaults (accelerate's device, Lightning's ``accelerator="auto"``), which
nobody should get without asking. A library that is not installed is skipped; one whose version was not tested
gets a warning naming the tested versions; one whose internals moved gets a warning saying what is not patched.
"""
import importlib.util
import warnings

import torch_hal  # noqa: F401  (registers the device first)

# The library versions the patches were written against and tests/python/test_integrations.py ran with
# (scripts/setup.sh --tests installs exactly these).
TESTED_VERSIONS = {
    "lightning": ("2.6.6",),
    "pytorch_lightning": ("2.6.6",),
    "accelerate": ("1.15.0",),
    "transformers": ("5.24.0",),
}

# name -> what install() did: "installed", or why not ("not installed", an error)
status = {}


def warn_untested(library: str, version: str) -> None:
    tested = TESTED_VERSIONS[library]
    if version not in tested:
        warnings.warn(f"torch_hal.integrations: {library} {version} was not tested with torch_hal (tested: "
                      f"{', '.join(tested)}); if training on hal fails or runs on the CPU, pin {library}=="
                      f"{tested[-1]}", stacklevel=3)


def _install(name: str, module: str) -> None:
    if importlib.util.find_spec(name) is None:
        status[name] = "not installed"
        return
    try:
        importlib.import_module(f"torch_hal.integrations.{module}").install(name)
        status[name] = "installed"
    except Exception as error:  # one library's failure must not hide the others'; say it loudly
        status[name] = f"{type(error).__name__}: {error}"
        warnings.warn(f"torch_hal.integrations: could not make {name} use hal ({status[name]}); it will not "
                      f"train on hal", stacklevel=3)


# accelerate first: transformers' Trainer runs on it.
_install("accelerate", "accelerate")
_install("transformers", "transformers")
_install("lightning", "lightning")
_install("pytorch_lightning", "lightning")
