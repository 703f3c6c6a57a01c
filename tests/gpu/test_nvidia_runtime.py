"""The NVIDIA adapter's runtime behaviour (issue 3): discovery, properties, memory, streams, peer copies.

Kernel correctness is covered elsewhere (the conformance suite runs over every hal device, NVIDIA ones
included). Everything here skips cleanly without an NVIDIA hal device, except the check that the adapter,
when built, explains why it is unavailable on a machine without an NVIDIA GPU.
"""
import os
import re
import threading
from pathlib import Path

import pytest
import torch

import torch_hal

NVIDIA_LIBRARY = Path(torch_hal.__file__).resolve().parent / "lib" / "libhal_adapter_nvidia.so"


def nvidia_adapter():
    return next((a for a in torch_hal.adapters() if a.name == "nvidia"), None)


def nvidia_devices():
    return [torch.device("hal", i) for i in range(torch.hal.device_count())
            if torch.hal.get_device_properties(i).adapter == "nvidia"]


@pytest.fixture(params=nvidia_devices() or [pytest.param(None, marks=pytest.mark.skip(reason="no NVIDIA hal device"))],
                ids=str)
def device(request):
    return request.param


# -- discovery ---------------------------------------------------------------------------------------

def test_adapter_is_listed_with_its_state():
    adapter = nvidia_adapter()
    if adapter is None:
        assert not NVIDIA_LIBRARY.exists(), f"{NVIDIA_LIBRARY} was built but torch_hal.adapters() does not list it"
        pytest.skip("the NVIDIA adapter is not built (no CUDA compiler at build time)")
    assert adapter.state in ("loaded", "unavailable"), f"the NVIDIA adapter failed to load: {adapter.reason}"
    if adapter.state == "loaded":
        assert adapter.device_count >= 1 and adapter.reason == ""
        # HAL_VISIBLE_DEVICES may hide some of them (scripts/gpu_check.sh's amd step hides all).
        hidden = bool(os.environ.get("HAL_VISIBLE_DEVICES"))
        assert len(nvidia_devices()) <= adapter.device_count if hidden else len(nvidia_devices()) == adapter.device_count
    else:
        # A machine without a driver or GPU: a reason that names the cause, and no devices.
        assert adapter.device_count == 0
        assert re.search(r"driver|GPU", adapter.reason), adapter.reason
        assert not nvidia_devices()


# -- properties ----------------------------------------------------------------------------------------

def cuda_index_with_uuid(uuid: str):
    for i in range(torch.cuda.device_count()):
        if str(torch.cuda.get_device_properties(i).uuid).lower().removeprefix("gpu-") == uuid:
            return i
    return None


def test_properties_are_complete(device):
    p = torch.hal.get_device_properties(device)
    assert p.vendor == "nvidia" and p.name
    assert p.arch_name == f"sm_{p.major}{p.minor}"
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", p.uuid), p.uuid
    assert re.fullmatch(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]", p.pci_bus_id), p.pci_bus_id
    assert p.total_memory > 0 and p.multi_processor_count > 0
    assert p.clock_rate_khz > 0 and p.memory_clock_rate_khz > 0 and p.memory_bus_width > 0
    assert p.max_threads_per_block >= 1024 and p.shared_memory_per_block >= 48 * 1024
    assert p.supports_fp16 and p.supports_fp64
    assert p.supports_bf16 == (p.major >= 8)
    assert p.supports_fp8 == ((p.major, p.minor) >= (8, 9))
    assert not p.host_accessible
    assert p.memory_bandwidth_gbps > 100
    if (p.major, p.minor) in {(8, 0), (8, 6), (8, 9), (9, 0)} or p.major in (10, 12):
        assert 0 < p.peak_fp32_tflops < p.peak_bf16_tflops


@pytest.mark.skipif(not torch.cuda.is_available(), reason="torch.cuda is not available to compare with")
def test_properties_match_torch_cuda(device):
    p = torch.hal.get_device_properties(device)
    i = cuda_index_with_uuid(p.uuid)
    assert i is not None, f"no torch.cuda device has the UUID {p.uuid}"
    c = torch.cuda.get_device_properties(i)
    assert p.name == c.name
    assert p.total_memory == c.total_memory
    assert p.multi_processor_count == c.multi_processor_count
    assert (p.major, p.minor) == (c.major, c.minor)
    if hasattr(c, "pci_bus_id"):
        domain, bus, dev = (int(x, 16) for x in re.split(r"[:.]", p.pci_bus_id)[:3])
        assert (domain, bus, dev) == (c.pci_domain_id, c.pci_bus_id, c.pci_device_id)


# -- memory ----------------------------------------------------------------------------------------------

def test_out_of_memory_is_reported_and_allocation_works_after(device):
    total = torch.hal.get_device_properties(device).total_memory
    with pytest.raises(torch.OutOfMemoryError):
        torch.empty(2 * total, dtype=torch.uint8, device=device)
    # The failed cudaMalloc must not linger as the thread's CUDA error: later allocations, copies and
    # kernel launches on this thread succeed.
    src = torch.arange(1 << 20, dtype=torch.float32)
    x = src.to(device)
    y = torch.empty_like(x)
    y.copy_(x)
    assert torch.equal(y.cpu(), src)
    assert torch.equal((x + 1).cpu(), src + 1)


