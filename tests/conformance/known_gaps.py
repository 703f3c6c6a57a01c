"""Every adapter's known gaps against the conformance suite, in one place, each with its reason.

Keys are adapter names (as in torch_hal.adapters()); values map a conformance test name to why that
adapter cannot pass it. A test listed here is skipped on that adapter's devices with the reason shown.
"""
KNOWN_GAPS = {
    "host": {},
    # vendor_adapters/example_asic: passes everything (tests/python/test_conformance_on_custom_devices.py).
    "example_asic": {},
    # The Python backends of tests/python/custom_backends.py and the default CustomDeviceBackend.
    "py_recording": {},
    "py_default": {},
}


def gap_reason(adapter: str, test: str):
    return KNOWN_GAPS.get(adapter, {}).get(test)
