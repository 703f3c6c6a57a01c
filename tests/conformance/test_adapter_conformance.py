"""The adapter conformance suite: one set of tests that runs over every device of every loaded adapter.

Memory, copies of every dtype and of non-contiguous and broadcast views, streams and events ordering, and
errors. Every adapter, built in or plugin, must pass it, except for gaps declared in known_gaps.py.
"""
import threading

import pytest
import torch

from known_gaps import gap_reason

ALL_DTYPES = [
    torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64, torch.complex128,
    torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32, torch.uint64,
    torch.bool, torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
]


def all_devices():
    return [torch.device("hal", i) for i in range(torch.hal.device_count())]


def device_id(d):
    return f"{d}-{torch.hal.get_device_properties(d).adapter}"


@pytest.fixture(params=all_devices(), ids=device_id)
def device(request):
    d = request.param
    reason = gap_reason(torch.hal.get_device_properties(d).adapter, request.node.originalname)
    if reason:
        pytest.skip(f"known gap: {reason}")
    return d


def random_of(dtype, shape, seed=0):
    """Random values of any dtype, made on the CPU (bits for float8, so every byte pattern occurs)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point and dtype.itemsize == 1:
        return torch.randint(0, 256, shape, generator=g, dtype=torch.uint8).view(dtype)
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, generator=g, dtype=dtype if dtype.itemsize >= 2 else torch.float32).to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -(2 ** 62)), min(info.max, 2 ** 62)
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.reshape(-1).contiguous().view(torch.uint8), b.reshape(-1).contiguous().view(torch.uint8))


# -- memory -----------------------------------------------------------------------------------------

def test_allocation_lands_on_device_and_is_counted(device):
    torch.hal.synchronize(device)
    before = torch.hal.memory_allocated(device)
    t = torch.empty(1 << 20, dtype=torch.uint8, device=device)
    assert t.device == device
    assert torch.hal.memory_allocated(device) >= before + (1 << 20)
    assert torch.hal.memory_reserved(device) >= torch.hal.memory_allocated(device)
    del t
    assert torch.hal.memory_allocated(device) == before


def test_stats_return_to_start_after_free(device):
    start = torch.hal.memory_allocated(device)
    tensors = [torch.empty(n, device=device) for n in (1, 100, 4096, 300_000, 3_000_000)]
    assert torch.hal.memory_allocated(device) > start
    assert torch.hal.memory_reserved(device) >= torch.hal.memory_allocated(device)
    del tensors
    assert torch.hal.memory_allocated(device) == start
    torch.hal.empty_cache()
    assert torch.hal.memory_reserved(device) >= torch.hal.memory_allocated(device)


def test_out_of_memory_is_clear_and_recoverable(device):
    total = torch.hal.get_device_properties(device).total_memory
    with pytest.raises(torch.OutOfMemoryError, match="out of memory"):
        torch.empty(total * 2, dtype=torch.uint8, device=device)
    t = torch.ones(1000, device=device)
    assert t.sum().item() == 1000


def test_mem_get_info(device):
    free, total = torch.hal.mem_get_info(device)
    assert 0 < free <= total == torch.hal.get_device_properties(device).total_memory


# -- copies -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_is_bit_exact_for_every_dtype_and_layout(device, dtype):
    base = random_of(dtype, (6, 10))
    views = {
        "contiguous": base,
        "transposed": base.t(),
        "sliced": base[1:5, 2:9:3],
        "expanded": base[:1].expand(4, 10),
        "scalar": base[2, 3],
        "empty": base[:0],
    }
    for name, cpu in views.items():
        on_device = cpu.to(device)
        assert on_device.device == device
        back = on_device.cpu()
        assert same_bits(back, cpu), f"{dtype} {name}"


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded"])
def test_copy_into_non_contiguous_destination(device, layout):
    dst_cpu = torch.zeros(8, 12)
    dst = dst_cpu.to(device)
    src = torch.arange(96, dtype=torch.float32).reshape(8, 12)
    if layout == "transposed":
        dst_view, dst_cpu_view, value = dst.t(), dst_cpu.t(), src.t()
    elif layout == "sliced":
        dst_view, dst_cpu_view, value = dst[2:6, 1::3], dst_cpu[2:6, 1::3], src[:4, :4]
    else:
        dst_view, dst_cpu_view, value = dst[3], dst_cpu[3], src[0, :1].expand(12)
    dst_view.copy_(value.to(device))
    dst_cpu_view.copy_(value)
    assert torch.equal(dst.cpu(), dst_cpu)


def test_copy_converts_dtype(device):
    src = torch.linspace(-3, 3, 50)
    for dtype in (torch.float16, torch.bfloat16, torch.int32, torch.float64, torch.bool):
        assert torch.equal(src.to(device).to(dtype).cpu(), src.to(dtype))
        assert torch.equal(src.to(device, dtype=dtype).cpu(), src.to(dtype))


def test_device_to_device_copy(device):
    x = torch.randn(1000).to(device)
    y = torch.empty_like(x)
    y.copy_(x)
    assert torch.equal(y.cpu(), x.cpu())
    for other in all_devices():
        assert torch.equal(x.to(other).cpu(), x.cpu())


def test_non_blocking_copies_with_pinned_memory(device):
    host = torch.arange(1 << 16, dtype=torch.float32).pin_memory("hal")
    assert host.is_pinned("hal")
    on_device = host.to(device, non_blocking=True)
    back = torch.empty_like(host).pin_memory("hal")
    back.copy_(on_device, non_blocking=True)
    torch.hal.synchronize(device)
    assert torch.equal(back, host)


# -- streams and events ---------------------------------------------------------------------------

def test_stream_and_event_ordering(device):
    side = torch.hal.Stream(device)
    x = torch.zeros(1 << 22, device=device)
    host = torch.ones(1 << 22).pin_memory("hal")
    # The zeros are written on the current stream: the side stream's copy must come after them (as with
    # torch.cuda, streams other than the legacy default one are not ordered with each other).
    side.wait_stream(torch.hal.current_stream(device))
    with torch.hal.stream(side):
        x.copy_(host, non_blocking=True)
        done = torch.hal.Event()
        done.record(side)
    torch.hal.current_stream(device).wait_event(done)
    assert x.sum().item() == float(1 << 22)
    done.synchronize()
    assert done.query()
    assert side.query()


def test_event_elapsed_time(device):
    """Three timing events: the first two around a host sleep of 50 ms on an idle stream (the device reaches
    the first at once, and cannot reach the second before it is recorded, 50 ms later), the last after a
    matmul. Elapsed times measure at least the sleep, are positive across work, add up, are bounded by the
    wall-clock time around them, and change sign when the events are swapped."""
    import time
    sleep_s = 0.05
    start, mid, end = (torch.hal.Event(enable_timing=True) for _ in range(3))
    a, b = torch.randn(512, 512, device=device), torch.randn(512, 512, device=device)
    torch.hal.synchronize(device)
    with torch.hal.device(device):
        wall = time.perf_counter()
        start.record()
        time.sleep(sleep_s)
        mid.record()
        y = a @ b
        end.record()
    end.synchronize()
    wall_ms = (time.perf_counter() - wall) * 1e3
    slept, worked, total = start.elapsed_time(mid), mid.elapsed_time(end), start.elapsed_time(end)
    assert slept >= 0.8 * sleep_s * 1e3, (slept, "ms: the events did not measure the 50 ms between them")
    assert worked > 0.0, worked
    assert total == pytest.approx(slept + worked, abs=0.01)
    assert total <= wall_ms + 1.0, (total, wall_ms)
    assert end.elapsed_time(start) == pytest.approx(-total, abs=0.01)
    assert y.shape == (512, 512)


def test_many_threads_allocate_copy_and_free(device):
    import random
    import time
    torch.hal.synchronize(device)
    start = torch.hal.memory_allocated(device)
    errors = []
    deadline = time.monotonic() + 3.0
    iterations = [0] * 8

    def worker(seed):
        rng = random.Random(seed)
        try:
            while time.monotonic() < deadline:
                iterations[seed] += 1
                n = rng.randint(1, 200_000)
                cpu = torch.full((n,), float(seed))
                t = cpu.to(device)
                assert torch.equal(t.cpu(), cpu)
                del t
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(n > 0 for n in iterations), iterations
    torch.hal.synchronize(device)
    assert torch.hal.memory_allocated(device) == start


# -- errors -----------------------------------------------------------------------------------------

def test_mixing_devices_is_refused(device):
    a = torch.ones(4, device=device)
    with pytest.raises(RuntimeError, match="same device"):
        a + torch.ones(4)
