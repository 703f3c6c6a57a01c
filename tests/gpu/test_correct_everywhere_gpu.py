"""Issue 11 and 17 on a GPU as hal (NVIDIA, or AMD through HIP): the crashes and wrong results users hit, each compared with CPU."""
import pytest
import torch


def test_as_strided_views_copy_to_cpu(gpu_device):
    base = torch.randn(64)
    h = base.to(gpu_device)
    for size, stride, offset in [((3, 3), (1, 2), 1), ((4, 4), (0, 1), 5), ((2, 5), (7, 3), 0), ((8,), (8,), 0)]:
        assert torch.equal(h.as_strided(size, stride, offset).cpu(), base.as_strided(size, stride, offset))


def test_complex_fill_and_fft(gpu_device):
    z = torch.full((4,), 1 + 2j, device=gpu_device)
    assert z.cpu().tolist() == [1 + 2j] * 4
    x = torch.randn(4, 8, dtype=torch.complex64)
    r = torch.randn(4, 8)
    for f, a in [(torch.fft.fft2, x), (torch.fft.fftn, x), (torch.fft.ifft, x), (torch.fft.hfft, x),
                 (torch.fft.ihfft, r), (torch.fft.hfft2, x), (torch.fft.ihfftn, r)]:
        assert torch.allclose(f(a.to(gpu_device)).cpu(), f(a), atol=1e-4), f.__name__


def test_view_based_ops(gpu_device):
    x = torch.randn(2, 3, 8)
    h = x.to(gpu_device)
    assert torch.equal(h.unfold(2, 3, 2).cpu(), x.unfold(2, 3, 2))
    assert torch.equal(h.tile(2, 1, 1).cpu(), x.tile(2, 1, 1))
    assert torch.equal(h.repeat(1, 2, 1).cpu(), x.repeat(1, 2, 1))
    assert torch.allclose(torch.nn.functional.instance_norm(h).cpu(), torch.nn.functional.instance_norm(x), atol=1e-5)
    c = torch.view_as_complex(h.reshape(-1, 2))
    assert torch.equal(torch.view_as_real(c).cpu(), x.reshape(-1, 2))


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU])
def test_rnn_matches_cpu(gpu_device, cls):
    torch.manual_seed(0)
    ref = cls(8, 16, num_layers=2)
    x = torch.randn(5, 3, 8, requires_grad=True)
    ref(x)[0].square().sum().backward()
    dev = cls(8, 16, num_layers=2)
    dev.load_state_dict(ref.state_dict())
    dev = dev.to(gpu_device)
    xh = x.detach().to(gpu_device).requires_grad_()
    dev(xh)[0].square().sum().backward()
    assert torch.allclose(xh.grad.cpu(), x.grad, atol=1e-4)
    for a, b in zip(dev.parameters(), ref.parameters()):
        assert torch.allclose(a.grad.cpu(), b.grad, atol=1e-4)


def test_tied_weights_stay_tied(gpu_device):
    emb = torch.nn.Embedding(10, 4)
    head = torch.nn.Linear(4, 10, bias=False)
    head.weight = emb.weight
    model = torch.nn.ModuleDict({"wte": emb, "lm_head": head}).to(gpu_device)
    assert model["lm_head"].weight is model["wte"].weight


def test_overlapping_copy_raises(gpu_device):
    a = torch.arange(6., device=gpu_device)
    with pytest.raises(RuntimeError, match="single memory location"):
        a[1:].copy_(a[:-1])
    assert a.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_pinned_source_dropped_under_non_blocking_copy(gpu_device):
    out = [torch.full((1 << 20,), float(k)).pin_memory().to(gpu_device, non_blocking=True) for k in range(32)]
    torch.hal.synchronize()
    assert all(bool((d.cpu() == k).all()) for k, d in enumerate(out))


def test_dlpack_exchanges_cuda_memory_with_torch_cuda_without_copies(nvidia_device):
    from torch.utils.dlpack import DLDeviceType

    h = torch.arange(12.0, device=nvidia_device).reshape(3, 4)
    local = torch.hal.get_device_properties(nvidia_device.index).local_index
    assert tuple(h.__dlpack_device__()) == (DLDeviceType.kDLCUDA, local)
    c = torch.from_dlpack(h, device=f"cuda:{local}")  # CUDA memory as kDLCUDA: torch.cuda takes it
    assert c.device.type == "cuda" and c.data_ptr() == h.data_ptr()
    c.mul_(2)
    torch.cuda.synchronize()
    assert h.cpu().tolist() == (torch.arange(12.0) * 2).reshape(3, 4).tolist()
    back = torch.from_dlpack(c, device=nvidia_device)  # and back, aliased, on hal
    assert back.device == nvidia_device and back.data_ptr() == h.data_ptr()
    assert torch.from_dlpack(h).device == nvidia_device  # a hal tensor stays on hal


def test_accelerator_api_on_the_gpu(gpu_device):
    torch.hal.set_device(gpu_device)
    before = torch.accelerator.memory_allocated(gpu_device)
    x = torch.empty(1 << 20, device=gpu_device)
    assert torch.accelerator.memory_allocated(gpu_device) - before == x.nbytes
    free, total = torch.accelerator.get_memory_info(gpu_device)
    assert 0 < free <= total
    assert torch.bfloat16 in torch.accelerator.get_device_capability(gpu_device)["supported_dtypes"]
    y = torch.randn(512, 512, device=gpu_device)
    with torch.autograd.profiler.profile(use_device="hal") as prof:
        (y @ y).sum()
    assert {e.key: e for e in prof.key_averages()}["aten::mm"].device_time_total > 0
