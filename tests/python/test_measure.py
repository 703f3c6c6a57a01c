"""torch_hal.measure(): timed throughput and bandwidth, cached per device, in a plausible range."""
import time

import pytest
import torch

import torch_hal


def test_measure_is_positive_cached_and_plausible():
    first = torch_hal.measure(0)
    start = time.perf_counter()
    again = torch_hal.measure("hal:0")
    assert time.perf_counter() - start < 0.01 and again is first  # cached, whatever way the device is named
    assert first.device == "hal:0" and first.copy_bytes == 64 << 20 and first.matmul_size >= 256
    assert first.fp32_tflops > 0 and first.copy_gbps > 0
    # The host device runs CPU kernels on host memory: its figures are the CPU's, within the noise of a
    # shared machine (generous bounds: a factor of 10), and nowhere near an accelerator's.
    cpu = torch_hal.measure("cpu")
    if torch.hal.get_device_properties(0).vendor == "host":
        assert 0.1 < first.fp32_tflops / cpu.fp32_tflops < 10
        assert 0.1 < first.copy_gbps / cpu.copy_gbps < 10
        assert first.fp32_tflops < 50 and first.copy_gbps < 2000


def test_bf16_is_measured_where_the_device_has_it():
    """A device that claims bf16 must measure it: a failed bf16 matmul (m.bf16_error, the first line of its
    error, with bf16_tflops None) is a finding that fails this test, not a pass. A device without bf16 is
    not timed in bf16: None and no error. The CPU always has bf16."""
    m = torch_hal.measure(0)
    if torch.hal.get_device_properties(0).supports_bf16:
        assert m.bf16_error == "", f"hal:0 claims bf16 and its bf16 matmul failed: {m.bf16_error}"
        assert m.bf16_tflops is not None and m.bf16_tflops > 0
    else:
        assert m.bf16_tflops is None and m.bf16_error == ""
    cpu = torch_hal.measure("cpu")
    assert cpu.bf16_error == "" and cpu.bf16_tflops is not None and cpu.bf16_tflops > 0


def test_refresh_measures_again():
    old = torch_hal.measure("cpu")
    new = torch_hal.measure("cpu", refresh=True)
    assert new is not old and new.fp32_tflops > 0 and torch_hal.measure("cpu") is new


@pytest.mark.parametrize("device, error, words", [
    (99, IndexError, "hal:99 does not exist"),
    ("meta", ValueError, "times hal, cuda and cpu devices"),
    (1.5, TypeError, "a hal index, a string such as 'hal:0'"),
])
def test_measure_rejects_what_it_cannot_time(device, error, words):
    with pytest.raises(error, match=words):
        torch_hal.measure(device)
