"""torch._foreach_* ops on the host reference device, whose adapter has no native kernels: the hal kernels of
these ops check list lengths as ATen does and run ATen's per-tensor path, so results, errors, versions and
autograd are the CPU's."""
import pytest
import torch
from torch.profiler import ProfilerActivity, profile


@pytest.fixture
def host_device():
    for i in range(torch.hal.device_count()):
        if torch.hal.get_device_properties(i).vendor == "host":
            return torch.device("hal", i)
    pytest.skip("no host reference device")


def lists(device, n=3):
    g = torch.Generator().manual_seed(0)
    shapes = [(), (0,), (4, 5), (17,)][:n]
    return [[(torch.rand(s, generator=g) + 0.5).to(device) for s in shapes] for _ in range(3)]


OPS = [
    lambda a, b, c: torch._foreach_add_(a, b, alpha=0.5),
    lambda a, b, c: torch._foreach_mul(a, [0.5, 2.0, 3.0, 4.0]),
    lambda a, b, c: torch._foreach_div_(a, 3),
    lambda a, b, c: torch._foreach_addcdiv_(a, b, c, [0.5, -1.0, 2.0, 1.5]),
    lambda a, b, c: torch._foreach_addcmul(a, b, c, value=0.25),
    lambda a, b, c: torch._foreach_lerp_(a, b, 0.3),
    lambda a, b, c: torch._foreach_sqrt(a),
    lambda a, b, c: torch._foreach_zero_(a),
]


@pytest.mark.parametrize("op", range(len(OPS)))
def test_results_and_versions_match_cpu(host_device, op):
    hal, cpu = lists(host_device, 4), lists(torch.device("cpu"), 4)
    hal_out, cpu_out = OPS[op](*hal), OPS[op](*cpu)
    for h, c in zip(hal_out if hal_out is not None else hal[0], cpu_out if cpu_out is not None else cpu[0]):
        assert h.device == host_device
        torch.testing.assert_close(h.cpu(), c, rtol=0, atol=0)
    assert [t._version for t in hal[0]] == [t._version for t in cpu[0]]


def test_mismatched_lengths_raise_the_cpu_errors(host_device):
    for device in (host_device, torch.device("cpu")):
        a, b, c = lists(device)
        with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 3 and 2"):
            torch._foreach_add_(a, b[:2])
        with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 3 and 1"):
            torch._foreach_addcmul_(a, b, c[:1], value=2.0)
        with pytest.raises(RuntimeError, match="scalar list"):
            torch._foreach_mul_(a, [1.0, 2.0])


def test_functional_foreach_ops_have_gradients(host_device):
    xs = [torch.randn(3, device=host_device, requires_grad=True) for _ in range(2)]
    ys = torch._foreach_mul(torch._foreach_add(xs, 1.0), 2.0)
    sum(y.sum() for y in ys).backward()
    assert all(torch.equal(x.grad.cpu(), torch.full((3,), 2.0)) for x in xs)


def test_runs_the_per_tensor_path_without_native_kernels(host_device):
    a, b, _ = lists(host_device)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch._foreach_add_(a, b)
    assert "aten::add_" in {e.name for e in prof.events()}
