"""Issue 11 and 17 on an NVIDIA GPU as hal: the crashes and wrong results users hit, each compared with CPU."""
import pytest
import torch


def test_as_strided_views_copy_to_cpu(nvidia_device):
    base = torch.randn(64)
    h = base.to(nvidia_device)
    for size, stride, offset in [((3, 3), (1, 2), 1), ((4, 4), (0, 1), 5), ((2, 5), (7, 3), 0), ((8,), (8,), 0)]:
        assert torch.equal(h.as_strided(size, stride, offset).cpu(), base.as_strided(size, stride, offset))


def test_complex_fill_and_fft(nvidia_device):
    z = torch.full((4,), 1 + 2j, device=nvidia_device)
    assert z.cpu().tolist() == [1 + 2j] * 4
    x = torch.randn(4, 8, dtype=torch.complex64)
    r = torch.randn(4, 8)
    for f, a in [(torch.fft.fft2, x), (torch.fft.fftn, x), (torch.fft.ifft, x), (torch.fft.hfft, x),
                 (torch.fft.ihfft, r), (torch.fft.hfft2, x), (torch.fft.ihfftn, r)]:
        assert torch.allclose(f(a.to(nvidia_device)).cpu(), f(a), atol=1e-4), f.__name__


def test_view_based_ops(nvidia_device):
    x = torch.randn(2, 3, 8)
    h = x.to(nvidia_device)
    assert torch.equal(h.unfold(2, 3, 2).cpu(), x.unfold(2, 3, 2))
    assert torch.equal(h.tile(2, 1, 1).cpu(), x.tile(2, 1, 1))
    assert torch.equal(h.repeat(1, 2, 1).cpu(), x.repeat(1, 2, 1))
    assert torch.allclose(torch.nn.functional.instance_norm(h).cpu(), torch.nn.functional.instance_norm(x), atol=1e-5)
    c = torch.view_as_complex(h.reshape(-1, 2))
    assert torch.equal(torch.view_as_real(c).cpu(), x.reshape(-1, 2))


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU])
def test_rnn_matches_cpu(nvidia_device, cls):
    torch.manual_seed(0)
    ref = cls(8, 16, num_layers=2)
    x = torch.randn(5, 3, 8, requires_grad=True)
    ref(x)[0].square().sum().backward()
    dev = cls(8, 16, num_layers=2)
    dev.load_state_dict(ref.state_dict())
    dev = dev.to(nvidia_device)
    xh = x.detach().to(nvidia_device).requires_grad_()
    dev(xh)[0].square().sum().backward()
    assert torch.allclose(xh.grad.cpu(), x.grad, atol=1e-4)
    for a, b in zip(dev.parameters(), ref.parameters()):
        assert torch.allclose(a.grad.cpu(), b.grad, atol=1e-4)


def test_tied_weights_stay_tied(nvidia_device):
    emb = torch.nn.Embedding(10, 4)
    head = torch.nn.Linear(4, 10, bias=False)
    head.weight = emb.weight
    model = torch.nn.ModuleDict({"wte": emb, "lm_head": head}).to(nvidia_device)
    assert model["lm_head"].weight is model["wte"].weight


def test_overlapping_copy_raises(nvidia_device):
    a = torch.arange(6., device=nvidia_device)
    with pytest.raises(RuntimeError, match="single memory location"):
        a[1:].copy_(a[:-1])
    assert a.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_pinned_source_dropped_under_non_blocking_copy(nvidia_device):
    out = [torch.full((1 << 20,), float(k)).pin_memory().to(nvidia_device, non_blocking=True) for k in range(32)]
    torch.hal.synchronize()
    assert all(bool((d.cpu() == k).all()) for k, d in enumerate(out))
