"""torch_hal.transfer_to_hal: an unmodified CUDA training script runs on hal (issue 44, part 3). The script runs
in a child process with `import torch_hal.transfer_to_hal` prepended, and once more as is on the CPU (with the
"cuda" names pointed at the CPU only by the harness), and the losses are compared."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A CUDA-style script, as written for torch.cuda: nothing in it names hal.
CUDA_SCRIPT = textwrap.dedent('''
    import json, warnings
    import torch
    import torch.nn as nn

    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    assert torch.cuda.is_available()
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    device = torch.device("cuda")
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.cuda.amp.GradScaler()
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(16, 32, generator=gen).to(device)
    y = torch.randint(0, 10, (16,), generator=gen).cuda()
    w = torch.ones(10, device="cuda:0")
    losses = []
    for step in range(4):
        with torch.cuda.amp.autocast(dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y, weight=w)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x)
        torch.cuda.synchronize()
        losses.append([loss.item(), out.float().pow(2).mean().item()])
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        z = x * 2
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            torch.cuda.nvtx.range_push("step")
            torch.cuda.nvtx.range_pop()
    result = {
        "losses": losses,
        "devices": sorted({str(t.device.type) for t in [x, y, w, z, out, *model.parameters()]}),
        "out_dtype": str(out.dtype),
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "device_name": torch.cuda.get_device_name(0),
        "warnings": [str(c.message) for c in caught],
    }
    try:
        import torch_hal
        result["hal_memory_allocated"] = torch.hal.memory_allocated()
    except ImportError:
        pass
    print("RESULT " + json.dumps(result))
''')

# The reference run: the same script on the CPU (the harness, not the script, maps "cuda" to the CPU there).
CPU_HARNESS = textwrap.dedent('''
    import torch, contextlib
    class _Nvtx:
        range_push = range_pop = staticmethod(lambda *a: 0)
    torch.cuda.is_available = lambda: True
    torch.cuda.synchronize = lambda *a: None
    torch.cuda.manual_seed_all = lambda s: None
    torch.cuda.max_memory_allocated = lambda *a: 0
    torch.cuda.get_device_name = lambda *a: "cpu"
    torch.cuda.nvtx = _Nvtx()
    torch.cuda.Stream = lambda *a, **k: None
    torch.cuda.stream = lambda s: contextlib.nullcontext()
    torch.cuda.current_stream = lambda *a: type("S", (), {"wait_stream": lambda self, s: None})()
    torch.cuda.amp.autocast = lambda dtype=torch.float16, **k: torch.autocast("cpu", dtype=dtype, **k)
    torch.cuda.amp.GradScaler = lambda *a, **k: torch.amp.GradScaler("cpu", *a, **k)
    _autocast = torch.autocast
    torch.autocast = lambda device_type, **k: _autocast("cpu", **k)
    _to = torch.Tensor.to
    _cpu = lambda d: "cpu" if str(d).startswith("cuda") else d
    torch.Tensor.to = lambda self, *a, **k: _to(self, *map(_cpu, a), **{n: _cpu(v) for n, v in k.items()})
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.nn.Module.cuda = lambda self, *a, **k: self
    for name in ("ones", "zeros", "randn"):
        f = getattr(torch, name)
        setattr(torch, name, (lambda f: lambda *a, device=None, **k: f(*a, **k))(f))
''')


def _run(prefix: str, tmp_path: Path, name: str):
    script = tmp_path / f"{name}.py"
    script.write_text(prefix + "\n" + CUDA_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, proc.stdout + proc.stderr
    return json.loads(lines[-1][len("RESULT "):]), proc.stderr


def test_unmodified_cuda_training_script_runs_on_hal(tmp_path):
    hal, stderr = _run("import torch_hal.transfer_to_hal", tmp_path, "on_hal")
    cpu, _ = _run(CPU_HARNESS, tmp_path, "on_cpu")
    assert hal["devices"] == ["hal"], hal
    assert hal["out_dtype"] == "torch.bfloat16" == cpu["out_dtype"]
    assert hal["hal_memory_allocated"] > 0 and hal["max_memory_allocated"] >= hal["hal_memory_allocated"]
    assert hal["device_name"] != "cpu"
    # bf16 autocast on both sides: the losses agree to bf16's precision, step by step
    for step, (h, c) in enumerate(zip(hal["losses"], cpu["losses"])):
        for a, b in zip(h, c):
            assert a == pytest.approx(b, rel=2e-2, abs=2e-2), (step, hal["losses"], cpu["losses"])
    assert hal["losses"][-1][0] < hal["losses"][0][0]  # it trained
    # the CUDA-only call warned once, naming the feature
    nvtx = [w for w in hal["warnings"] if "torch.cuda.nvtx" in w]
    assert len(nvtx) == 1 and "CUDA-only" in nvtx[0] and "no hal equivalent" in nvtx[0], hal["warnings"]


def _in_child(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", "import torch_hal.transfer_to_hal\n" + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_devices_factories_and_checkpoints_map_to_hal(tmp_path):
    out = _in_child(f'''
        import io, pickle, torch
        d = torch.device("cuda", 0)
        assert isinstance(d, torch.device) and d.type == "hal" and d.index == 0
        assert pickle.loads(pickle.dumps(d)) == d
        for t in (torch.zeros(2, device="cuda"), torch.full((2,), 3.0, device="cuda:0"), torch.arange(3, device=d),
                  torch.tensor([1, 2], device="cuda"), torch.ones(2).cuda(), torch.ones(2).to("cuda"),
                  torch.ones(2).new_zeros(3, device="cuda"), torch.zeros_like(torch.ones(2), device="cuda"),
                  torch.randn(2, generator=torch.Generator("cuda"), device="cuda")):
            assert t.device.type == "hal", t.device
        m = torch.nn.Linear(2, 2).to("cuda")
        assert m.weight.device.type == "hal"
        buf = io.BytesIO()
        torch.save(m.state_dict(), buf); buf.seek(0)
        sd = torch.load(buf, map_location="cuda")
        assert sd["weight"].device.type == "hal"
        assert torch.cuda.memory_allocated("cuda:0") == torch.hal.memory_allocated(0)
        assert torch.cuda.get_device_properties(0).total_memory > 0
        s = torch.cuda.memory._snapshot()
        assert "segments" in s
        import torch.distributed as dist
        print("nccl", dist.is_nccl_available())
        from torch_hal.transfer_to_hal import _map_backend
        print(_map_backend("nccl"), _map_backend("cpu:gloo,cuda:nccl"))
    ''')
    assert "hal cpu:gloo,hal:hal" in out


def test_nccl_process_group_runs_on_hal(tmp_path):
    out = _in_child('''
        import os, torch, torch.distributed as dist
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29500 + os.getpid() % 1000))
        dist.init_process_group("nccl", rank=0, world_size=1)
        t = torch.ones(4, device="cuda")
        dist.all_reduce(t)
        print("backend", dist.get_backend(), t.device.type, t.sum().item())
        dist.destroy_process_group()
    ''')
    assert "backend hal hal 4.0" in out, out


def test_cuda_graphs_are_hal_graphs_and_cuda_only_features_warn_once_or_raise_clearly():
    out = _in_child('''
        import warnings, torch
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = torch.cuda.CUDAGraph()
            x = torch.ones(3, device="cuda")
            with torch.cuda.graph(g):
                y = x * 2
                x.add_(1)
            linear = torch.cuda.make_graphed_callables(torch.nn.Linear(3, 3).cuda(), (x,))
            torch.cuda.set_sync_debug_mode(1)
            torch.cuda.set_sync_debug_mode(0)
        sync = [str(w.message) for w in caught if "set_sync_debug_mode" in str(w.message)]
        g.replay()
        g.replay()
        print("graph", type(g).__name__, y.device.type, y.sum().item(), x.sum().item(), "sync warnings", len(sync))
        print("graphed linear", linear(x).shape, torch.cuda.is_current_stream_capturing())
        try:
            torch.cuda.utilization()
        except NotImplementedError as e:
            print("utilization:", e)
    ''')
    # Capturing ran nothing; each replay doubled x, then added 1 (x: 1 -> 2 -> 3, y = 2 * 2).
    assert "graph HALGraph hal 12.0 9.0 sync warnings 1" in out, out
    assert "graphed linear torch.Size([3]) False" in out, out
    assert "utilization: torch.cuda.utilization" in out, out
