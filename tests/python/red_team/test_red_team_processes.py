"""Red team, parts 6 to 8: processes. fork and spawn children of a process that uses hal, SIGINT in the middle
of a loop of hal ops, and interpreter exit with asynchronous work still queued, fifty times.

A forked child of a process that used hal either works or raises the clear error that names the spawn
start method (torch.cuda's "Cannot re-initialize CUDA in forked subprocess"), and never hangs, not even
when another thread of the parent was inside hal at the fork. Spawned children work.
"""
import pytest

from forked_cases import forked  # noqa: F401  (the fixture)

HOST_ACCESS = pytest.mark.parametrize("host_accessible", ["1", "0"], ids=["host_access", "no_host_access"])

FORK_AFTER_USE = """
    import json, multiprocessing as mp, os, sys, threading, time, warnings, torch, torch_hal
    warnings.simplefilter("ignore")  # the CPU fallback's notes, without host access

    x = torch.arange(4., device="hal")
    side = torch.hal.Stream()
    with torch.hal.stream(side):
        queued = [torch.randn(256, 256, device="hal") @ torch.randn(256, 256, device="hal") for _ in range(4)]
    stop = threading.Event()
    def busy():  # a parent thread inside hal (allocator, streams, copies) while the children are forked
        while not stop.is_set():
            (torch.randn(128, 128).to("hal") @ torch.ones(128, 128, device="hal")).sum().cpu()
            torch.hal.empty_cache()
    thread = threading.Thread(target=busy)
    thread.start()

    ACTIONS = {
        "inherited tensor": lambda: x.cpu().tolist(),
        "new tensor": lambda: torch.ones(2, device="hal").tolist(),
        "op on inherited": lambda: (x + 1).cpu().tolist(),
        "synchronize": lambda: torch.hal.synchronize(),
        "side stream synchronize": lambda: side.synchronize(),
        "event synchronize": lambda: pending.synchronize(),
        "event query": lambda: pending.query(),
        "stream": lambda: torch.hal.Stream().synchronize(),
        "device_count": lambda: torch.hal.device_count(),
        "properties": lambda: torch.hal.get_device_properties(0).name[:4],
        "memory_allocated": lambda: torch.hal.memory_allocated() >= 0,
        "empty_cache": lambda: torch.hal.empty_cache(),
        "pin_memory": lambda: torch.ones(2).pin_memory().tolist(),
        "manual_seed": lambda: torch.hal.manual_seed(0),
        "free inherited": lambda: queued.clear(),
        "nothing": lambda: None,
    }
    def child(name, results):
        try:
            results.put((name, "worked", repr(ACTIONS[name]())))
        except Exception as e:
            results.put((name, "raised", f"{type(e).__name__}: {e}"))

    source = torch.randn(1 << 24).pin_memory()  # 64 MiB
    target = torch.empty(1 << 24, device="hal")
    def queue_work():
        # Work still queued at the fork: the child has the queue, but not the worker thread that runs it,
        # so waiting for it there (synchronize, an event) would never end. Pinned copies are asynchronous
        # where the device is not host-accessible (a GPU's path); with host access they mostly finish at once.
        global pending
        with torch.hal.stream(side):
            for _ in range(2):
                target.copy_(source, non_blocking=True)
            pending = torch.hal.Event()
            pending.record(side)
        return not pending.query()

    ctx = mp.get_context("fork")
    report, pending_at_fork = {}, []
    for name in ACTIONS:
        pending_at_fork.append(queue_work())
        results = ctx.Queue()
        p = ctx.Process(target=child, args=(name, results))
        p.start()
        p.join(30)
        if p.is_alive():
            p.kill()
            report[name] = ["HANG"]
            continue
        try:
            report[name] = list(results.get(timeout=5)[1:]) + [p.exitcode]
        except Exception:
            report[name] = ["NO RESULT", p.exitcode]

    # A bare os.fork whose child leaves through the interpreter's whole exit (atexit, finalization).
    pid = os.fork()
    if pid == 0:
        try:
            x.cpu()
        except RuntimeError:
            pass
        sys.exit(0)
    deadline, status = time.monotonic() + 30, None
    while status is None and time.monotonic() < deadline:
        reaped, code = os.waitpid(pid, os.WNOHANG)
        status = os.waitstatus_to_exitcode(code) if reaped else None
        time.sleep(0.05)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    report["bare fork exit"] = ["exited", status] if status is not None else ["HANG"]

    stop.set()
    thread.join(30)
    print("REPORT " + json.dumps(report))
    print("PENDING AT FORK", sum(pending_at_fork), "of", len(pending_at_fork))
    print("PARENT", (x * 2).cpu().tolist(), torch.hal._is_in_bad_fork())
"""

