"""Red team, part 1: garbage in every environment variable torch_hal reads.

Each value must be either accepted with its documented meaning (README, "Environment variables") or
rejected with an error that names the variable and what it accepts: at import for the core's and the
glue's settings (ValueError), at the first use of a device for an adapter's own settings (the adapter
cannot start, and the no-device error carries its reason). Never a crash, a hang or a silent reading of a
typo ("3abc" as 3, " 8G" or "0x10G" as sizes, TORCH_HAL_VERBOSE=0 as on).
"""
import pytest

from conftest import fixture_library
from forked_cases import forked  # noqa: F401  (the fixture)

# Imports torch_hal under the case's environment and reports, as one JSON line, how far it got.
PROBE = """
    import json, warnings
    warnings.simplefilter("always")
    def report(**fields):
        print("OUTCOME " + json.dumps(fields))
    with warnings.catch_warnings(record=True) as caught:
        try:
            import torch, torch_hal
        except Exception as e:
            report(stage="import", error=type(e).__name__, message=str(e))
            raise SystemExit(0)
    warned = [str(w.message) for w in caught]
    try:
        t = torch.arange(4., device="hal")
        report(stage="ok", values=(t * 2).cpu().tolist(), count=torch.hal.device_count(), warned=warned,
               host_accessible=torch.hal.get_device_properties(0).host_accessible,
               total_memory=torch.hal.get_device_properties(0).total_memory)
    except Exception as e:
        report(stage="use", error=type(e).__name__, message=str(e), warned=warned)
"""

SWITCH_ACCEPTS = "use 1 (or true, yes, on) or 0 (or false, no, off)"
JUNK = ["3abc", "-1", "99999999999999999999", "\u00fc\u2603", "0,,x"]


def probe(forked, env):
    result = forked.run(PROBE, name=repr(env), env=env, finalize=False, timeout=60)
    assert not result.timed_out and result.returncode == 0, str(result)
    [outcome] = result.lines("OUTCOME ")
    return outcome, result


def accepted(outcome, result):
    assert outcome["stage"] == "ok", str(result)
    assert outcome["values"] == [0.0, 2.0, 4.0, 6.0]


def rejected_at_import(outcome, result, *needles):
    assert outcome["stage"] == "import" and outcome["error"] == "ValueError", str(result)
    for needle in needles:
        assert needle in outcome["message"], (needle, str(result))


def rejected_at_first_use(outcome, result, *needles):
    """The adapter could not start: import warned, and the first use names the variable and the fix."""
    assert outcome["stage"] == "use" and outcome["error"] == "IndexError", str(result)
    assert "no hal device is available" in outcome["message"], str(result)
    for needle in needles:
        assert needle in outcome["message"], (needle, str(result))


# -- on/off switches: the core's parser (environment.h) ----------------------------------------------

@pytest.mark.parametrize("name", ["TORCH_HAL_STRICT", "TORCH_HAL_TRACE_OPS", "TORCH_HAL_FORCE_STAGING",
                                  "TORCH_HAL_VERBOSE"])
@pytest.mark.parametrize("value", ["", "0", "yes"] + JUNK[:4])
def test_switches(forked, name, value):
    outcome, result = probe(forked, {name: value})
    if value in ("", "0", "yes"):
        accepted(outcome, result)
        # TORCH_HAL_VERBOSE=0 used to switch verbose output on (any non-empty text did).
        verbose_lines = [l for l in result.stdout.splitlines() if l.startswith("torch_hal: adapter")]
        assert bool(verbose_lines) == (name == "TORCH_HAL_VERBOSE" and value == "yes"), str(result)
    else:
        rejected_at_import(outcome, result, f"{name}='{value}'", SWITCH_ACCEPTS)


# -- whole numbers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["", "3", "0", " 3"] + JUNK)
def test_copy_threads(forked, value):
    outcome, result = probe(forked, {"TORCH_HAL_COPY_THREADS": value})
    if value in ("", "3"):
        accepted(outcome, result)
    else:
        rejected_at_import(outcome, result, f"TORCH_HAL_COPY_THREADS='{value}'", "whole number between 1 and 64")


