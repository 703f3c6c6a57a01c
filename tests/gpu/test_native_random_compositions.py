"""torch.normal with tensor arguments, torch.multinomial and F.rrelu on a GPU (random_compositions_ops.cpp:
composed from the device's uniform, normal and exponential draws), in strict mode (any CPU fallback fails). Their
values are random, so what is checked is what must hold for any draw (shapes, dtypes, supports, the noise rule of
rrelu, reproducibility under a seed) and their statistics against the distribution, with bounds of about six
standard errors (a false failure about once in 10^8 runs)."""
import math

import pytest
import torch
import torch.nn.functional as F


def test_normal_with_tensor_arguments(gpu_device):
    g = torch.Generator(device=gpu_device).manual_seed(0)
    mean = torch.linspace(-3, 3, 6, device=gpu_device).repeat(20000, 1)
    std = torch.linspace(0.5, 2, 6, device=gpu_device).repeat(20000, 1)
    with torch.hal.strict():
        draws = [torch.normal(mean, std, generator=g), torch.normal(mean, 1.5, generator=g),
                 torch.normal(0.5, std, generator=g)]
    expectations = [(mean[0], std[0]), (mean[0], torch.full((6,), 1.5)), (torch.full((6,), 0.5), std[0])]
    for x, (m, s) in zip(draws, expectations):
        assert x.shape == (20000, 6) and x.dtype == torch.float32 and x.device.type == "hal"
        m, s = m.cpu(), s.cpu()
        torch.testing.assert_close(x.mean(0).cpu(), m, rtol=0, atol=(6 * s / math.sqrt(20000)).max().item())
        torch.testing.assert_close(x.std(0).cpu(), s, rtol=0.03, atol=0)
    again = torch.normal(mean, std, generator=torch.Generator(device=gpu_device).manual_seed(0))
    assert torch.equal(again.cpu(), draws[0].cpu())
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        torch.normal(mean, -std)


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies(gpu_device, replacement):
    p = torch.tensor([[0.1, 0.0, 0.2, 0.3, 0.4], [5.0, 1.0, 0.0, 0.0, 4.0]])
    draws_per_row = 40000 if replacement else 3
    rounds = 1 if replacement else 20000
    counts = torch.zeros_like(p)
    g = torch.Generator(device=gpu_device).manual_seed(1)
    with torch.hal.strict():
        if replacement:
            idx = torch.multinomial(p.to(gpu_device), draws_per_row, replacement=True, generator=g).cpu()
            counts.scatter_add_(1, idx, torch.ones_like(idx, dtype=counts.dtype))
            expected = p / p.sum(1, keepdim=True) * draws_per_row
            assert torch.all((counts - expected).abs() <= 6 * expected.clamp_min(1).sqrt()), counts
        else:
            # Without replacement: each row's first draw follows p, and a row never repeats a category.
            rows = p.to(gpu_device).repeat(rounds, 1)
            idx = torch.multinomial(rows, 2, replacement=False, generator=g).cpu()
            assert torch.all(idx[:, 0] != idx[:, 1])
            first = idx[:, 0].view(rounds, 2)
            for r in range(2):
                freq = torch.bincount(first[:, r], minlength=5).float()
                expected = p[r] / p[r].sum() * rounds
                assert torch.all((freq - expected).abs() <= 6 * expected.clamp_min(1).sqrt()), (r, freq)
    assert counts[0, 1] == 0 and torch.all(counts[1, 2:4].eq(0))  # zero probabilities are never drawn
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        torch.multinomial(torch.tensor([0.5, -0.1], device=gpu_device), 1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        torch.multinomial(torch.ones(3, device=gpu_device), 4)


def test_rrelu_noise_rule(gpu_device):
    x = torch.linspace(-4, 4, 4000, device=gpu_device)  # no element at 0, where out / x could not give the slope
    with torch.hal.strict():
        out = F.rrelu(x, lower=0.1, upper=0.3, training=True)
        evaluated = F.rrelu(x, lower=0.1, upper=0.3, training=False)
    slopes = (out / x).cpu()
    negative = x.cpu() < 0
    assert torch.equal(out.cpu()[~negative], x.cpu()[~negative])
    assert slopes[negative].min() >= 0.1 - 1e-6 and slopes[negative].max() <= 0.3 + 1e-6
    assert abs(slopes[negative].mean().item() - 0.2) < 6 * 0.2 / math.sqrt(12 * 2000)  # U(0.1, 0.3): sd 0.2/sqrt(12)
    torch.testing.assert_close(evaluated.cpu(), F.leaky_relu(x.cpu(), 0.2))
    leaf = x.clone().requires_grad_()
    with torch.hal.strict():
        y = F.rrelu(leaf, 0.1, 0.3, training=True)
        y.sum().backward()
    torch.testing.assert_close(leaf.grad.cpu(), (y / leaf).detach().cpu().nan_to_num(1.0), rtol=1e-5, atol=1e-6)
