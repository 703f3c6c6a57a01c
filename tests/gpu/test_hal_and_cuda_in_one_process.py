"""hal and torch.cuda tensors in one process (issue 39): copies both ways, any dtype and layout, copy_ and
non_blocking, where the hal device is the same GPU (device to device) or another device (through host memory)."""
import pytest
import torch

from conftest import gpu_hal_index

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or gpu_hal_index() is None,
                                reason="needs torch.cuda and a GPU hal device in one process")


@pytest.fixture
def pair():
    hal = torch.device("hal", gpu_hal_index())
    local = torch.hal.get_device_properties(hal.index).local_index
    return hal, torch.device("cuda", local)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.bool, torch.complex64])
def test_dense_copies_both_ways_keep_every_value(pair, dtype):
    hal, cuda = pair
    values = (torch.randn(1000, 37) * 100).to(dtype)
    on_cuda = values.to(cuda)
    on_hal = on_cuda.to(hal)
    assert on_hal.device == hal and torch.equal(on_hal.cpu(), values)
    back = on_hal.to(cuda)
    assert back.device == cuda and torch.equal(back.cpu(), values)


def test_strided_views_and_dtype_conversions(pair):
    hal, cuda = pair
    base = torch.randn(64, 48)
    views = [lambda t: t.t(), lambda t: t[::3, 1::2], lambda t: t.unfold(0, 4, 7),
             lambda t: t.as_strided((4, 1, 5), (1, 1000 if t.numel() > 1000 else 64, 9)), lambda t: t[:, 5]]
    for view in views:
        want = view(base)
        got_hal = view(base.to(cuda)).to(hal)
        assert torch.equal(got_hal.cpu(), want)
        got_cuda = view(base.to(hal)).to(cuda)
        assert torch.equal(got_cuda.cpu(), want)
    assert torch.equal(base.to(cuda).to(hal, dtype=torch.float16).cpu(), base.half())
    assert torch.equal(base.to(hal).to(cuda, dtype=torch.bfloat16).cpu(), base.bfloat16())


def test_copy_into_existing_tensors_and_non_blocking_order(pair):
    hal, cuda = pair
    for non_blocking in (False, True):
        src = torch.zeros(1 << 22, device=cuda)
        src.add_(3)  # queued on torch.cuda's stream: the copy must see it
        dst = torch.empty(1 << 22, device=hal)
        dst.copy_(src, non_blocking=non_blocking)
        dst.mul_(2)  # queued on hal's stream after the copy
        assert float(dst.sum().item()) == 6.0 * (1 << 22)
        out = torch.empty(1 << 22, device=cuda)
        out.copy_(dst, non_blocking=non_blocking)
        assert float(out.sum().item()) == 6.0 * (1 << 22)
        del src  # torch.cuda may reuse its memory at once: the copy has read it
        again = torch.full((1 << 22,), -1.0, device=cuda)
        assert float(dst.sum().item()) == 6.0 * (1 << 22) and float(again.sum().item()) == -(1 << 22)


def test_a_copy_between_the_host_device_and_cuda_goes_through_host_memory(pair):
    _, cuda = pair
    host = next((i for i in range(torch.hal.device_count()) if torch.hal.get_device_properties(i).vendor == "host"),
                None)
    if host is None:
        pytest.skip("no host device here")
    values = torch.randn(100)
    assert torch.equal(values.to(cuda).to(f"hal:{host}").cpu(), values)
    assert torch.equal(values.to(f"hal:{host}").to(cuda).cpu(), values)
