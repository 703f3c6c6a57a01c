"""HardwareAdapter: the issue's example verbatim, selection and its reasons, precisions, malformed requests,
set_device("auto"), cross-vendor capabilities and legacy mode, on the real hal devices of this machine."""
import math
import textwrap

import pytest
import torch

import torch_hal
from torch_hal import HardwareAdapter, HardwareVendor
from torch_hal.selection import Selection

from conftest import run_python


def test_the_issue_example_runs_as_written():
    from torch_hal import HardwareAdapter, HardwareVendor  # noqa: F811  (as the issue writes it)
    adapter = HardwareAdapter(enable_hal=True)
    assert adapter.is_hal_enabled() is True
    dev = adapter.get_optimal_device_hal(memory_requirement_gb=8, compute_requirement_tflops=20,
                                         preferred_vendors=['nvidia', 'amd', 'intel'])
    caps = adapter.get_cross_vendor_capabilities()
    caps['cross_vendor_devices'], caps['vendor_distribution'], caps['available_memory_gb']
    legacy = HardwareAdapter()
    placement = legacy.get_optimal_device_placement(memory_gb=8, compute_tflops=10)
    from torch_hal.vendor_adapters import auto_detect_best_adapter
    discovered = auto_detect_best_adapter().discover_devices()

    names = {d.vendor for d in adapter.discover_devices()}
    if names <= {HardwareVendor.HOST}:  # this CPU-only machine: nothing from those vendors
        assert dev is None
        assert all("not in preferred_vendors" in why for why in adapter.last_selection_reasons.values())
        assert set(adapter.last_selection_reasons) == {f"hal:{i}" for i in range(torch.hal.device_count())}
    else:
        assert dev.vendor in (HardwareVendor.NVIDIA, HardwareVendor.AMD, HardwareVendor.INTEL)
        print(dev.vendor, dev.capabilities.device_name, dev.torch_device)
    assert len(caps['cross_vendor_devices']) == torch.hal.device_count()
    assert sum(caps['vendor_distribution'].values()) == torch.hal.device_count()
    assert legacy.is_hal_enabled() is False
    assert placement.torch_device.type in ("cuda", "cpu")
    assert [d.torch_device for d in discovered] == [torch.device("hal", i) for i in range(torch.hal.device_count())
                                                   if torch.hal.get_device_properties(i).vendor
                                                   == discovered[0].vendor.value]


def host_index() -> int:
    """The first host reference device: hal:0 on a machine without accelerators, last behind GPUs."""
    return next(i for i in range(torch.hal.device_count()) if torch.hal.get_device_properties(i).vendor == "host")


def test_a_request_the_host_device_meets_returns_it():
    adapter = HardwareAdapter(enable_hal=True)
    host = host_index()
    measured = torch_hal.measure(host).fp32_tflops
    dev = adapter.get_optimal_device_hal(memory_requirement_gb=1, compute_requirement_tflops=measured / 2,
                                         preferred_vendors=["host"])
    assert dev is not None and dev.torch_device == torch.device("hal", host)
    assert dev.vendor is HardwareVendor.HOST and str(dev.vendor) == "host"
    assert dev.capabilities.device_name == torch.hal.get_device_name(host)
    assert dev.capabilities.total_memory_gb == pytest.approx(
        torch.hal.get_device_properties(host).total_memory / 1e9)
    x = torch.ones(4, device=dev.torch_device)
    assert x.device == torch.device("hal", host) and x.sum().item() == 4


def test_explain_gives_a_verdict_for_every_device():
    adapter = HardwareAdapter(enable_hal=True)
    selection = adapter.get_optimal_device_hal(explain=True)
    assert isinstance(selection, Selection)
    assert selection.device.torch_device == torch.device("hal", 0)
    assert selection.reasons["hal:0"].startswith("won: meets every requirement; score: vendor")
    assert len(selection.reasons) == torch.hal.device_count()
    assert "hal:0" in str(selection) and "won" in str(selection)


