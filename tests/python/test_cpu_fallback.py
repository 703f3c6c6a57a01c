"""The counted CPU fallback (devices whose memory the CPU cannot address), exercised on the host device
with host access switched off (TORCH_HAL_HOST_ACCESSIBLE=0), in a subprocess."""
from conftest import run_python

SCRIPT = r"""
import torch, torch_hal, torch.nn.functional as F
assert not torch.hal.get_device_properties(0).host_accessible
d = torch.device('hal:0')
torch.manual_seed(0)
a = torch.randn(5, 7)
b = torch.randn(7, 3)
x, y = a.to(d), b.to(d)
checks = {
  'mm': torch.equal((x @ y).cpu(), a @ b),
  'relu_': torch.equal(x.clone().relu_().cpu(), a.relu()),
  'transposed slice': torch.equal(x.t()[1:4].contiguous().cpu(), a.t()[1:4].contiguous()),
  'softmax grad': True,
  'out=': True,
  'view op': torch.equal(x.view(35).cpu(), a.view(35)),
}
out = torch.empty(0, device=d)
torch.add(x, 1, out=out)
checks['out='] = torch.equal(out.cpu(), a + 1) and out.shape == (5, 7)
t = x.clone().requires_grad_()
F.softmax(t, dim=1).pow(2).sum().backward()
r = a.clone().requires_grad_()
F.softmax(r, dim=1).pow(2).sum().backward()
checks['softmax grad'] = torch.allclose(t.grad.cpu(), r.grad)
s = x[1:3]
s.mul_(2)
a[1:3].mul_(2)
checks['in-place on view'] = torch.equal(x.cpu(), a)
stats = torch.hal.fallback_stats()
print('CHECKS', checks)
print('STATS', sorted(stats))
assert all(checks.values()), checks
assert stats.get('aten::mm', 0) >= 1, stats
"""


def test_copy_fallback_is_correct_and_counted():
    out = run_python(SCRIPT, TORCH_HAL_HOST_ACCESSIBLE=0)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "has no native kernel on hal:0" in out.stderr  # warned once per op
