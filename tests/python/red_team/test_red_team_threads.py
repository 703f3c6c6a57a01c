"""Red team, part 5: eight threads doing ops and copies on hal at once, each result compared with the same
computation on the CPU. Threads mix blocking and non-blocking copies (pinned and pageable), their own
streams and the default one, device-to-device copies, and allocations that keep the caching allocator
splitting and merging; one more thread keeps synchronizing and emptying the cache under them.
"""
import pytest

from forked_cases import forked  # noqa: F401  (the fixture)

EIGHT_THREADS = """
    import threading, torch, torch_hal

    errors, done = [], []
    stop = threading.Event()

    def work(seed):
        try:
            g = torch.Generator().manual_seed(seed)
            stream = torch.hal.Stream() if seed % 2 else None
            with torch.hal.stream(stream) if stream else torch.hal.device(0):
                for i in range(12):
                    n = 64 + (seed * 37 + i * 11) % 192
                    a, b = torch.randn(n, n, generator=g), torch.randn(n, generator=g)
                    src = a.pin_memory() if i % 3 == 0 else a
                    ha = src.to("hal", non_blocking=bool(i % 2))
                    hb = b.to("hal")
                    hc = torch.empty_like(ha)
                    hc.copy_(ha)                                  # device to device
                    out = ((hc @ ha).relu() + hb).softmax(dim=1)
                    want = ((a @ a).relu() + b).softmax(dim=1)
                    host = torch.empty(out.shape).pin_memory() if i % 4 == 0 else torch.empty(out.shape)
                    host.copy_(out, non_blocking=bool(i % 2))
                    if stream:
                        stream.synchronize()
                    else:
                        torch.hal.synchronize()
                    if not torch.allclose(host, want, atol=1e-4):
                        errors.append(f"thread {seed} step {i}: wrong result")
                    s = hb.sum().item()
                    if abs(s - b.sum().item()) > 1e-3:
                        errors.append(f"thread {seed} step {i}: wrong sum")
            done.append(seed)
        except Exception as e:
            errors.append(f"thread {seed}: {type(e).__name__}: {e}")

    def housekeeping():
        while not stop.is_set():
            torch.hal.synchronize()
            torch.hal.empty_cache()
            torch.hal.memory_stats()

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    keeper = threading.Thread(target=housekeeping)
    keeper.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=150)
    stop.set()
    keeper.join(timeout=30)
    alive = [t.name for t in threads + [keeper] if t.is_alive()]
    print("ALIVE", alive)
    print("DONE", sorted(done))
    print("ERRORS", errors[:5])
"""


@pytest.mark.parametrize("host_accessible", ["1", "0"], ids=["host_access", "no_host_access"])
def test_eight_threads_of_ops_and_copies_match_cpu(forked, host_accessible):
    result = forked.run(EIGHT_THREADS, env={"TORCH_HAL_HOST_ACCESSIBLE": host_accessible}, timeout=240)
    result.assert_clean_exit()
    assert "ALIVE []" in result.stdout, str(result)  # a thread still running: a deadlock
    assert "DONE [0, 1, 2, 3, 4, 5, 6, 7]" in result.stdout and "ERRORS []" in result.stdout, str(result)