def test_unmet_memory_gives_none_and_the_reason():
    adapter = HardwareAdapter(enable_hal=True)
    total_gb = max(torch.hal.get_device_properties(i).total_memory for i in range(torch.hal.device_count())) / 1e9
    assert adapter.get_optimal_device_hal(memory_requirement_gb=total_gb + 1) is None
    why = adapter.last_selection_reasons["hal:0"]
    assert why.startswith("lost:") and f"needs {total_gb + 1:.3g} GB free" in why
    selection = adapter.get_optimal_device_hal(memory_requirement_gb=total_gb + 1, explain=True)
    assert selection.device is None and selection.reasons == adapter.last_selection_reasons


def test_unmet_compute_names_the_measured_figure():
    adapter = HardwareAdapter(enable_hal=True)
    assert adapter.get_optimal_device_hal(compute_requirement_tflops=1e6, preferred_vendors=["host"]) is None
    why = adapter.last_selection_reasons[f"hal:{host_index()}"]
    measured = torch_hal.measure(host_index()).fp32_tflops
    assert "needs 1e+06 TFLOP/s fp32, measured (no reported peak)" in why and f"{measured:.3g}" in why


def test_precisions_are_requirements():
    adapter = HardwareAdapter(enable_hal=True)
    props = torch.hal.get_device_properties(0)
    dev = adapter.get_optimal_device_hal(required_precisions=["fp16", "fp32"])
    assert (dev is not None) == props.supports_fp16
    fp8 = adapter.get_optimal_device_hal(required_precisions=["fp8"])
    if not props.supports_fp8:
        assert fp8 is None and "lacks fp8" in adapter.last_selection_reasons["hal:0"]


def test_vendors_given_as_enum_members_and_strings_agree():
    adapter = HardwareAdapter(enable_hal=True)
    by_enum = adapter.get_optimal_device_hal(preferred_vendors=[HardwareVendor.HOST, HardwareVendor.NVIDIA])
    by_name = adapter.get_optimal_device_hal(preferred_vendors=["Host", "nvidia"])
    assert by_enum == by_name and by_enum.torch_device == torch.device("hal", host_index())


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(memory_requirement_gb=-1), ValueError, "memory_requirement_gb must be a finite number of gigabytes >= 0"),
    (dict(memory_requirement_gb=math.nan), ValueError, "memory_requirement_gb"),
    (dict(memory_requirement_gb="8"), TypeError, "memory_requirement_gb must be a number of gigabytes"),
    (dict(memory_requirement_gb=True), TypeError, "memory_requirement_gb"),
    (dict(compute_requirement_tflops=-0.5), ValueError, "compute_requirement_tflops must be a finite number"),
    (dict(compute_requirement_tflops=math.inf), ValueError, "compute_requirement_tflops"),
    (dict(preferred_vendors=["nvida"]), ValueError, "unknown value 'nvida'; accepted values: nvidia, amd, intel"),
    (dict(preferred_vendors="nvidia"), TypeError, "write ['nvidia']"),
    (dict(preferred_vendors=[]), ValueError, "preferred_vendors is empty"),
    (dict(preferred_vendors=[0]), TypeError, "preferred_vendors holds 0"),
    (dict(required_precisions=["fp4"]), ValueError, "accepted values: fp32, fp16, bf16, fp8, fp64"),
    (dict(required_precisions="bf16"), TypeError, "write ['bf16']"),
])
def test_a_malformed_request_raises_naming_the_argument(kwargs, error, words):
    with pytest.raises(error) as info:
        HardwareAdapter(enable_hal=True).get_optimal_device_hal(**kwargs)
    assert words in str(info.value)


def test_bad_constructor_and_legacy_arguments_raise():
    with pytest.raises(TypeError, match="enable_hal must be True or False"):
        HardwareAdapter(enable_hal="yes")
    with pytest.raises(ValueError, match="memory_gb must be a finite number"):
        HardwareAdapter().get_optimal_device_placement(memory_gb=-8)


