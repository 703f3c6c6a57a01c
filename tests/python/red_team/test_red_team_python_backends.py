"""Red team, part 3: Python device backends that raise in every callback or answer nonsense.

Every failure is a Python exception naming the backend, the method and what was wrong (or, for
free_memory, whose result nobody waits for, a RuntimeWarning); the other devices, and the backend's other
methods, keep working. Counts are checked against _C.MAX_DEVICES before anything is probed: a backend
claiming 2**40 devices used to be initialised device by device (a hang).
"""
import pytest

from forked_cases import forked  # noqa: F401  (the fixture)

# The backend raising from `method`; RAISES holds what the caller must see then.
RAISING = """
    import json, time, warnings
    import torch, torch_hal
    from torch_hal import CustomDeviceBackend, register_custom_device

    class Raising(CustomDeviceBackend):
        def __init__(self, method):
            super().__init__("raises_in_" + method, memory_per_device="64M")
            self.method = method
        def _fail(self, method):
            if method == self.method:
                raise KeyError(f"{{method}} broke on purpose")
        def initialize_device(self, d): self._fail("initialize_device")
        def get_device_count(self): self._fail("get_device_count"); return 1
        def get_device_properties(self, d):
            self._fail("get_device_properties"); return super().get_device_properties(d)
        def allocate_memory(self, size, d): self._fail("allocate_memory"); return super().allocate_memory(size, d)
        def free_memory(self, buffer, d): self._fail("free_memory")
        def copy_to_device(self, c, d): self._fail("copy_to_device"); super().copy_to_device(c, d)
        def copy_from_device(self, c, d): self._fail("copy_from_device"); super().copy_from_device(c, d)
        def copy_on_device(self, c, d): self._fail("copy_on_device"); super().copy_on_device(c, d)
        def get_memory_info(self, d): self._fail("get_memory_info"); return (1 << 20, 64 << 20)
        def synchronize(self, d): self._fail("synchronize")

    warnings.simplefilter("always")
    x = torch.arange(4., device="hal:0")
    outcome = {{}}
    with warnings.catch_warnings(record=True) as caught:
        try:
            [dev] = register_custom_device(Raising({method!r}))
            a = torch.arange(6.).to(dev)                 # allocate_memory, copy_to_device
            b = torch.empty_like(a)
            b.copy_(a)                                   # copy_on_device
            outcome["values"] = b.cpu().tolist()         # copy_from_device
            outcome["free"] = torch.hal.mem_get_info(dev)[0]  # get_memory_info
            torch.hal.synchronize(dev)                   # synchronize
            del a, b
            torch.hal.empty_cache()                      # free_memory, on a later Python call
            for _ in range(50):
                time.sleep(0.01)
        except Exception as e:
            outcome["error"] = [type(e).__name__, str(e)]
    outcome["warned"] = [str(w.message) for w in caught if "free_memory" in str(w.message)]
    outcome["still_works"] = (x * 2).cpu().tolist()
    print("OUTCOME " + json.dumps(outcome))
"""

# method -> the exception type the caller sees
RAISES = {
    "initialize_device": "RuntimeError",
    "get_device_count": "RuntimeError",
    "get_device_properties": "RuntimeError",
    "allocate_memory": "RuntimeError",
    "copy_to_device": "RuntimeError",
    "copy_on_device": "RuntimeError",
    "copy_from_device": "RuntimeError",
    "get_memory_info": "RuntimeError",
    "synchronize": "RuntimeError",
    "free_memory": None,  # a warning
}


@pytest.mark.parametrize("method", list(RAISES))
def test_backend_raising_in_each_method(forked, method):
    result = forked.run(RAISING.format(method=method), name=method, timeout=60)
    result.assert_clean_exit()
    [outcome] = result.lines("OUTCOME ")
    assert outcome["still_works"] == [0.0, 2.0, 4.0, 6.0], str(result)
    if RAISES[method] is None:
        assert "error" not in outcome and outcome["values"] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], str(result)
        [warning] = outcome["warned"]
        assert f"'raises_in_{method}'" in warning and f"{method} broke on purpose" in warning, warning
    else:
        kind, message = outcome["error"]
        assert kind == RAISES[method], str(result)
        assert f"raises_in_{method}" in message and method in message and "KeyError" in message \
            and f"{method} broke on purpose" in message, message


# A backend whose `method` answers `answer`; the registration or first use must say what was wrong.
NONSENSE = """
    import json, time
    import torch, torch_hal
    from torch_hal import CustomDeviceBackend, register_custom_device

    answer = {answer}
    class Nonsense(CustomDeviceBackend):
        def get_device_count(self):
            return answer if {method!r} == "get_device_count" else 1
        def get_device_properties(self, d):
            if {method!r} == "get_device_properties":
                return answer
            return super().get_device_properties(d)
        def allocate_memory(self, size, d):
            return answer if {method!r} == "allocate_memory" else super().allocate_memory(size, d)
        def get_memory_info(self, d):
            return answer

    x = torch.arange(4., device="hal:0")
    started = time.monotonic()
    try:
        [dev] = register_custom_device(Nonsense("nonsense", memory_per_device="64M"))
        t = torch.arange(6.).to(dev)
        u = torch.empty(3 << 20, dtype=torch.uint8, device=dev)  # a second segment
        if {method!r} == "get_memory_info":
            print("INFO", torch.hal.mem_get_info(dev))
        print("NO ERROR", t.cpu().tolist())
    except Exception as e:
        print("ERROR " + json.dumps([type(e).__name__, str(e)]))
    print("SECONDS", time.monotonic() - started)
    print("STILL WORKS", (x * 2).cpu().tolist(), torch.hal.device_count())
"""

