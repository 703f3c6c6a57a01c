"""Python backends (torch_hal.CustomDeviceBackend) bridged into the core as adapters. Each test runs in a
fresh interpreter: registered devices stay for the life of a process."""
import textwrap

from conftest import REPO_ROOT, run_python

HELPERS = str(REPO_ROOT / "tests" / "python")


def run(code: str, **env):
    out = run_python(textwrap.dedent(code), PYTHONPATH=HELPERS + ":" + str(REPO_ROOT), **env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-4000:]
    return out.stdout


def test_the_api_of_the_issue_with_memory_that_really_holds_the_tensors():
    stdout = run("""
        import warnings; warnings.simplefilter("ignore")
        import torch, torch_hal
        from torch_hal import register_custom_device, CustomDeviceBackend, PrivateUse1Config, HardwareVendor

        class MyCustomBackend(CustomDeviceBackend):
            def initialize_device(self, device_id):
                self.initialized = getattr(self, "initialized", []) + [device_id]
            def get_device_count(self):
                return 2
            def get_device_properties(self, device_id):
                return {"name": f"My ASIC #{device_id}", "total_memory": 1 << 28, "vendor": "custom_asic"}
            def allocate_memory(self, size, device_id):
                buffer = bytearray(size)
                self.live = getattr(self, "live", []) + [buffer]
                return buffer
            def copy_to_device(self, tensor, device_id):
                self.copies_in = getattr(self, "copies_in", 0) + 1
                tensor.dst[:] = tensor.src

        backend = MyCustomBackend("my_asic", HardwareVendor.CUSTOM_ASIC)
        devices = register_custom_device(backend, PrivateUse1Config())
        assert devices == [torch.device("hal", 1), torch.device("hal", 2)], devices
        assert backend.initialized == [0, 1]
        props = torch.hal.get_device_properties(devices[1])
        assert (props.name, props.vendor, props.adapter, props.total_memory) == ("My ASIC #1", "custom_asic", "my_asic", 1 << 28)
        assert not props.host_accessible

        x = torch.arange(1000, dtype=torch.float32) * 1.5 + 0.25
        on_device = x.to(devices[1])
        assert backend.copies_in >= 1
        # The bytes are in a bytearray the backend handed out.
        needle = x.numpy().tobytes()
        assert any(needle in bytes(b) for b in backend.live)
        assert torch.equal(on_device.cpu(), x)
        y = (on_device * 2).relu().sum()  # the CPU fallback, results back in the backend's memory
        assert y.device == devices[1] and y.item() == (x * 2).sum().item()
        assert torch.equal(on_device.to(devices[0]).cpu(), x)  # across two devices of the backend
        assert torch.equal(on_device.to("hal:0").cpu(), x)     # and to the host device
        print("OK", torch_hal.adapters()[-1].path)
    """)
    assert "OK python:my_asic" in stdout


def test_model_trains_on_a_python_backend_like_on_cpu():
    run("""
        import warnings; warnings.simplefilter("ignore")
        import torch
        from torch_hal import register_custom_device
        from custom_backends import RecordingBackend

        backend = RecordingBackend()
        device = register_custom_device(backend)[0]
        torch.manual_seed(0)
        x = torch.randn(64, 8); y = x[:, :1] * 3 - x[:, 2:3]
        def train(where):
            torch.manual_seed(1)
            model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).to(where)
            opt = torch.optim.Adam(model.parameters(), lr=0.01)
            losses = []
            for _ in range(25):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x.to(where)), y.to(where))
                loss.backward(); opt.step(); losses.append(loss.item())
            if where != "cpu":
                assert backend.holds(model[0].weight.detach().cpu())  # the weights live in the backend
            return losses, [p.detach().cpu() for p in model.parameters()]
        dev_losses, dev_params = train(device)
        cpu_losses, cpu_params = train("cpu")
        assert dev_losses[-1] < 0.5 * dev_losses[0], dev_losses
        torch.testing.assert_close(torch.tensor(dev_losses), torch.tensor(cpu_losses), rtol=1e-4, atol=1e-5)
        for a, b in zip(dev_params, cpu_params):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
        assert backend.calls["copy_to_device"] > 0 and backend.calls["copy_from_device"] > 0
        torch.hal.synchronize(device)
        assert backend.calls["synchronize"] >= 1
    """)


def test_freed_memory_returns_to_the_backend():
    run("""
        import gc, time, torch
        from torch_hal import register_custom_device
        from custom_backends import RecordingBackend

        backend = RecordingBackend(device_count=1)
        device = register_custom_device(backend)[0]
        t = torch.ones(1 << 20, device=device)
        free_before, total = torch.hal.mem_get_info(device)  # backend's get_memory_info override
        assert total == backend.memory_per_device and free_before <= total - (4 << 20)
        del t
        torch.hal.empty_cache()
        for _ in range(100):  # free_memory runs on the next Python call after the core let go of it
            if backend.calls["free_memory"]:
                break
            time.sleep(0.01)
        assert backend.calls["free_memory"] >= 1 and not backend.buffers
        assert torch.hal.mem_get_info(device)[0] == total
    """)


