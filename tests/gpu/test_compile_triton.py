"""torch.compile on GPU hal devices: Inductor's Triton kernels on hal memory and hal's current stream
(torch_hal/compile/triton_graph.py). The models of tests/python/test_compile_host.py, forward and backward,
against eager CPU tensors under torch.hal.strict(). Skips without a GPU hal device or without triton."""
import contextlib
import sys

import pytest
import torch

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
from model_zoo import compile_models  # noqa: E402


@pytest.fixture
def triton_device(gpu_device):
    from torch_hal.compile.triton_graph import triton_path_unavailable_reason

    reason = triton_path_unavailable_reason(gpu_device.index)
    if reason is not None:
        pytest.skip(reason)
    return gpu_device


def _fallbacks_allowed(device):
    """Ops the device's adapter may lack, which then run through the counted CPU fallback: the AMD adapter has
    no convolutions yet (tests/gpu/test_native_nn.py checks the same for eager mode). Nothing on NVIDIA."""
    if torch.hal.get_device_properties(device.index).adapter == "nvidia":
        return set()
    return {"aten::convolution", "aten::convolution_backward"}


def _step(model, x):
    out = model(x)
    (out.float() ** 2).mean().backward()
    return out


@pytest.mark.parametrize("name", sorted(compile_models.MODELS))
def test_models_forward_and_backward_match_eager(triton_device, name):
    from torch._inductor.utils import run_and_get_code

    build, shape = compile_models.MODELS[name]
    torch.manual_seed(0)
    cpu_model = build(2)
    gpu_model = build(2)
    gpu_model.load_state_dict(cpu_model.state_dict())
    gpu_model.to(triton_device)
    compiled = torch.compile(gpu_model)
    x = torch.randn(shape(2), generator=torch.Generator().manual_seed(1))
    expected = _step(cpu_model, x)
    allowed = _fallbacks_allowed(triton_device)
    torch.hal.reset_fallback_stats()
    with torch.hal.strict() if not allowed else contextlib.nullcontext():
        got, code = run_and_get_code(_step, compiled, x.to(triton_device))
    torch.hal.synchronize()
    assert set(torch.hal.fallback_stats()) <= allowed, torch.hal.fallback_stats()
    assert got.device == triton_device
    joined = "\n".join(code)
    assert "@triton.jit" in joined and "get_raw_stream" in joined, joined[:2000]
    assert "cudagraph" not in joined.lower()
    # The wrapper's per-call work goes through hal's C calls (triton_wrapper.py, device_op_overrides.py), not
    # torch.empty_strided(..., device='hal') and Python device guards.
    assert "empty_strided_hal(" in joined and "device='hal'" not in joined, joined[:3000]
    assert "torch.hal._DeviceGuard(" in joined and "current_raw_stream as get_raw_stream" in joined
    torch.testing.assert_close(got.detach().cpu(), expected.detach(), rtol=2e-3, atol=2e-4)
    for (key, p), (_, q) in zip(cpu_model.named_parameters(), gpu_model.named_parameters()):
        torch.testing.assert_close(q.grad.cpu(), p.grad, rtol=2e-3, atol=2e-4, msg=f"{name}: grad of {key}")
    for key, buffer in cpu_model.state_dict().items():
        torch.testing.assert_close(gpu_model.state_dict()[key].cpu(), buffer, rtol=2e-3, atol=2e-4, msg=key)


def test_channels_last_convolutions_under_layout_optimization(triton_device):
    """Inductor's layout optimization makes convolution operands channels-last; the compiled graph checks each
    hal convolution's output against the layout the fake convolution predicts (torch_hal/compile/conv_layout.py)."""
    build, shape = compile_models.MODELS["conv_net"]
    torch.manual_seed(0)
    cpu_model = build(2)
    gpu_model = build(2)
    gpu_model.load_state_dict(cpu_model.state_dict())
    gpu_model.to(triton_device)
    x = torch.randn(shape(2), generator=torch.Generator().manual_seed(1))
    with torch._inductor.config.patch(force_layout_optimization=True):
        compiled = torch.compile(gpu_model)
        for memory_format in (torch.contiguous_format, torch.channels_last):
            cpu_model.zero_grad()
            gpu_model.zero_grad()
            expected = _step(cpu_model, x)
            got = _step(compiled, x.to(triton_device).contiguous(memory_format=memory_format))
            torch.testing.assert_close(got.detach().cpu(), expected.detach(), rtol=2e-3, atol=2e-4)
            for (key, p), (_, q) in zip(cpu_model.named_parameters(), gpu_model.named_parameters()):
                torch.testing.assert_close(q.grad.cpu(), p.grad, rtol=2e-3, atol=2e-4, msg=f"grad of {key}")


def test_dynamic_shapes_and_graph_break(triton_device):
    counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")

    def f(x, w):
        y = torch.tanh(x @ w)
        torch._dynamo.graph_break()
        return (y * y.sigmoid()).sum(dim=1)

    compiled = torch.compile(f, backend=counter, dynamic=True)
    w = torch.randn(7, 3)
    for rows in (2, 5, 9):
        x = torch.randn(rows, 7)
        got = compiled(x.to(triton_device), w.to(triton_device))
        torch.testing.assert_close(got.cpu(), f(x, w), rtol=1e-3, atol=1e-4)
    assert counter.frame_count == 2  # the graph before the break and the one after, each compiled once


def test_kernels_run_on_the_current_hal_stream(triton_device):
    compiled = torch.compile(lambda a: (a * 3).sum())
    side = torch.hal.Stream(triton_device)
    with torch.hal.stream(side):
        x = torch.full((1 << 20,), 2.0, device=triton_device)
        x.mul_(2)
        total = compiled(x)
    side.synchronize()
    assert total.item() == 12.0 * (1 << 20)


def test_softmax_takes_inductors_online_softmax(triton_device):
    """Inductor's one-pass softmax (max and sum together), which it enables for cuda and xpu only, runs for hal's
    Triton path too (triton_graph._online_softmax_for_hal); the values match eager."""
    from torch._inductor.utils import run_and_get_code

    x = torch.randn(64, 4096, generator=torch.Generator().manual_seed(3))

    def fn(t):
        return torch.log_softmax(t, dim=-1) + torch.softmax(t, dim=-1)

    got, code = run_and_get_code(torch.compile(fn), x.to(triton_device))
    assert "online_softmax" in "\n".join(code)
    torch.testing.assert_close(got.cpu(), fn(x), rtol=1e-5, atol=1e-5)
