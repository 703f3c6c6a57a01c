"""Red team, part 2: broken plugins.

A truncated library (dlopen of one cut inside a segment died of SIGBUS), a file that is no library, a
library without the entry symbol, an adapter of another ABI, an entry point that answers NULL, a table
with required functions missing, a runtime that is absent, and more devices than PyTorch can number. Each
ends in an error that names the file and the fix, at run time (torch_hal.load_adapter) and at import
(TORCH_HAL_ADAPTERS, a TORCH_HAL_ADAPTER_PATH folder), is listed in torch_hal.adapters() with its reason,
and leaves the devices that work working.
"""
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT, fixture_library
from forked_cases import forked  # noqa: F401  (the fixture)

HOST_ADAPTER = REPO_ROOT / "torch_hal" / "lib" / "libhal_adapter_host.so"
REBUILD = "Rebuild or copy the adapter library again"


def damaged_library(folder: Path, kind: str) -> Path:
    """A file named like an adapter, damaged as `kind` says."""
    path = folder / f"lib{kind}_hal_adapter.so"
    data = HOST_ADAPTER.read_bytes()
    if kind.startswith("cut_"):
        keep = {"cut_header": 40, "cut_4k": 4096, "cut_half": len(data) // 2, "cut_tail": len(data) - 8}[kind]
        path.write_bytes(data[:keep])
    elif kind == "text":
        path.write_text("#!/bin/sh\necho I am not a library\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "folder":
        path.mkdir()
    return path


# Loads `library` at run time and reports the error, the adapters() entry, and that hal:0 still works.
LOAD_AT_RUN_TIME = """
    import json, torch, torch_hal
    x = torch.arange(4., device="hal:0")
    count = torch.hal.device_count()
    try:
        torch_hal.load_adapter({library!r})
        print("NO ERROR")
    except ValueError as e:
        print("ERROR " + json.dumps(str(e)))
    [entry] = [a for a in torch_hal.adapters() if a.path == {library!r}]
    print("LISTED " + json.dumps([entry.state, entry.reason]))
    assert torch.hal.device_count() == count
    print("STILL WORKS", (x * 2).cpu().tolist())
"""

DAMAGE = {
    "cut_header": "is truncated: its ELF header",
    "cut_4k": "is truncated",
    "cut_half": "is truncated",
    "cut_tail": "is truncated",
    "text": "is not a shared library: it does not start with the ELF magic number",
    "empty": "is empty",
    "folder": "is a directory",
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damaged_file_loaded_at_run_time(forked, tmp_path, kind):
    library = str(damaged_library(tmp_path, kind))
    result = forked.run(LOAD_AT_RUN_TIME.format(library=library), name=kind, finalize=False)
    assert result.returncode == 0, str(result)  # -7 (SIGBUS) before the ELF check
    [error] = result.lines("ERROR ")
    assert error.startswith(f"{library} cannot be loaded: the file {DAMAGE[kind]}") and REBUILD in error, error
    [(state, reason)] = result.lines("LISTED ")
    assert state == "broken" and reason == error
    assert "STILL WORKS [0.0, 2.0, 4.0, 6.0]" in result.stdout


FIXTURES = {
    "not_an_adapter": "is not a torch_hal adapter: it does not export hal_adapter_query",
    "wrong_abi": "adapter ABI version 2.0, but this torch_hal speaks 1.4: rebuild the adapter against",
    "returns_null": "hal_adapter_query(1.4) returned no table: the adapter cannot serve this torch_hal's ABI; "
                    "rebuild it against",
    "incomplete_table": "adapter 'fixture_incomplete' leaves the required function initialize NULL",
}


@pytest.mark.parametrize("fixture", list(FIXTURES))
def test_bad_plugin_loaded_at_run_time(forked, fixture):
    library = str(fixture_library(fixture))
    result = forked.run(LOAD_AT_RUN_TIME.format(library=library), name=fixture, finalize=False)
    assert result.returncode == 0, str(result)
    [error] = result.lines("ERROR ")
    assert library in error and FIXTURES[fixture] in error, error
    [(state, reason)] = result.lines("LISTED ")
    assert state == "broken" and reason == error
    assert "STILL WORKS [0.0, 2.0, 4.0, 6.0]" in result.stdout


def test_unavailable_plugin_says_why(forked):
    library = str(fixture_library("unavailable"))
    result = forked.run(LOAD_AT_RUN_TIME.format(library=library), finalize=False)
    assert result.returncode == 0, str(result)
    [error] = result.lines("ERROR ")
    assert "fixture runtime libfoo.so.1 not found: install foo" in error
    [(state, reason)] = result.lines("LISTED ")
    assert state == "unavailable" and "install foo" in reason


# Imports torch_hal with broken plugins named or found at start-up: the import works and says what broke.
IMPORT_WITH_BROKEN_PLUGINS = """
    import json, warnings
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        import torch, torch_hal
    print("WARNED " + json.dumps([str(w.message) for w in caught]))
    print("ADAPTERS " + json.dumps({a.path: [a.state, a.reason] for a in torch_hal.adapters()}))
    print("STILL WORKS", (torch.arange(4., device="hal:0") * 2).cpu().tolist())
"""


@pytest.mark.parametrize("how", ["TORCH_HAL_ADAPTERS", "TORCH_HAL_ADAPTER_PATH"])
def test_broken_plugins_at_import(forked, tmp_path, how):
    # A folder is scanned for regular files only, so a directory named like an adapter is no candidate there.
    kinds = [kind for kind in DAMAGE if how == "TORCH_HAL_ADAPTERS" or kind != "folder"]
    libraries = [damaged_library(tmp_path, kind) for kind in kinds]
    if how == "TORCH_HAL_ADAPTERS":
        for fixture in FIXTURES:
            libraries.append(tmp_path / fixture_library(fixture).name)
            shutil.copy(fixture_library(fixture), libraries[-1])
        env = {how: ":".join(map(str, libraries))}
    else:  # a folder is scanned for lib*hal_adapter*.so: damaged files there must not take the import down
        env = {how: str(tmp_path)}
    result = forked.run(IMPORT_WITH_BROKEN_PLUGINS, name=how, env=env, finalize=False)
    assert result.returncode == 0, str(result)  # -7 (SIGBUS) at import before the ELF check
    [warned] = result.lines("WARNED ")
    [listed] = result.lines("ADAPTERS ")
    for library in libraries:
        state, reason = listed[str(library)]
        assert state == "broken" and str(library) in reason, (library, reason)
        assert any(str(library) in w and "could not be loaded" in w for w in warned), (library, warned)
    assert "STILL WORKS [0.0, 2.0, 4.0, 6.0]" in result.stdout


def test_plugin_with_more_devices_than_fit_adds_none(forked):
    # 100 host devices and a plugin with 64: 164 do not fit in PyTorch's 127. The plugin used to be half
    # registered (27 of its devices appended, then an error).
    result = forked.run("""
        import torch, torch_hal
        from torch_hal import PrivateUse1Config, register_custom_device
        try:
            register_custom_device(config=PrivateUse1Config(backend_library="libexample_asic.so"))
            print("NO ERROR")
        except ValueError as e:
            print("ERROR", type(e).__name__, e)
        print("COUNT", torch.hal.device_count())
        [asic] = [a for a in torch_hal.adapters() if a.name == "example_asic"]
        print("LISTED", asic.state, asic.reason)
        print("LAST", (torch.ones(2, device="hal:99") + 1).cpu().tolist())
    """, env={"TORCH_HAL_HOST_DEVICES": "100", "TORCH_HAL_HOST_MEMORY": "16M", "EXAMPLE_ASIC_DEVICES": "64"},
        finalize=False)
    assert result.returncode == 0, str(result)
    assert "ERROR ValueError" in result.stdout and "its 64 devices do not fit: 100 of the 127" in result.stdout, \
        str(result)
    assert "COUNT 100" in result.stdout and "LISTED unavailable" in result.stdout, str(result)
    assert "LAST [2.0, 2.0]" in result.stdout


@pytest.mark.parametrize("name,value", [
    ("EXAMPLE_ASIC_DEVICES", " 2"), ("EXAMPLE_ASIC_DEVICES", "+2"), ("EXAMPLE_ASIC_DEVICES", "-1"),
    ("EXAMPLE_ASIC_DEVICES", "3abc"), ("EXAMPLE_ASIC_DEVICES", "99999999999999999999"),
    ("EXAMPLE_ASIC_MEMORY", " 8M"), ("EXAMPLE_ASIC_MEMORY", "+8M"), ("EXAMPLE_ASIC_MEMORY", "-1"),
    ("EXAMPLE_ASIC_MEMORY", "\u00fc"), ("EXAMPLE_ASIC_MEMORY", "99999999999999999999G"),
])
def test_plugin_settings_are_read_strictly(forked, name, value):
    # The example plugin is the template of third-party adapters: its settings are refused by name too.
    result = forked.run("""
        import torch, torch_hal
        from torch_hal import PrivateUse1Config, register_custom_device
        try:
            register_custom_device(config=PrivateUse1Config(backend_library="libexample_asic.so"))
            print("NO ERROR")
        except ValueError as e:
            print("ERROR", e)
        print("STILL WORKS", (torch.arange(4., device="hal:0") * 2).cpu().tolist())
    """, env={name: value}, finalize=False)
    assert result.returncode == 0, str(result)
    assert f"ERROR " in result.stdout and f"{name}='{value}' is not a" in result.stdout, str(result)
    assert "STILL WORKS [0.0, 2.0, 4.0, 6.0]" in result.stdout
