"""torch_hal.zoo's modules (the built-in models and the zoo's batches and losses, defined once there) for the
benchmarks and tests, loaded without registering hal: their cuda sides import them too, and a process that trains
on cuda must not register hal (torch_hal/zoo/hal_free.py says why). Imports the standard library alone."""
import importlib.util
from pathlib import Path


def zoo_module(name: str):
    """torch_hal.zoo.<name>, without running torch_hal/__init__.py where torch_hal is not imported yet."""
    package = importlib.util.find_spec("torch_hal")  # finds the package without running it
    path = Path(package.submodule_search_locations[0]) / "zoo" / "hal_free.py"
    spec = importlib.util.spec_from_file_location("torch_hal_zoo_hal_free", path)
    hal_free = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hal_free)
    return hal_free.import_module(f"torch_hal.zoo.{name}")
