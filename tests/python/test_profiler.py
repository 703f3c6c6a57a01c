"""torch.profiler on hal: the device's kernels, copies and memory through PyTorch's PrivateUse1 activity
profiler (csrc/torch/profiler/kineto_profiler.cpp), timed by the adapter's events (hal/device_activity.h)."""
import json

import pytest
import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

# PyTorch forwards a PrivateUse1 activity profiler to Kineto only in its KINETO_PRIVATEUSE1 state, which came
# with the registry that kineto_profiler.cpp uses; without either, hal has the legacy timing alone
# (test_accelerator_conventions.py::test_legacy_profiler_times_ops_on_the_device).
pytestmark = pytest.mark.skipif(
    not torch.autograd.kineto_available()
    or not hasattr(torch._C._profiler.ProfilerState, "KINETO_PRIVATEUSE1"),
    reason="this PyTorch has no Kineto or no PrivateUse1 activity profiler registry")

DEVICE_ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]
H2D = "Memcpy HtoD (Pageable -> Device)"
D2H = "Memcpy DtoH (Device -> Pageable)"


def devices_of(adapter: str):
    return [torch.device("hal", i) for i in range(torch.hal.device_count())
            if torch.hal.get_device_properties(i).adapter == adapter]


# The host device everywhere (CI); NVIDIA and AMD GPUs where there are some, whose kernels are the adapter's own.
@pytest.fixture(params=devices_of("host")[:1] + devices_of("nvidia")[:1] + devices_of("amd")[:1], ids=str)
def device(request):
    return request.param


def adapter_of(device: torch.device) -> str:
    return torch.hal.get_device_properties(device.index).adapter


def run_workload(device: torch.device) -> torch.Tensor:
    x = torch.randn(256, 256).to(device)   # a host-to-device copy
    y = torch.mm(x, x).relu()              # kernels on the device
    return y.cpu()                          # a device-to-host copy


def device_events(prof):
    return [e for e in prof.events() if e.device_type == DeviceType.PrivateUse1]


def test_kernels_and_copies_are_device_activities_with_measured_times(device):
    with profile(activities=DEVICE_ACTIVITIES) as prof:
        out = run_workload(device)
    assert out.shape == (256, 256)
    events = device_events(prof)
    names = {e.name for e in events}
    adapter = adapter_of(device)
    assert {H2D, D2H} <= names, names
    for e in events:
        assert e.time_range.elapsed_us() > 0, (e.name, e.time_range)
        assert e.device_index == device.index
    # Device time is what the events measured, and it lands on the ops that launched the work: each op's
    # kernels carry the adapter's name ("host::mm" is ATen's CPU kernel run on the host device).
    averages = {a.key: a for a in prof.key_averages()}
    for op in ("aten::mm", "aten::relu"):
        assert averages[op].device_time_total > 0, op
        cpu_op = next(e for e in prof.events() if e.name == op and e.device_type == DeviceType.CPU)
        assert cpu_op.kernels and all(k.name.startswith(f"{adapter}::") for k in cpu_op.kernels), cpu_op.kernels
        kernel = next(e for e in events if e.name == cpu_op.kernels[0].name)
        assert averages[kernel.name].device_time_total > 0
        # The kernel ran inside its op's interval when the op waits for it (the host device runs it in
        # place); on a GPU it starts after its launch (give or take the anchor's precision, microseconds).
        assert cpu_op.time_range.start <= kernel.time_range.start + (1 if adapter == "host" else 50)
        if adapter == "host":
            assert kernel.time_range.end <= cpu_op.time_range.end + 1
    if adapter == "host":
        assert {"host::mm", "host::relu"} <= names, names


def test_copies_report_their_bytes_in_the_chrome_trace(device, tmp_path):
    with profile(activities=DEVICE_ACTIVITIES) as prof:
        run_workload(device)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    copies = [e for e in events if e.get("cat") == "gpu_memcpy"]
    adapter = adapter_of(device)
    assert kernels and all(e["name"].startswith(f"{adapter}::") for e in kernels), [e["name"] for e in kernels]
    assert all(e["dur"] > 0 for e in kernels + copies)
    by_name = {e["name"]: e for e in copies}
    assert by_name[H2D]["args"]["bytes"] == 256 * 256 * 4
    assert by_name[D2H]["args"]["bytes"] == 256 * 256 * 4
    assert by_name[H2D]["args"]["kind"] == "HtoD"
    # Each device activity names the op that launched it, as CUDA kernels do.
    ops = {e["args"]["correlation"] for e in kernels}
    assert 0 not in ops
    # The device has a named row.
    names = [e for e in trace["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name"]
    assert any(e["args"]["name"] == "hal" for e in names), names


def test_memory_events_of_the_device(device):
    with profile(activities=DEVICE_ACTIVITIES, profile_memory=True) as prof:
        x = torch.ones(1024, 1024, device=device)  # 4 MiB
        del x
    # The allocation lands on the op that made it; the free, outside any op, is an event of its own.
    ones = next(a for a in prof.key_averages() if a.key == "aten::ones")
    assert ones.device_memory_usage == 4 << 20
    frees = [e.device_memory_usage for e in prof.events() if e.name == "[memory]"]
    assert -(4 << 20) in frees, frees


def test_a_cpu_only_profile_records_no_device_activity(device):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run_workload(device)
    assert device_events(prof) == []
    assert any(e.name == "aten::mm" for e in prof.events())


def test_profiling_twice_gives_two_independent_profiles(device):
    for _ in range(2):
        with profile(activities=DEVICE_ACTIVITIES) as prof:
            run_workload(device)
        assert sum(e.name == H2D for e in device_events(prof)) == 1
