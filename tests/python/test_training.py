"""Training on hal matches training on the CPU: autograd, torch.optim and torch.nn through hal."""
import threading

import torch
import torch.nn as nn
import torch.nn.functional as F


def train(device, steps=30, optimizer="adam"):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    model = model.to(device)
    opt = (torch.optim.Adam(model.parameters(), lr=1e-3) if optimizer == "adam"
           else torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    g = torch.Generator().manual_seed(1)
    x_all = torch.randn(steps, 64, 784, generator=g)
    y_all = (x_all @ torch.randn(784, 10, generator=g)).argmax(dim=-1)  # a learnable teacher
    losses = []
    for i in range(steps):
        x, y = x_all[i].to(device), y_all[i].to(device)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def test_mlp_training_matches_cpu_to_1e5(hal0):
    for optimizer in ("adam", "sgd"):
        hal_losses, hal_model = train(hal0, optimizer=optimizer)
        cpu_losses, cpu_model = train(torch.device("cpu"), optimizer=optimizer)
        assert max(abs(a - b) for a, b in zip(hal_losses, cpu_losses)) <= 1e-5
        assert hal_losses[-1] < hal_losses[0]
        for p_hal, p_cpu in zip(hal_model.parameters(), cpu_model.parameters()):
            assert p_hal.device == hal0
            assert torch.allclose(p_hal.cpu(), p_cpu, atol=1e-5)


def test_gradients_of_functional_ops(hal0):
    torch.manual_seed(0)
    base = torch.randn(6, 5, dtype=torch.float64)
    ops = [
        lambda t: F.softmax(t, dim=1).sum(),
        lambda t: F.layer_norm(t, (5,)).pow(2).sum(),
        lambda t: F.gelu(t).mean(),
        lambda t: (t @ t.t()).tanh().sum(),
        lambda t: t.max(dim=0).values.sum() + t.logsumexp(dim=1).sum(),
        lambda t: F.mse_loss(t[:, :3], t[:, 2:].detach()),
    ]
    for op in ops:
        a = base.clone().requires_grad_()
        b = base.clone().to(hal0).requires_grad_()
        op(a).backward()
        op(b).backward()
        assert b.grad.device == hal0
        assert torch.allclose(b.grad.cpu(), a.grad, atol=1e-10)


def test_losses_raise_no_warning_that_cpu_does_not(hal0):
    import warnings
    x = torch.randn(6, 3, dtype=torch.float64)
    t = torch.randn(6, 3, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for loss in (F.mse_loss, F.l1_loss, F.smooth_l1_loss):
            a = x.clone().to(hal0).requires_grad_()
            loss(a, t.to(hal0)).backward()
            b = x.clone().requires_grad_()
            loss(b, t).backward()
            assert torch.allclose(a.grad.cpu(), b.grad)


def test_module_methods(hal0):
    model = nn.Linear(3, 2).hal()
    assert next(model.parameters()).device == hal0
    assert model(torch.randn(4, 3, device=hal0)).device == hal0


def test_backward_runs_on_the_calling_thread_unless_several_gpus():
    # Autograd's per-device worker thread would run host devices' CPU kernels in a second OpenMP pool, and
    # costs one GPU two thread handoffs a backward; torch_hal turns it off for the importing thread unless
    # several devices that are not host-accessible could overlap their backward (see _backend.py).
    properties = [torch.hal.get_device_properties(i) for i in range(torch.hal.device_count())]
    gpus = sum(not p.host_accessible for p in properties)
    assert torch._C._is_multithreading_enabled() == (gpus > 1)
    seen = []
    x = torch.ones(3, device="hal", requires_grad=True)
    y = x * 2
    y.register_hook(lambda grad: seen.append(threading.current_thread()))
    y.sum().backward()
    if gpus <= 1:
        assert seen == [threading.current_thread()]