def test_exceptions_in_backend_methods_name_the_backend_and_leave_the_rest_working():
    stdout = run("""
        import torch, torch_hal
        from torch_hal import register_custom_device, PrivateUse1Config
        from custom_backends import FailingBackend, RecordingBackend

        good = register_custom_device(RecordingBackend(device_count=1))[0]
        x = torch.arange(8.).to(good)

        def error_of(fn):
            try:
                fn()
            except Exception as e:
                return type(e).__name__ + ": " + str(e)
            raise AssertionError("no exception")

        print("COUNT|" + error_of(lambda: register_custom_device(FailingBackend("bad_count", "get_device_count"))))
        print("PROPS|" + error_of(lambda: register_custom_device(FailingBackend("bad_props", "get_device_properties"))))
        alloc = register_custom_device(FailingBackend("bad_alloc", "allocate_memory"))[0]
        print("ALLOC|" + error_of(lambda: torch.ones(4, device=alloc)))
        oom = register_custom_device(FailingBackend("oom_alloc", "allocate_memory", MemoryError("card full")))[0]
        print("OOM|" + error_of(lambda: torch.ones(4, device=oom)))
        copy = register_custom_device(FailingBackend("bad_copy", "copy_to_device"))[0]
        print("COPY|" + error_of(lambda: torch.ones(4).to(copy)))
        print("DUP|" + error_of(lambda: register_custom_device(RecordingBackend(device_count=1))))

        # Everything else still works, the failing backends' other paths included.
        assert (x * 2).cpu().tolist() == [float(2 * i) for i in range(8)]
        assert torch.ones(3, device="hal:0").sum().item() == 3
        assert torch.empty(4, device=copy).device == copy  # its allocation still works
        states = [(a.name, a.state) for a in torch_hal.adapters()]
        assert ("py_recording", "loaded") in states and ("py_recording", "unavailable") in states  # the duplicate
        assert "bad_count" not in dict(states)  # refused before it reached the core
        print("OK")
    """)
    lines = dict(line.split("|", 1) for line in stdout.splitlines() if "|" in line)
    assert lines["COUNT"].startswith("RuntimeError") and "'bad_count'" in lines["COUNT"] \
        and "get_device_count() raised ValueError: get_device_count is broken on purpose" in lines["COUNT"]
    assert "'bad_props'" in lines["PROPS"] and "get_device_properties(0) raised ValueError" in lines["PROPS"]
    assert lines["ALLOC"].startswith("RuntimeError") and "bad_alloc" in lines["ALLOC"] \
        and "allocate_memory(" in lines["ALLOC"] and "ValueError: allocate_memory is broken on purpose" in lines["ALLOC"] \
        and "custom_backends.py" in lines["ALLOC"]
    assert lines["OOM"].startswith("OutOfMemoryError")
    assert "bad_copy" in lines["COPY"] and "copy_to_device" in lines["COPY"] and "broken on purpose" in lines["COPY"]
    assert lines["DUP"].startswith("ValueError") and "already loaded" in lines["DUP"]
    assert stdout.rstrip().endswith("OK")


def test_bad_answers_and_bad_configs_are_explained():
    stdout = run("""
        import torch
        from torch_hal import register_custom_device, CustomDeviceBackend, PrivateUse1Config

        class Stub(CustomDeviceBackend):  # the issue's skeleton, bodies left as `...`
            def initialize_device(self, device_id): ...
            def get_device_count(self): ...
            def get_device_properties(self, device_id): ...
            def allocate_memory(self, size, device_id): ...
            def copy_to_device(self, tensor, device_id): ...

        class Small(CustomDeviceBackend):
            def allocate_memory(self, size, device_id):
                return bytearray(16)

        def error_of(fn):
            try:
                fn()
            except Exception as e:
                return type(e).__name__ + ": " + str(e)
            raise AssertionError("no exception")

        print("STUB|" + error_of(lambda: register_custom_device(Stub("stub"))))
        none_alloc = register_custom_device(type("NoneAlloc", (CustomDeviceBackend,),
                                                 {"allocate_memory": lambda self, s, d: None})("none_alloc"))[0]
        print("NONE|" + error_of(lambda: torch.ones(2, device=none_alloc)))
        small = register_custom_device(Small("small"))[0]
        print("SMALL|" + error_of(lambda: torch.ones(2, device=small)))
        print("NAME|" + error_of(lambda: CustomDeviceBackend("no spaces")))
        print("MORE|" + error_of(lambda: register_custom_device(CustomDeviceBackend("more"), PrivateUse1Config(device_count=3))))
        print("BOTH|" + error_of(lambda: register_custom_device(CustomDeviceBackend("both"), PrivateUse1Config(backend_library="x.so"))))
        print("LIBMEM|" + error_of(lambda: register_custom_device(config=PrivateUse1Config(backend_library="libexample_asic.so", memory="1G"))))
        print("TYPE|" + error_of(lambda: register_custom_device(object())))
        capped = register_custom_device(CustomDeviceBackend("capped", device_count=3),
                                        PrivateUse1Config(device_count=2, memory="8M", backend_name="capped_asic"))
        assert len(capped) == 2 and torch.hal.get_device_properties(capped[1]).total_memory == 8 << 20
        assert torch.hal.get_device_properties(capped[0]).adapter == "capped_asic"
        print("CAP|" + error_of(lambda: torch.empty(16 << 20, dtype=torch.uint8, device=capped[0])))
        assert torch.ones(4, device=capped[0]).sum().item() == 4
        print("OK")
    """)
    lines = dict(line.split("|", 1) for line in stdout.splitlines() if "|" in line)
    assert "'stub'" in lines["STUB"] and "get_device_count() returned None" in lines["STUB"]
    assert "none_alloc" in lines["NONE"] and "NoneType" in lines["NONE"] and "writable contiguous buffer" in lines["NONE"]
    assert "small" in lines["SMALL"] and "holds only 16" in lines["SMALL"]
    assert lines["NAME"].startswith("ValueError") and "letter" in lines["NAME"]
    assert lines["MORE"].startswith("ValueError") and "device_count=3" in lines["MORE"]
    assert lines["BOTH"].startswith("ValueError") and "not both" in lines["BOTH"]
    assert lines["LIBMEM"].startswith("ValueError") and "EXAMPLE_ASIC_MEMORY" in lines["LIBMEM"]
    assert lines["TYPE"].startswith("TypeError")
    assert lines["CAP"].startswith("OutOfMemoryError")
    assert stdout.rstrip().endswith("OK")