# What needs no device must work in a forked child; what touches the device must raise the bad-fork error.
MUST_WORK = ("device_count", "properties", "free inherited", "nothing")
MUST_RAISE = ("inherited tensor", "new tensor", "op on inherited", "pin_memory", "stream")
# Where the parent's work is still queued, waiting for it can only raise (it used to wait forever).
RAISE_WHEN_PENDING = ("synchronize", "side stream synchronize", "event synchronize", "event query")


@HOST_ACCESS
def test_fork_after_use_works_or_raises_clearly_and_never_hangs(forked, host_accessible):
    result = forked.run(FORK_AFTER_USE, env={"TORCH_HAL_HOST_ACCESSIBLE": host_accessible}, timeout=300)
    result.assert_clean_exit()
    [report] = result.lines("REPORT ")
    for name, outcome in report.items():
        assert outcome[0] in ("worked", "raised", "exited"), (name, outcome, str(result))
        if outcome[0] == "raised":
            assert "forked after its parent used a hal device" in outcome[1] and "'spawn'" in outcome[1], outcome
        assert outcome[-1] == 0, (name, outcome)  # the child itself ended cleanly
    for name in MUST_WORK:
        assert report[name][0] == "worked", (name, report[name])
    for name in MUST_RAISE:
        assert report[name][0] == "raised", (name, report[name])
    if host_accessible == "0":  # the queued work was really still queued at most forks
        pending = int(result.stdout.split("PENDING AT FORK ")[1].split()[0])
        assert pending >= len(report) // 2, str(result)
    for name in RAISE_WHEN_PENDING:
        assert report[name][0] == "raised", (name, report[name])
    assert "PARENT [0.0, 2.0, 4.0, 6.0] False" in result.stdout, str(result)


def test_fork_pool_after_use_raises_in_the_parent_and_spawn_works(forked):
    result = forked.run("""
        import multiprocessing as mp, torch, torch_hal
        from hal_workers import double_on_hal, double_on_hal_returning

        x = torch.ones(3, device="hal") * 2  # the parent uses hal first
        with mp.get_context("fork").Pool(2) as pool:
            try:
                print("FORK POOL", pool.map_async(double_on_hal_returning, [[1.0], [2.0]]).get(timeout=60))
            except RuntimeError as e:
                print("FORK POOL RAISED", "'spawn'" in str(e))

        ctx = mp.get_context("spawn")
        results = ctx.Queue()
        p = ctx.Process(target=double_on_hal, args=([1.0, 2.5], results))
        p.start()
        print("SPAWN", results.get(timeout=240))
        p.join(60)
        print("SPAWN EXIT", p.exitcode)
        print("PARENT", x.cpu().tolist())
    """, timeout=300)
    result.assert_clean_exit()
    assert "FORK POOL RAISED True" in result.stdout, str(result)
    assert "SPAWN ('ok', [2.0, 5.0], 1)" in result.stdout and "SPAWN EXIT 0" in result.stdout, str(result)
    assert "PARENT [2.0, 2.0, 2.0]" in result.stdout