COUNT_RULE = "return the number of devices, an int between 1 and 127"
PROPS = "get_device_properties(0)"


@pytest.mark.parametrize("method,answer,kind,needles", [
    ("get_device_count", "-1", "ValueError", [COUNT_RULE]),
    ("get_device_count", "0", "ValueError", [COUNT_RULE]),
    ("get_device_count", "1.5", "ValueError", [COUNT_RULE]),
    ("get_device_count", "'2'", "ValueError", [COUNT_RULE]),
    ("get_device_count", "True", "ValueError", [COUNT_RULE]),
    ("get_device_count", "None", "ValueError", [COUNT_RULE]),
    ("get_device_count", "128", "ValueError", [COUNT_RULE]),     # above _C.MAX_DEVICES
    ("get_device_count", "2 ** 40", "ValueError", [COUNT_RULE]),  # was probed one by one: a hang
    ("get_device_count", "127", "ValueError", ["has 127 devices, but only 126 more fit"]),
    ("get_device_properties", "[1, 2]", "TypeError", [PROPS, "returned list"]),
    ("get_device_properties", "dict(name='x', total_memory=1 << 20, colour=1)", "ValueError", ["unknown keys"]),
    ("get_device_properties", "dict(name=5, total_memory=1 << 20)", "TypeError", [PROPS, "name is 5"]),
    ("get_device_properties", "dict(name='', total_memory=1 << 20)", "ValueError", [PROPS, "name is empty"]),
    ("get_device_properties", "dict(name='x', vendor=[1], total_memory=1 << 20)", "TypeError", [PROPS, "vendor"]),
    ("get_device_properties", "dict(name='x', total_memory=1 << 20, compute_units=-5)", "ValueError",
     [PROPS, "compute_units is -5"]),
    ("get_device_properties", "dict(name='x', total_memory=1 << 20, compute_units=2 ** 40)", "ValueError",
     [PROPS, "compute_units is 1099511627776"]),
    ("get_device_properties", "dict(name='x', total_memory=1 << 20, supports_fp16='yes')", "TypeError",
     [PROPS, "supports_fp16 is 'yes'"]),
    ("get_device_properties", "dict(name='x', total_memory=-1)", "ValueError", [PROPS, "total_memory", "positive"]),
    ("get_device_properties", "dict(name='x', total_memory=0)", "ValueError", [PROPS, "total_memory", "positive"]),
    ("get_device_properties", "dict(name='x', total_memory=2 ** 70)", "ValueError", [PROPS, "2**64"]),
    ("get_device_properties", "dict(name='x', total_memory='lots')", "ValueError", [PROPS, "not a size"]),
    ("allocate_memory", "None", "RuntimeError", ["nonsense", "not a writable contiguous buffer"]),
    ("allocate_memory", "b'x' * 4096", "RuntimeError", ["nonsense", "not a writable contiguous buffer"]),
    ("allocate_memory", "[0] * 4096", "RuntimeError", ["nonsense", "not a writable contiguous buffer"]),
    ("allocate_memory", "bytearray(16)", "RuntimeError", ["nonsense", "holds only 16"]),
    ("allocate_memory", "bytearray(4 << 20)", "RuntimeError", ["nonsense", "already allocated"]),  # the same twice
    ("get_memory_info", "(-1, 5)", "RuntimeError", ["nonsense", "get_memory_info(0) returned (-1, 5)"]),
    ("get_memory_info", "(10, 5)", "RuntimeError", ["nonsense", "0 <= free_bytes <= total_bytes"]),  # was accepted
    ("get_memory_info", "'ab'", "RuntimeError", ["nonsense", "returned 'ab'"]),
    ("get_memory_info", "None", "RuntimeError", ["nonsense", "returned None"]),
    ("get_memory_info", "(1.5, 2)", "RuntimeError", ["nonsense", "returned (1.5, 2)"]),
    ("get_memory_info", "(1, 2, 3)", "RuntimeError", ["nonsense", "returned (1, 2, 3)"]),
    ("get_memory_info", "(True, 5)", "RuntimeError", ["nonsense", "returned (True, 5)"]),
    ("get_memory_info", "(0, 2 ** 64)", "RuntimeError", ["nonsense", "returned (0, 18446744073709551616)"]),
])
def test_backend_answering_nonsense(forked, method, answer, kind, needles):
    result = forked.run(NONSENSE.format(method=method, answer=answer), name=f"{method}={answer}", finalize=False)
    assert result.returncode == 0, str(result)
    [error] = result.lines("ERROR ")
    assert error[0] == kind, str(result)
    for needle in needles:
        assert needle in error[1], (needle, error[1])
    assert "STILL WORKS [0.0, 2.0, 4.0, 6.0]" in result.stdout, str(result)
    seconds = float(result.stdout.split("SECONDS ")[1].split()[0])
    assert seconds < 10, f"{seconds:.1f}s to refuse: probed device by device?"