def test_cross_vendor_capabilities_keep_host_memory_apart():
    caps = HardwareAdapter(enable_hal=True).get_cross_vendor_capabilities()
    props = [torch.hal.get_device_properties(i) for i in range(torch.hal.device_count())]
    accelerators = [i for i, p in enumerate(props) if p.vendor != "host"]
    hosts = [i for i, p in enumerate(props) if p.vendor == "host"]
    assert caps["available_memory_gb"] == pytest.approx(
        sum(torch.hal.mem_get_info(i)[0] for i in accelerators) / 1e9, rel=0.01, abs=0.01)
    assert caps["host_total_memory_gb"] == pytest.approx(sum(props[i].total_memory for i in hosts) / 1e9)
    assert caps["vendor_distribution"]["host"] == len(hosts)
    assert set(caps["vendor_distribution"]) == {v.value for v in HardwareVendor}
    assert caps["precision_support"]["fp32"] == [f"hal:{i}" for i in range(len(props))]
    assert [a["name"] for a in caps["adapters"]] == [a.name for a in torch_hal.adapters()]


def test_legacy_mode_uses_torch_cuda_or_the_cpu():
    legacy = HardwareAdapter()
    assert legacy.is_hal_enabled() is False
    record = legacy.get_optimal_device_placement(memory_gb=0.001)
    assert record.torch_device == (torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu"))
    assert all(d.torch_device.type in ("cuda", "cpu") for d in legacy.discover_devices())
    huge = legacy.get_optimal_device_placement(memory_gb=1e6, compute_tflops=10)
    assert huge.torch_device == torch.device("cpu") and huge.index is None
    with pytest.raises(RuntimeError, match=r"legacy mode: create it with HardwareAdapter\(enable_hal=True\)"):
        legacy.get_optimal_device_hal()
    with pytest.raises(RuntimeError, match="legacy mode"):
        legacy.get_cross_vendor_capabilities()


def test_placement_in_hal_mode_falls_back_to_the_cpu():
    adapter = HardwareAdapter(enable_hal=True)
    assert adapter.get_optimal_device_placement(memory_gb=1).torch_device == torch.device("hal", 0)
    assert adapter.get_optimal_device_placement(memory_gb=1e6).torch_device == torch.device("cpu")
    assert "needs 1e+06 GB free" in adapter.last_selection_reasons["hal:0"]


def test_set_device_auto_and_the_bare_hal_device():
    torch.hal.set_device("auto")
    assert torch.hal.current_device() == 0
    assert torch.ones(2, device="hal").device == torch.device("hal", 0)
    with pytest.raises(IndexError):
        torch.hal.set_device(torch.hal.device_count())


def test_two_devices_rank_by_hardware_not_by_free_memory():
    # Two host devices of 1 GB: hal:0 loses free memory to a tensor, yet still ranks first when both fit;
    # a request only hal:1 can meet selects hal:1 and says why hal:0 lost.
    code = textwrap.dedent("""
        import torch, torch_hal
        from torch_hal import HardwareAdapter
        from torch_hal.hardware_adapter import best_device_index
        print('IMPORT', torch.hal.current_device(), best_device_index())
        keep = torch.empty(300 << 20, dtype=torch.uint8, device='hal:0')
        adapter = HardwareAdapter(enable_hal=True)
        s = adapter.get_optimal_device_hal(explain=True)
        print('BOTH', s.device.torch_device, '|', s.reasons['hal:1'])
        s = adapter.get_optimal_device_hal(memory_requirement_gb=0.9, explain=True)
        print('MEM', s.device.torch_device, '|', s.reasons['hal:0'])
        torch.hal.set_device(1)
        torch.hal.set_device('auto')
        print('AUTO', torch.hal.current_device(), torch.ones(1, device='hal').device)
    """)
    out = run_python(code, TORCH_HAL_HOST_DEVICES=2, TORCH_HAL_HOST_MEMORY="1G")
    assert out.returncode == 0, out.stderr
    lines = dict(l.split(" ", 1) for l in out.stdout.splitlines())
    assert lines["IMPORT"] == "0 0"
    assert lines["BOTH"].startswith("hal:0 | lost to hal:0: meets every requirement, ranks 2: equal score")
    assert lines["MEM"] == "hal:1 | lost: needs 0.9 GB free, has 0.759 GB"
    assert lines["AUTO"] == "0 hal:0"