def test_backends_beyond_the_table_pool_are_refused_clearly():
    stdout = run("""
        import torch, torch_hal
        from torch_hal import register_custom_device, CustomDeviceBackend
        from torch_hal.custom_device import MAX_PYTHON_BACKENDS

        # A refused registration gives its slot back.
        register_custom_device(CustomDeviceBackend("b0", memory_per_device="16M"))
        try:
            register_custom_device(CustomDeviceBackend("b0"))
        except ValueError:
            pass
        devices = [register_custom_device(CustomDeviceBackend(f"b{i}", memory_per_device="16M"))[0]
                   for i in range(1, MAX_PYTHON_BACKENDS)]
        try:
            register_custom_device(CustomDeviceBackend("one_too_many"))
        except ValueError as e:
            print("FULL|" + str(e))
        for i, d in enumerate(devices):  # each table reaches its own backend
            assert torch.full((3,), float(i), device=d).cpu().tolist() == [float(i)] * 3
            assert torch.hal.get_device_properties(d).adapter == f"b{i + 1}"
        print("OK", MAX_PYTHON_BACKENDS)
    """)
    assert "all 16 slots" in stdout and "OK 16" in stdout


def test_threads_allocating_on_a_python_backend_do_not_deadlock():
    run("""
        import threading, torch
        from torch_hal import register_custom_device
        from custom_backends import RecordingBackend

        device = register_custom_device(RecordingBackend(device_count=1, memory="1G"))[0]
        errors = []
        def worker(seed):
            try:
                for i in range(60):
                    n = 1000 + (seed * 7919 + i * 104729) % 400_000  # sizes that keep needing new segments
                    cpu = torch.full((n,), float(seed))
                    t = cpu.to(device)
                    assert torch.equal(t.cpu(), cpu)
                    del t
                    if i % 10 == 0:
                        torch.hal.empty_cache()
            except Exception as e:
                errors.append(e)
        threads = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
        for t in threads: t.start()
        for t in threads: t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "deadlock"
        assert not errors, errors
    """)


def test_a_garbage_collection_inside_allocate_memory_frees_tensors_of_the_same_device():
    # allocate_memory runs inside the caching allocator's call: a collection there frees hal tensors of this very
    # device on this thread. That free waits for the call to end (it used to deadlock on the allocator's lock).
    out = run("""
        import gc, torch
        from torch_hal import register_custom_device
        from custom_backends import RecordingBackend

        class Cycle:  # freed by the garbage collector only
            def __init__(self, t):
                self.t, self.me = t, self

        class CollectingBackend(RecordingBackend):
            def allocate_memory(self, size, device_id):
                gc.collect()
                return super().allocate_memory(size, device_id)

        device = register_custom_device(CollectingBackend(name="py_collecting", device_count=1, memory="1G"))[0]
        gc.disable()
        for i in range(20):
            Cycle(torch.full((1000 * (i + 1),), float(i)).to(device))  # each size needs a new segment
            t = torch.full((300_000 + 5000 * i,), 2.0).to(device)
            assert torch.equal(t.cpu(), torch.full((300_000 + 5000 * i,), 2.0))
        del t
        gc.collect(); torch.hal.synchronize()
        print("allocated", torch.hal.memory_allocated(device))
    """)
    assert "allocated 0" in out, out