def test_memory_info(device):
    free, total = torch.hal.mem_get_info(device)
    assert 0 < free <= total == torch.hal.get_device_properties(device).total_memory


def test_pinned_host_copies(device):
    with torch.hal.device(device):
        src = torch.randn(1 << 16).pin_memory("hal")
        assert src.is_pinned("hal")
        pinned_back = torch.empty_like(src).pin_memory("hal")
    pinned_back.copy_(src.to(device, non_blocking=True), non_blocking=True)
    torch.hal.synchronize(device)
    assert torch.equal(pinned_back, src)


# -- streams and events ------------------------------------------------------------------------------------

def test_event_orders_two_streams(device):
    n = 1 << 24  # 64 MiB per copy: enough queued work that missing ordering would show
    src = torch.arange(n, dtype=torch.float32).to(device)
    middle = torch.zeros(n, device=device)
    final = torch.zeros(n, device=device)
    torch.hal.synchronize(device)
    producer, consumer = torch.hal.Stream(device), torch.hal.Stream(device)
    start, end = torch.hal.Event(enable_timing=True), torch.hal.Event(enable_timing=True)
    ready = torch.hal.Event()
    with torch.hal.stream(producer):
        start.record()
        for _ in range(20):
            middle.copy_(src)
        end.record()
        ready.record()
    consumer.wait_event(ready)
    with torch.hal.stream(consumer):
        final.copy_(middle)
    consumer.synchronize()
    assert ready.query() and end.query()
    assert torch.equal(final.cpu(), src.cpu())
    assert start.elapsed_time(end) > 0


def test_kernels_launch_from_threads_new_to_cuda(device):
    """The adapter launches kernels through the driver (kernels/kernel_launch.h). A thread that has made no
    CUDA call yet has no current context for the driver; its launches must still run, and correctly."""
    results, errors = [], []

    def work():
        try:
            x = torch.arange(1000, device=device, dtype=torch.float32)
            results.append((x * 2 + 1).relu().sum().item())  # sum of the first 1000 odd numbers: 1000 ** 2
        except Exception as error:  # noqa: BLE001 (reported by the assertion below)
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert results == [1000.0 ** 2] * 4


# Split reductions (a bias gradient: a sum over the 4096 rows of [4096, 256]) and layer-norm backward
# write partial results to their stream's scratch buffer (stream_scratch.h), which one op at a time uses.

def test_split_reductions_from_threads_on_one_stream(device):
    """Threads whose reductions interleave on the default stream each get their own results."""
    errors = []

    def work(k):
        try:
            x = torch.full((4096, 256), float(k + 1), device=device)
            for _ in range(50):
                column_sums = x.sum(0)
                if not torch.equal(column_sums.cpu(), torch.full((256,), 4096.0 * (k + 1))):
                    errors.append(f"thread {k}: {column_sums.cpu()[:4]}")
                    return
        except Exception as error:  # noqa: BLE001 (reported by the assertion below)
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


def test_split_reductions_on_two_streams_at_once(device):
    x = torch.full((8192, 512), 1.0, device=device)
    y = torch.full((8192, 512), 2.0, device=device)
    weight = torch.ones(512, device=device, requires_grad=True)
    torch.hal.synchronize(device)
    first, second = torch.hal.Stream(device), torch.hal.Stream(device)
    sums, grads = [], []
    for _ in range(10):
        with torch.hal.stream(first):
            sums.append((x.sum(0), 8192.0))
        with torch.hal.stream(second):
            sums.append((y.sum(0), 16384.0))
            out = torch.nn.functional.layer_norm(y, [512], weight)
            grads.append(torch.autograd.grad(out.sum(), weight)[0])
    torch.hal.synchronize(device)
    for got, want in sums:
        assert torch.equal(got.cpu(), torch.full((512,), want))
    for grad in grads:  # y's rows are constant: every normalized value, so every weight gradient, is 0
        assert torch.equal(grad.cpu(), torch.zeros(512))


def test_stream_priorities_and_query(device):
    high, low = torch.hal.Stream(device, priority=-1), torch.hal.Stream(device, priority=0)
    x = torch.arange(1000, dtype=torch.float32).to(device)
    for s in (high, low):
        with torch.hal.stream(s):
            y = x.clone()
        s.synchronize()
        assert s.query()
        assert torch.equal(y.cpu(), x.cpu())


# -- several GPUs ----------------------------------------------------------------------------------------

@pytest.mark.skipif(len(nvidia_devices()) < 2, reason="needs two NVIDIA GPUs")
def test_peer_copies_between_gpus():
    d0, d1 = nvidia_devices()[:2]
    src = torch.randn(1 << 20)
    a = src.to(d0)
    b = a.to(d1)
    assert b.device == d1 and torch.equal(b.cpu(), src)
    back = b.to(d0)
    assert torch.equal(back.cpu(), src)
    # strided source and destination
    m = torch.randn(256, 512)
    t = m.to(d0).t()
    out = torch.zeros(512, 256, device=d1)
    out.copy_(t)
    assert torch.equal(out.cpu(), m.t())
