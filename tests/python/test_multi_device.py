"""Several hal devices at once (two host devices, TORCH_HAL_HOST_DEVICES=2), in a subprocess since the
device list is read at import."""
from conftest import run_python

SCRIPT = r"""
import torch, torch_hal
assert torch.hal.device_count() == 2, torch.hal.device_count()
a = torch.arange(10, dtype=torch.float32, device='hal:0')
b = a.to('hal:1')
assert b.device == torch.device('hal:1') and torch.equal(b.cpu(), a.cpu())
# copies between devices, strided and with dtype conversion
c = torch.zeros(10, 10, device='hal:1')
c[:, 3].copy_(a)
assert torch.equal(c[:, 3].cpu(), a.cpu())
assert torch.equal(a.to('hal:1', dtype=torch.float64).cpu(), a.cpu().double())
# the current device follows set_device and the device context manager
torch.hal.set_device(1)
assert torch.hal.current_device() == 1 and torch.ones(1, device='hal').device.index == 1
with torch.hal.device(0):
    assert torch.ones(1, device='hal').device.index == 0
assert torch.hal.current_device() == 1
torch.hal.set_device(0)
# ops refuse tensors of two devices, naming both
try:
    a + b
    raise SystemExit('mixing hal:0 and hal:1 was accepted')
except RuntimeError as e:
    assert 'hal:0' in str(e) and 'hal:1' in str(e), e
# memory is counted per device
torch.hal.synchronize(1)
m0, m1 = torch.hal.memory_allocated(0), torch.hal.memory_allocated(1)
big = torch.empty(1 << 20, device='hal:1')
assert torch.hal.memory_allocated(1) >= m1 + 4 * (1 << 20) and torch.hal.memory_allocated(0) == m0
# each device has its own generator
torch.manual_seed(3)
x0, x1 = torch.randn(5, device='hal:0'), torch.randn(5, device='hal:1')
torch.manual_seed(3)
assert torch.equal(torch.randn(5, device='hal:1').cpu(), x1.cpu())
# a model moves between devices and trains on hal:1
model = torch.nn.Linear(4, 2).to('hal:1')
loss = model(torch.randn(8, 4, device='hal:1')).pow(2).sum()
loss.backward()
assert model.weight.grad.device == torch.device('hal:1')
print('MULTI DEVICE OK')
"""


def test_two_host_devices():
    out = run_python(SCRIPT, TORCH_HAL_HOST_DEVICES=2)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "MULTI DEVICE OK" in out.stdout


def test_visible_devices_reorders_and_filters():
    code = ("import torch, torch_hal\n"
            "print('COUNT', torch.hal.device_count())\n"
            "print('UUID', torch.hal.get_device_properties(0).uuid)")
    both = run_python(code, TORCH_HAL_HOST_DEVICES=2)
    second_only = run_python(code, TORCH_HAL_HOST_DEVICES=2, HAL_VISIBLE_DEVICES="1")
    assert both.returncode == 0 and second_only.returncode == 0, both.stderr + second_only.stderr
    assert "COUNT 2" in both.stdout and "COUNT 1" in second_only.stdout
    uuid = lambda out: [l for l in out.stdout.splitlines() if l.startswith("UUID")][0]  # noqa: E731
    assert uuid(both) != uuid(second_only)