# -- SIGINT ------------------------------------------------------------------------------------------

LONG_LOOP = """
    import torch, torch_hal
    x = torch.randn(256, 256, device="hal")
    side = torch.hal.Stream()
    print("READY", flush=True)
    steps = 0
    try:
        while True:
            with torch.hal.stream(side):
                x = (x @ x).tanh_()
            y = x.to("cpu", non_blocking=True)
            x = y.to("hal", non_blocking=True)
            steps += 1
    except KeyboardInterrupt:
        print("INTERRUPTED", steps > 0, flush=True)
    torch.hal.synchronize()
    a = torch.arange(16.).reshape(4, 4)
    print("AFTER", torch.equal((a.to("hal") @ a.to("hal")).cpu(), a @ a), flush=True)
"""


@HOST_ACCESS
def test_sigint_in_a_loop_of_hal_ops_raises_keyboard_interrupt(forked, host_accessible):
    result = forked.run(LONG_LOOP, signal_after="READY", timeout=120,
                        env={"TORCH_HAL_HOST_ACCESSIBLE": host_accessible})
    assert result.signalled, str(result)
    result.assert_clean_exit()
    assert "INTERRUPTED True" in result.stdout and "AFTER True" in result.stdout, str(result)


def test_uncaught_sigint_ends_the_process_as_python_does(forked):
    result = forked.run("""
        import torch, torch_hal
        x = torch.randn(256, 256, device="hal")
        print("READY", flush=True)
        while True:
            x = (x @ x).tanh_()
            x.to("cpu", non_blocking=True)
    """, signal_after="READY", timeout=120)
    assert result.signalled and not result.timed_out, str(result)
    assert result.returncode == -2, str(result)  # Python re-raises SIGINT after reporting KeyboardInterrupt
    assert result.stderr.rstrip().endswith("KeyboardInterrupt"), str(result)
    assert "terminate called" not in result.stderr and "Fatal Python error" not in result.stderr, str(result)


# -- exit with work queued -----------------------------------------------------------------------------

QUEUED_AT_EXIT = [
    # matrix products queued on a side stream, a non-blocking copy out still running
    """
    import torch, torch_hal
    s = torch.hal.Stream()
    with torch.hal.stream(s):
        a = torch.randn(384, 384, device="hal")
        for _ in range(8):
            a = a @ a
        out = a.to("cpu", non_blocking=True)
    """,
    # non-blocking copies in from pinned memory, dropped at once
    """
    import torch, torch_hal
    for k in range(16):
        torch.full((1 << 18,), float(k)).pin_memory().to("hal", non_blocking=True)
    """,
    # backward on the device's autograd thread, then straight out
    """
    import torch, torch_hal
    m = torch.nn.Linear(64, 64).to("hal")
    m(torch.randn(32, 64, device="hal")).sum().backward()
    """,
    # an event recorded behind queued work on a stream that is never synchronized
    """
    import torch, torch_hal
    s = torch.hal.Stream()
    with torch.hal.stream(s):
        x = torch.randn(512, 512, device="hal") @ torch.randn(512, 512, device="hal")
    e = torch.hal.Event()
    e.record(s)
    """,
]


def test_exit_with_asynchronous_work_queued_fifty_times(forked):
    failures = []
    for i in range(50):
        code = QUEUED_AT_EXIT[i % len(QUEUED_AT_EXIT)]
        result = forked.run(code, name=f"exit {i}", env={"TORCH_HAL_HOST_ACCESSIBLE": str((i // 4) % 2)}, timeout=60)
        problems = [p for p in ("terminate called", "Traceback", "Exception ignored", "Fatal Python error",
                                "exit_safety") if p in result.stderr]
        if result.timed_out or result.returncode != 0 or problems:
            failures.append(str(result))
    assert not failures, f"{len(failures)} of 50 exits were not clean:\n" + "\n".join(failures[:3])