# -- the host adapter's own settings: its reason reaches the first use --------------------------------

@pytest.mark.parametrize("value", ["", "2", "0", " 3", "+3", "3 ", "128"] + JUNK)
def test_host_devices(forked, value):
    outcome, result = probe(forked, {"TORCH_HAL_HOST_DEVICES": value, "TORCH_HAL_HOST_MEMORY": "64M"})
    if value in ("", "2"):
        accepted(outcome, result)
        assert outcome["count"] == (2 if value else 1)
    elif value == "0":  # documented: no host device; the error says that the adapter has none
        rejected_at_first_use(outcome, result, "adapter host (loaded): loaded, reports 0 devices")
    else:  # " 3", "+3" and "3 " used to be read as 3 (strtol)
        rejected_at_first_use(outcome, result, f"TORCH_HAL_HOST_DEVICES='{value}' is not a device count",
                              "between 0 and 127")
        assert any("TORCH_HAL_HOST_DEVICES" in w for w in outcome["warned"]), str(result)


@pytest.mark.parametrize("value,size", [("", None), ("64M", 64 << 20), ("8GiB", 8 << 30), ("1.5K", 1536),
                                        ("65536", 65536)])
def test_host_memory_accepted(forked, value, size):
    outcome, result = probe(forked, {"TORCH_HAL_HOST_MEMORY": value})
    accepted(outcome, result)
    if size:
        assert outcome["total_memory"] == size, str(result)


@pytest.mark.parametrize("value", ["0", "-1", "0x10G", "1e3", " 8G", "8G ", "8 G", "nan", "inf", "8iB", ".5G",
                                   "99999999999999999999", "99999999999999999999G"] + JUNK)
def test_host_memory_rejected(forked, value):
    # "0x10G", "1e3" and " 8G" used to be read by strtod as 16 GiB, 1000 bytes and 8 GiB.
    outcome, result = probe(forked, {"TORCH_HAL_HOST_MEMORY": value})
    rejected_at_first_use(outcome, result, f"TORCH_HAL_HOST_MEMORY='{value}' is not a size", "K/M/G/T suffix")


@pytest.mark.parametrize("value", ["", "0", "1", "yes", "2"] + JUNK[:4])
def test_host_accessible(forked, value):
    outcome, result = probe(forked, {"TORCH_HAL_HOST_ACCESSIBLE": value})
    if value in ("", "0", "1"):
        accepted(outcome, result)
        assert outcome["host_accessible"] == (value != "0")
    else:
        rejected_at_first_use(outcome, result, f"TORCH_HAL_HOST_ACCESSIBLE='{value}' must be 0 or 1")


# -- lists --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,kept,ignored", [
    ("0", 1, []), ("host:0", 1, []), (" 0 ", 1, []),
    ("0,,x", 1, ["'x' ignored"]), ("0,0", 1, ["'0' ignored: that device is already listed"]),
    ("0,99999999999999999999", 1, ["'99999999999999999999' ignored"]),
])
def test_visible_devices_kept(forked, value, kept, ignored):
    outcome, result = probe(forked, {"HAL_VISIBLE_DEVICES": value})
    accepted(outcome, result)
    assert outcome["count"] == kept
    for needle in ignored:
        assert f"HAL_VISIBLE_DEVICES entry {needle}" in result.stderr, str(result)


@pytest.mark.parametrize("value", ["", "-1", "1", "x", "99999999999999999999", "\u00fc\u2603", "nvidia:0", ",,,"])
def test_visible_devices_that_keep_nothing(forked, value):
    outcome, result = probe(forked, {"HAL_VISIBLE_DEVICES": value})
    # The first use says which filter left nothing, and how to fix it.
    rejected_at_first_use(outcome, result, f"HAL_VISIBLE_DEVICES='{value}' keeps none of the 1 devices found",
                          "list indices 0..0")
    if value:  # a typo is said at start-up too; an empty list hides every device on purpose, quietly
        assert f"torch_hal: HAL_VISIBLE_DEVICES='{value}' keeps none" in result.stderr, str(result)
    else:
        assert "HAL_VISIBLE_DEVICES" not in result.stderr, str(result)


