"""Two devices of one adapter in one process (issue 15, part 3): the device guard, copies device to device,
streams and events that order work across the two, an op given tensors of both, and training on the second.

The pair is two NVIDIA GPUs where there are two, else two host devices (TORCH_HAL_HOST_DEVICES=2), so the same
checks run on a laptop. A process with no adapter of two devices (CI, whose pytest runs with one host device)
runs them in a child process with TORCH_HAL_HOST_DEVICES=2 (the last test), since the device list is read at
import; there the checks themselves skip, having run in the child.
"""

import os

import pytest
import torch

import torch_hal  # noqa: F401  (registers hal)
from conftest import run_pytest_child


def devices_of(adapter):
    return [torch.device("hal", i) for i in range(torch.hal.device_count())
            if torch.hal.get_device_properties(i).adapter == adapter]


def device_pair():
    for adapter in ("nvidia", "amd", "host"):
        found = devices_of(adapter)
        if len(found) >= 2:
            return found[:2]
    return None


PAIR = device_pair()


@pytest.fixture
def pair():
    if PAIR is None:
        pytest.skip("no adapter has two devices in this process: "
                    "test_the_checks_run_in_a_child_with_two_host_devices runs these with TORCH_HAL_HOST_DEVICES=2")
    d0, d1 = PAIR
    previous = torch.hal.current_device()
    yield d0, d1
    torch.hal.set_device(previous)


def test_device_guard_places_new_tensors_and_restores(pair):
    d0, d1 = pair
    torch.hal.set_device(d0)
    before = torch.hal.memory_allocated(d1.index)
    with torch.hal.device(d1):
        assert torch.hal.current_device() == d1.index
        x = torch.empty(1 << 20, device="hal")
        assert x.device == d1
        assert torch.hal.memory_allocated(d1.index) >= before + x.nbytes
    assert torch.hal.current_device() == d0.index
    assert torch.empty(4, device="hal").device == d0


def test_copies_between_devices_both_ways_and_strided(pair):
    d0, d1 = pair
    src = torch.randn(3 << 20)  # 12 MiB: several staging chunks where copies go through the host
    b = src.to(d0).to(d1)
    assert b.device == d1 and torch.equal(b.cpu(), src)
    assert torch.equal(b.to(d0).cpu(), src)
    m = torch.randn(300, 700)
    out = torch.zeros(700, 300, device=d1)
    out.copy_(m.to(d0).t())
    assert torch.equal(out.cpu(), m.t())
    # non_blocking copies on the destination's stream, then read after that stream's work
    nb = src.to(d0).to(d1, non_blocking=True)
    torch.hal.synchronize(d1)
    assert torch.equal(nb.cpu(), src)


def test_event_on_one_device_orders_a_stream_of_the_other(pair):
    d0, d1 = pair
    a = torch.randn(1024, 1024, device=d0)
    s0, s1 = torch.hal.Stream(d0), torch.hal.Stream(d1)
    with torch.hal.stream(s0):
        for _ in range(8):  # enough queued work that an unordered reader would see it unfinished
            a = a @ a / 1024
        done = torch.hal.Event()
        done.record(s0)
    s1.wait_event(done)
    with torch.hal.stream(s1):
        b = a.to(d1)
        c = b * 2
    s1.synchronize()
    assert done.query()
    torch.testing.assert_close(c.cpu(), a.cpu() * 2)


def test_an_op_given_tensors_of_both_devices_says_which(pair):
    d0, d1 = pair
    with pytest.raises(RuntimeError, match=r"(?s)hal:0.*hal:1|hal:1.*hal:0|same device"):
        torch.ones(4, device=d0) + torch.ones(4, device=d1)


def test_training_on_the_second_device_matches_cpu(pair):
    _, d1 = pair
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    reference = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    reference.load_state_dict(model.state_dict())
    model.to(d1)
    x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
    for m, dev in ((model, d1), (reference, torch.device("cpu"))):
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(m(x.to(dev)), y.to(dev)).backward()
            opt.step()
    assert all(p.device == d1 for p in model.parameters())
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-4, atol=1e-5)


def test_synchronize_and_memory_are_per_device(pair):
    d0, d1 = pair
    torch.hal.synchronize(d0)
    torch.hal.synchronize(d1)
    x = torch.empty(4 << 20, device=d1)
    assert torch.hal.memory_allocated(d1.index) >= x.nbytes
    del x
    torch.hal.empty_cache()
    assert torch.hal.memory_reserved(d1.index) < 4 << 20


def test_the_checks_run_in_a_child_with_two_host_devices():
    """Where this process has no pair, every check of this file runs in a child with two host devices and
    passes there: the child's own summary counts them all passed, none failed, and only this test skipped."""
    if PAIR is not None:
        pytest.skip(f"this process has a pair ({PAIR[0]}, {PAIR[1]}): the checks ran here")
    # The child must see the two host devices: a device filter or an adapter list of the parent (the AMD path's
    # HAL_VISIBLE_DEVICES=amd:0) would hide them, and the child would start a child of its own, without end.
    assert not os.environ.get("TORCH_HAL_TEST_PAIR_CHILD"), "the child with two host devices found no pair"
    checks = [name for name in globals()
              if name.startswith("test_") and name != "test_the_checks_run_in_a_child_with_two_host_devices"]
    counts, log = run_pytest_child(__file__, TORCH_HAL_HOST_DEVICES="2", TORCH_HAL_TEST_PAIR_CHILD="1",
                                   HAL_VISIBLE_DEVICES=None, TORCH_HAL_ADAPTERS=None)
    assert counts == {"passed": len(checks), "skipped": 1}, (counts, checks, log)
