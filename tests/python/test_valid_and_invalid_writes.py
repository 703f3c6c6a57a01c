"""Writes that CPU and cuda treat in a particular way, on the host device with host access (ATen's CPU kernels in
place) and without it (the copy fallback, as on a discrete GPU without a native kernel): an output that partly
overlaps an input raises; an expanded destination is written; torch.use_deterministic_algorithms fills new memory;
a kernel that raises gives back the output it allocated; a CPU generator cannot drive a hal random op."""
import textwrap

import pytest

from conftest import run_python

SETTINGS = {"host_access": "1", "no_host_access": "0"}


def run(code, setting):
    out = run_python(textwrap.dedent(code), TORCH_HAL_HOST_ACCESSIBLE=SETTINGS[setting], PYTHONWARNINGS="ignore")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


@pytest.fixture(params=sorted(SETTINGS))
def setting(request):
    return request.param


def test_outputs_that_partly_overlap_an_input_raise_as_on_cpu(setting):
    run("""
        import torch, torch_hal
        cases = {
            "add out=": lambda x: torch.add(x[:8], 1, out=x[2:]),
            "add_": lambda x: x[2:].add_(x[:-2]),
            "exp out=": lambda x: torch.exp(x[:8], out=x[2:]),
            "where out=": lambda x: torch.where(x[:8] > 3, x[:8], x[1:9], out=x[2:]),
            "clamp out=": lambda x: torch.clamp(x[:8], 0, 5, out=x[2:]),
            "cumsum out=": lambda x: torch.cumsum(x[:8], 0, out=x[2:]),
            "gather out=": lambda x: torch.gather(x[:8], 0, torch.arange(8, device=x.device), out=x[2:]),
            "cat out=": lambda x: torch.cat([x[:4], x[4:8]], out=x[2:]),
            "sort out=": lambda x: torch.sort(x[:8], out=(x[2:], torch.empty(8, dtype=torch.long, device=x.device))),
        }
        for name, call in cases.items():
            for device in ("cpu", "hal"):
                x = torch.arange(10.0, device=device)
                try:
                    call(x)
                except RuntimeError as e:
                    assert "refer to a single memory location" in str(e), (name, device, str(e))
                else:
                    raise AssertionError(f"{name} on {device} did not raise: {x.cpu().tolist()}")
        # A full overlap (the very same elements) is no error, on CPU or hal.
        x = torch.arange(10.0, device="hal")
        torch.add(x[2:], 1, out=x[2:])
        assert x.cpu().tolist() == [0.0, 1.0] + [float(k + 1) for k in range(2, 10)]
    """, setting)


def test_expanded_destinations_are_written_as_on_cpu(setting):
    run("""
        import torch, torch_hal
        ops = {
            "fill_": lambda t: t.fill_(1.5),
            "zero_": lambda t: t.zero_(),
            "masked_fill_": lambda t: t.masked_fill_(torch.ones(3, 4, dtype=torch.bool, device=t.device), 2.0),
            "index_put_": lambda t: t.index_put_((torch.tensor([0], device=t.device),),
                                                  torch.tensor(5.0, device=t.device)),
        }
        for name, op in ops.items():
            got, want = torch.full((4,), 7.0, device="hal"), torch.full((4,), 7.0)
            op(got.expand(3, 4)); op(want.expand(3, 4))
            assert torch.equal(got.cpu(), want), (name, got.cpu(), want)
    """, setting)


def test_deterministic_mode_fills_new_memory_as_cpu_does(setting):
    run("""
        import math, torch, torch_hal
        torch.hal.empty_cache()
        junk = torch.full((1024,), 3.0, device="hal"); del junk   # the cache now holds 3.0s
        torch.use_deterministic_algorithms(True)
        floats = [torch.empty(1024, device="hal"), torch.empty_like(torch.ones(1024, device="hal")),
                  torch.empty_strided((32, 32), (1, 32), device="hal"), torch.ones(2, device="hal").new_empty(1024)]
        for t in floats:
            assert bool(t.cpu().isnan().all()), t
        ints = torch.empty(16, dtype=torch.int64, device="hal")
        assert ints.cpu().tolist() == [torch.iinfo(torch.int64).max] * 16
        grown = torch.zeros(4, device="hal")
        grown.resize_(1024)
        values = grown.cpu().tolist()
        assert values[:4] == [0.0] * 4 and all(math.isnan(v) for v in values[4:])
        torch.use_deterministic_algorithms(False)
    """, setting)


def test_a_kernel_that_raises_gives_its_output_back(setting):
    run("""
        import gc, torch, torch_hal
        flags = torch.ones(1000, dtype=torch.bool, device="hal")
        torch.hal.synchronize()
        before = torch.hal.memory_allocated()
        for _ in range(3):
            for call in (lambda: torch.abs(flags), lambda: torch.eye(3, dtype=torch.uint16, device="hal")):
                try:
                    call()
                except RuntimeError as e:
                    assert "not implemented for" in str(e), str(e)
                else:
                    raise AssertionError("the CPU kernel accepted what it refuses")
        gc.collect(); torch.hal.synchronize()
        assert torch.hal.memory_allocated() == before, torch.hal.memory_allocated() - before
    """, setting)


def test_a_cpu_generator_cannot_drive_a_hal_random_op(setting):
    run("""
        import torch, torch_hal
        cpu_generator = torch.Generator()
        for call in (lambda: torch.rand(3, device="hal", generator=cpu_generator),
                     lambda: torch.empty(3, device="hal").uniform_(generator=cpu_generator),
                     lambda: torch.empty(3, device="hal").normal_(generator=cpu_generator),
                     lambda: torch.randperm(5, device="hal", generator=cpu_generator)):
            try:
                call()
            except RuntimeError as e:
                assert "Expected a 'hal' device type for generator but found 'cpu'" in str(e), str(e)
            else:
                raise AssertionError("a CPU generator drove a hal random op")
        hal_generator = torch.Generator(device="hal").manual_seed(3)
        a = torch.rand(3, device="hal", generator=hal_generator)
        hal_generator.manual_seed(3)
        assert torch.equal(a.cpu(), torch.rand(3, device="hal", generator=hal_generator).cpu())
    """, setting)
