"""Red team, part 4: out of memory, then recovery.

The host device's capacity is settable (TORCH_HAL_HOST_MEMORY): fill it until torch.OutOfMemoryError,
check that what was allocated before is intact and the error says what to do, free everything, and keep
computing with correct results; a second fill must reach as far as the first (nothing leaked). Both with
host access (CPU kernels in place) and without (the discrete-GPU path: copies and the CPU fallback).
"""
import pytest

from forked_cases import forked  # noqa: F401  (the fixture)

HOST_ACCESS = pytest.mark.parametrize("host_accessible", ["1", "0"], ids=["host_access", "no_host_access"])

FILL_FREE_CONTINUE = """
    import torch, torch_hal

    def fill():
        chunks = []
        try:
            while True:  # 4 MiB each; tagged, to see that nothing is overwritten
                chunks.append(torch.full((1 << 20,), float(len(chunks)), device="hal"))
        except torch.OutOfMemoryError as e:
            return chunks, str(e)

    chunks, message = fill()
    first = len(chunks)
    print("FILLED", first)
    print("MESSAGE", message.replace("\\n", " "))
    print("INTACT", all(bool((c.cpu() == k).all()) for k, c in enumerate(chunks)))
    print("OOMS", torch.hal.memory_stats()["num_ooms"] >= 1)
    del chunks
    torch.hal.empty_cache()
    print("ALLOCATED", torch.hal.memory_allocated())

    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(512, 512, generator=g), torch.randn(512, 512, generator=g)
    got = (a.to("hal") @ b.to("hal")).softmax(dim=1).sum(dim=0).cpu()
    print("CORRECT", torch.allclose(got, (a @ b).softmax(dim=1).sum(dim=0), atol=1e-4))

    chunks, _ = fill()
    print("REFILLED", len(chunks) == first)
"""


@HOST_ACCESS
def test_out_of_memory_then_recovery(forked, host_accessible):
    result = forked.run(FILL_FREE_CONTINUE, env={"TORCH_HAL_HOST_MEMORY": "64M",
                                                 "TORCH_HAL_HOST_ACCESSIBLE": host_accessible}, timeout=120)
    result.assert_clean_exit()
    filled = int(result.stdout.split("FILLED ")[1].split()[0])
    assert 12 <= filled <= 16, str(result)
    message = result.stdout.split("MESSAGE ")[1].splitlines()[0]
    assert "hal:0" in message and "out of memory" in message and "tried to allocate 4.00 MiB" in message, message
    assert "TORCH_HAL_HOST_MEMORY" in message or "empty_cache" in message, message  # what to try
    for line in ("INTACT True", "OOMS True", "ALLOCATED 0", "CORRECT True", "REFILLED True"):
        assert line in result.stdout, (line, str(result))


def test_small_tensor_on_a_device_smaller_than_a_segment(forked):
    # The caching allocator reserves 2 MiB segments for small tensors. On a device with less free than
    # that, a 12-byte tensor failed with "12 bytes ... 1.00 MiB free": the error contradicted itself.
    result = forked.run("""
        import torch, torch_hal
        x = torch.ones(3, device="hal")
        y = torch.arange(1000., device="hal")
        print("VALUES", (x * 2).cpu().tolist(), y.sum().item())
        try:
            torch.empty(2 << 20, dtype=torch.uint8, device="hal")
        except torch.OutOfMemoryError as e:
            print("OOM", "hal:0" in str(e))
    """, env={"TORCH_HAL_HOST_MEMORY": "1M"}, finalize=False)
    assert result.returncode == 0, str(result)
    assert "VALUES [2.0, 2.0, 2.0] 499500.0" in result.stdout and "OOM True" in result.stdout, str(result)
