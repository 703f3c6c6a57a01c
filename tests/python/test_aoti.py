"""torch.export and AOTInductor on the host device (torch_hal/compile/aoti.py): a model exported with hal inputs
is compiled into a package by torch._inductor.aoti_compile_and_package in one process, and loaded by
torch._inductor.aoti_load_package and run on hal tensors in a fresh one, against the same model run eagerly on
CPU tensors. The package's C++ compilation is the slow part (about 20 s on CI's 2 cores): it is built once.
"""
import json

import pytest

from conftest import run_python

# A small MLP with a buffer and two outputs (a tuple: the call spec's unflattening), seeded so that both
# processes build the same weights.
_MODEL = """
import torch
import torch_hal

class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 32)
        self.fc2 = torch.nn.Linear(32, 4)
        self.register_buffer("shift", torch.linspace(-1, 1, 4))

    def forward(self, x):
        y = self.fc2(torch.relu(self.fc1(x))) + self.shift
        return y, torch.tanh(y).sum(-1)

torch.manual_seed(0)
model = Mlp().eval()
"""

_EXPORT = _MODEL + """
with torch.no_grad():
    model.to("hal:0")
    x = torch.randn(5, 8, device="hal:0")
    ep = torch.export.export(model, (x,))
    path = torch._inductor.aoti_compile_and_package(ep, package_path={path!r})
print("PACKAGE", path)
"""

_LOAD = _MODEL + """
import json
out = {{}}
compiled = torch._inductor.aoti_load_package({path!r})
out["device_key"] = compiled.get_metadata()["AOTI_DEVICE_KEY"]
x = torch.randn(5, 8, generator=torch.Generator().manual_seed(1))
with torch.no_grad():
    expected = model(x)
    # The input comes from hal work queued just before the call (the device's stream): the call waits for it.
    x_hal = x.to("hal:0") * 1.0
    before = torch.hal.memory_allocated(0)
    torch.hal.reset_fallback_stats()
    with torch.hal.strict():  # no op may copy through the CPU fallback
        got = compiled(x_hal)
    after = torch.hal.memory_allocated(0)
    out["type"] = type(got).__name__
    out["devices"] = [str(t.device) for t in got]
    out["shapes"] = [list(t.shape) for t in got]
    out["max_diff"] = [(g.cpu() - e).abs().max().item() for g, e in zip(got, expected)]
    out["scale"] = [e.abs().max().item() for e in expected]
    out["output_bytes"] = sum(t.untyped_storage().nbytes() for t in got)
    out["hal_bytes_grew"] = after - before
    out["fallbacks"] = torch.hal.fallback_stats()
    again = compiled(torch.randn(5, 8, device="hal:0"))
    out["again_devices"] = [str(t.device) for t in again]
    cpu_got = compiled(x)  # the package is a CPU package: CPU tensors in, CPU tensors out, as PyTorch's
    out["cpu_devices"] = [str(t.device) for t in cpu_got]
    out["cpu_max_diff"] = [(g - e).abs().max().item() for g, e in zip(cpu_got, expected)]
    via_torch_hal = torch_hal.compile.aoti.load_package({path!r}, device="hal:0")(x_hal)
    out["load_package_devices"] = [str(t.device) for t in via_torch_hal]
print("RESULT", json.dumps(out))
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("aoti") / "mlp.pt2")
    proc = run_python(_EXPORT.format(path=path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    assert f"PACKAGE {path}" in proc.stdout
    return path


def test_package_loads_and_runs_on_hal_in_a_fresh_process(package):
    proc = run_python(_LOAD.format(path=package))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    result = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith("RESULT "))[7:])
    assert result["device_key"] == "cpu"  # a CPU package that runs on hal memory
    assert result["type"] == "tuple"
    assert result["devices"] == ["hal:0", "hal:0"]
    assert result["shapes"] == [[5, 4], [5]]
    # float32: the C++ kernels may sum in another order than eager ATen.
    for diff, scale in zip(result["max_diff"], result["scale"]):
        assert diff <= 1e-5 * max(1.0, scale), result
    assert result["fallbacks"] == {}
    # The outputs are the model's own buffers, allocated in the device's memory (not copied into it).
    assert result["hal_bytes_grew"] >= result["output_bytes"] > 0, result
    assert result["again_devices"] == ["hal:0", "hal:0"]
    assert result["cpu_devices"] == ["cpu", "cpu"]
    for diff, scale in zip(result["cpu_max_diff"], result["scale"]):
        assert diff <= 1e-5 * max(1.0, scale), result
    assert result["load_package_devices"] == ["hal:0", "hal:0"]
