"""Imports modules of torch_hal.zoo without registering hal, for a process that trains on cuda.

Once hal is registered it is PyTorch's accelerator, and autograd then refuses backward passes over cuda tensors in
that process (pytorch/pytorch#161129; benchmarks/lockstep.py): a cuda side must never run torch_hal/__init__.py.
The zoo's model definitions, families and training loop import torch (and the packages whose models they build)
alone, so such a side loads them here: ``torch_hal`` stands in sys.modules as a bare package object (its
__init__.py not run) while the import lasts, and is taken out again, so that a later ``import torch_hal`` in the
same process is the real one.

This module uses the standard library only. Outside the package (benchmarks/), load it by path: its location is
``importlib.util.find_spec("torch_hal").submodule_search_locations[0] + "/zoo/hal_free.py"`` (find_spec does not
run the package) -- see benchmarks/zoo_loader.py.
"""
import importlib
import importlib.util
import sys


def import_module(name: str):
    """``importlib.import_module(name)`` for a module under torch_hal.zoo (or torch_hal.timing: the standard library
    alone); where torch_hal is not imported yet, its __init__.py does not run."""
    if not (name.startswith("torch_hal.zoo") or name == "torch_hal.timing"):
        raise ValueError(f"hal_free imports torch_hal.zoo's modules and torch_hal.timing only, not {name!r}")
    if "torch_hal" in sys.modules:
        return importlib.import_module(name)
    spec = importlib.util.find_spec("torch_hal")
    sys.modules["torch_hal"] = importlib.util.module_from_spec(spec)  # a package object, __init__.py not run
    try:
        return importlib.import_module(name)
    finally:
        del sys.modules["torch_hal"]
