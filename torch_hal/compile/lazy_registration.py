"""Runs a registration right after a PyTorch module is imported, without importing it ourselves.

torch.compile's machinery (torch._dynamo, torch._inductor) costs seconds to import, and most programs that
use hal never compile. So torch_hal registers its compile support at the moment PyTorch loads the module
that holds the registry: an import hook runs the registration once the module has finished executing, or
at once when it was already imported.
"""
import importlib.abc
import importlib.util
import sys
import threading
from typing import Callable, Dict, List

_pending: Dict[str, List[Callable[[object], None]]] = {}
_lock = threading.Lock()


class _AfterImportFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a watched name it asks the other finders and wraps the loader they give."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _CallbackLoader(spec.loader)
                return spec
        return None


class _CallbackLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _run(module.__name__, module)

    def __getattr__(self, name):  # get_source, get_filename, is_package...: the wrapped loader's
        return getattr(self._loader, name)


def _run(name: str, module) -> None:
    with _lock:
        callbacks = _pending.pop(name, [])
    for callback in callbacks:
        callback(module)


_finder = _AfterImportFinder()


def after_import(module_name: str, callback: Callable[[object], None]) -> None:
    """Calls callback(module) once module_name is imported (now, if it already is)."""
    module = sys.modules.get(module_name)
    if module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False):
        callback(module)
        return
    with _lock:
        _pending.setdefault(module_name, []).append(callback)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