@pytest.mark.parametrize("value", ["", ":::", "0,,x", "\u00fc\u2603/libx.so", "/", "-1"])
def test_forced_adapter_list(forked, value):
    outcome, result = probe(forked, {"TORCH_HAL_ADAPTERS": value})
    accepted(outcome, result)  # the host device still works
    broken = [w for w in outcome["warned"] if "could not be loaded" in w]
    if value in ("", ":::"):
        assert not broken, str(result)
    else:  # each named file is reported, by name
        assert len(broken) == 1 and value.strip(":") in broken[0], str(result)


@pytest.mark.parametrize("value", ["", ":::", "0,,x", "\u00fc\u2603", "/nonexistent", "-1", "/"])
def test_adapter_search_path(forked, value):
    # Documented: absent folders are quiet (most entries are optional), and "/" holds no adapter.
    outcome, result = probe(forked, {"TORCH_HAL_ADAPTER_PATH": value})
    accepted(outcome, result)
    assert not outcome["warned"], str(result)


@pytest.mark.parametrize("value,needle", [
    ("", None), (",", None), ("max_split_size_mb:64,", None),
    ("max_split_size_mb:-1", "not a whole number"), ("max_split_size_mb:99999999999999999999", "not a whole number"),
    ("max_split_size_mb: 64", "not a whole number"), ("0,,x", "missing ':'"), ("\u00fc:1", "unknown key"),
    ("garbage_collection_threshold:-0.5", "not a decimal"), ("roundup_power2_divisions:3", "power of 2"),
])
def test_allocator_config(forked, value, needle):
    outcome, result = probe(forked, {"PYTORCH_HAL_ALLOC_CONF": value})
    if needle is None:
        accepted(outcome, result)
    else:
        rejected_at_import(outcome, result, "PYTORCH_HAL_ALLOC_CONF", needle, "max_split_size_mb (a whole number")


# -- the no-device error names every adapter's reason ---------------------------------------------------

def test_no_device_error_names_the_reason_of_each_adapter(forked):
    outcome, result = probe(forked, {"TORCH_HAL_HOST_DEVICES": "3abc",
                                     "TORCH_HAL_ADAPTERS": f"{fixture_library('unavailable')}:/nonexistent/libgone.so"})
    # It used to say only "Check HAL_VISIBLE_DEVICES / torch_hal.adapters() for why".
    rejected_at_first_use(outcome, result,
                          "adapter host (broken):", "TORCH_HAL_HOST_DEVICES='3abc' is not a device count",
                          "adapter fixture_unavailable (unavailable): fixture runtime libfoo.so.1 not found: install foo",
                          "adapter libgone (broken): /nonexistent/libgone.so cannot be loaded")


def test_most_devices_pytorch_can_number(forked):
    # c10::DeviceIndex is an int8_t: 128 devices made `import torch_hal` fail with "hal:-128 is not a valid
    # device", and torch.hal.set_device(256) silently selected hal:0.
    result = forked.run("""
        import torch, torch_hal
        from torch_hal import _C
        n = torch.hal.device_count()
        print("COUNT", n, torch.accelerator.device_count(), _C.MAX_DEVICES)
        print("LAST", (torch.ones(2, device=f"hal:{n - 1}") * 3).cpu().tolist())
        for bad in (n, 128, 256, 1000):
            for call in (torch.hal.set_device, torch.hal.get_device_properties, torch.hal.mem_get_info):
                try:
                    call(bad)
                    print("NO ERROR", call.__name__, bad)
                except IndexError as e:
                    assert f"hal:{bad} is not a valid device" in str(e), str(e)
        print("CURRENT", torch.hal.current_device())
    """, env={"TORCH_HAL_HOST_DEVICES": "127", "TORCH_HAL_HOST_MEMORY": "16M"}, finalize=False)
    assert result.returncode == 0, str(result)
    assert "COUNT 127 127 127" in result.stdout and "LAST [3.0, 3.0]" in result.stdout, str(result)
    assert "NO ERROR" not in result.stdout and "CURRENT 0" in result.stdout, str(result)
