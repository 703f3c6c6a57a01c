"""`python -m torch_hal coverage`: the map of which path each aten op takes on a device, checked against
what the ops then really do (strict mode, torch.hal.fallback_stats()) on the host device, on the host device
without host access, and on the example ASIC plugin (native float32 add, mul, relu and matmul only)."""
import json
import os
import subprocess
import sys

import torch

from conftest import REPO_ROOT, run_python
from test_example_asic import PLUGIN


def coverage_cli(*args, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torch_hal", "coverage", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=dict(os.environ, **{k: str(v) for k, v in env.items()}), timeout=300)


def coverage_json(*args, **env) -> dict:
    out = coverage_cli("--format", "json", *args, **env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def host_device() -> str:
    """The host reference device: hal:0 on a machine without accelerators, last where GPUs are present."""
    index = next(i for i in range(torch.hal.device_count())
                 if torch.hal.get_device_properties(i).adapter == "host")
    return f"hal:{index}"


def by_name(report: dict) -> dict:
    return {op["name"]: op for op in report["ops"]}


def test_host_device_runs_registered_ops_as_cpu_kernels_in_place():
    report = coverage_json("--device", host_device())
    ops = by_name(report)
    assert report["adapter"] == "host" and report["host_accessible"] is True
    assert report["native_kernels"] == "no_native_kernels"  # the host adapter has no launch_op
    add = ops["add.Tensor"]
    assert (add["category"], add["route"], add["hal_ops"]) == ("cpu_in_place", "adapter_first", ["HAL_OP_ADD"])
    assert ops["max.dim"]["hal_ops"] == ["HAL_OP_AMAX", "HAL_OP_ARGMAX"]
    assert ops["_foreach_add_.List"]["hal_ops"] == ["HAL_OP_FOREACH", "HAL_OP_ADD"]
    assert ops["_foreach_add_.List"]["category"] == "composite"  # without native kernels: one op per tensor
    assert ops["empty.memory_format"]["category"] == "runtime" and ops["_copy_from"]["category"] == "runtime"
    assert ops["linear"]["category"] == "composite"  # CompositeImplicitAutograd: decomposes before hal
    # convolution tries the adapter's cuDNN-backed ops first; _convolution (reached only directly) runs CPU's.
    conv = ops["convolution"]
    assert (conv["route"], conv["hal_ops"]) == ("adapter_first", ["HAL_OP_CONVOLUTION", "HAL_OP_CONVOLUTION_BACKWARD_INPUT"])
    assert conv["category"] == "cpu_in_place" and ops["_convolution"]["route"] == "cpu_kernel"
    assert ops["_embedding_bag"]["category"] == "cpu_in_place"  # no hal kernel: the boxed fallback, in place here
    assert (ops["cumsum"]["category"], ops["cumsum"]["route"]) == ("cpu_in_place", "adapter_first")
    # Nothing on the host device is copied to the CPU and back.
    assert report["categories"]["cpu_fallback"]["count"] == 0
    counts = {c: v["count"] for c, v in report["categories"].items()}
    assert sum(counts.values()) == len(report["ops"])
    assert len(report["ops"]) == len([n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::")])


def test_every_registered_kernel_is_in_the_dispatcher_with_named_adapter_ops():
    from torch_hal import _C
    table = _C.kernel_table()
    assert len(table) > 300
    for record in table:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{record['name']}", "PrivateUse1"), record
        for op in record["hal_ops"]:
            assert _C.hal_op_name(op).startswith("HAL_OP_") and not _C.hal_op_name(op)[7:].isdigit(), (record, op)
    routes = {r["route"] for r in table}
    assert routes == {"adapter_first", "foreach", "composite", "runtime", "cpu_kernel"}
    # A kernel registered for PrivateUse1 by someone else than torch_hal would be reported as a runtime op of
    # unknown origin; there is none today. torch_hal.pytorch_gaps's kernels raise a clear error (unsupported).
    from torch_hal.pytorch_gaps import UNSUPPORTED_OPS

    registered = set(torch._C._dispatch_get_registrations_for_dispatch_key("PrivateUse1"))
    recorded = {"aten::" + r["name"] for r in table} | UNSUPPORTED_OPS
    assert {n for n in registered if n.startswith("aten::")} <= recorded


def test_without_host_access_the_map_predicts_what_falls_back():
    report = coverage_json("--device", "hal:0", "--op", "add", "--op", "cumsum", "--op", "view",
                           TORCH_HAL_HOST_ACCESSIBLE="0", HAL_VISIBLE_DEVICES="host:0")
    ops = by_name(report)
    assert report["host_accessible"] is False
    assert ops["add.Tensor"]["category"] == "cpu_fallback" and ops["cumsum"]["category"] == "cpu_fallback"
    assert ops["view"]["category"] == "runtime"
    # What the map says, the ops do: cumsum and add are counted fallback calls, view is not.
    out = run_python("import torch, torch_hal\n"
                     "x = torch.arange(6.).to('hal:0')\n"
                     "torch.hal.reset_fallback_stats()\n"
                     "x.view(2, 3); print(sorted(torch.hal.fallback_stats()))\n"
                     "torch.cumsum(x, 0); x + x; print(sorted(torch.hal.fallback_stats()))\n",
                     TORCH_HAL_HOST_ACCESSIBLE="0", HAL_VISIBLE_DEVICES="host:0")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]", "['aten::add.Tensor', 'aten::cumsum']"]


def test_plugin_map_matches_strict_mode():
    report = coverage_json("--device", "hal:0", "--op", "add.Tensor", "--op", "sub.Tensor", "--op", "relu",
                           "--op", "mm", TORCH_HAL_ADAPTERS=PLUGIN)
    ops = by_name(report)
    assert report["adapter"] == "example_asic" and report["native_kernels"] == "op_supported"
    assert ops["add.Tensor"]["category"] == "native"
    assert ops["add.Tensor"]["dtypes"] == ["float32"] and ops["add.Tensor"]["otherwise"] == "cpu_fallback"
    assert ops["relu"]["category"] == "native" and ops["relu"]["dtypes"] == ["float32"]
    assert ops["sub.Tensor"]["category"] == "cpu_fallback"  # the plugin has ADD, MUL, RELU and MATMUL only
    assert ops["mm"]["category"] == "cpu_fallback"  # mm launches GEMM, which the plugin does not have
    # Strict mode agrees: what the map calls native runs; what it sends to the fallback is refused.
    out = run_python("""
import torch, torch_hal
x = torch.ones(4).to('hal:0')
def runs(fn):
    try:
        with torch.hal.strict():
            fn()
        return True
    except RuntimeError:
        return False
print(runs(lambda: x + x), runs(lambda: torch.relu(x)), runs(lambda: x - x), runs(lambda: x.double() + 1),
      runs(lambda: x.view(2, 2) @ x.view(2, 2)))
""", TORCH_HAL_ADAPTERS=PLUGIN)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "False", "False", "False"]


def test_op_filter_text_and_markdown():
    text = coverage_cli("--device", host_device(), "--op", "add")
    assert text.returncode == 0, text.stderr
    listed = text.stdout.split("\n\n", 2)[2]  # after the header and the summary
    assert "add.Tensor" in listed and "add.out" in listed and "addmm" not in listed and "add_.Tensor" not in listed
    markdown = coverage_cli("--device", host_device(), "--format", "markdown", "--category", "runtime")
    assert markdown.returncode == 0, markdown.stderr
    assert "| category | ops | meaning |" in markdown.stdout and "### runtime (" in markdown.stdout
    assert "`empty_strided`" in markdown.stdout and "### cpu_in_place" not in markdown.stdout


def test_bad_device_names_the_devices_that_exist():
    count = torch.hal.device_count()
    for device in (f"hal:{count}", "cuda:0", "gpu:0"):
        out = coverage_cli("--device", device)
        assert out.returncode == 2, (device, out.stdout)
        assert f"bad --device '{device}'" in out.stderr
        assert "hal:0 (" in out.stderr and "host: Host reference device" in out.stderr, out.stderr
