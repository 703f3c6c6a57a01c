"""The user's first minutes with hal: creating tensors, running ops, printing, saving, the torch.hal API."""
import pytest
import torch
import torch_hal


def test_issue_example_runs_and_matches_cpu(hal0):
    cpu = torch.randn(1024, 1024)
    x = cpu.to("hal:0")
    y = (x @ x.t()).relu().sum(dim=1)
    assert y.device == hal0
    assert torch.allclose(y.cpu(), (cpu @ cpu.t()).relu().sum(dim=1), rtol=1e-5, atol=1e-3)


def test_ways_to_make_hal_tensors(hal0):
    assert torch.ones(3, device="hal").device == hal0
    x = torch.arange(6)
    assert x.hal().device == hal0 and x.hal().is_hal and not x.is_hal
    assert torch.zeros(2, 3, device=hal0).sum().item() == 0
    assert torch.full((2,), 7.0, device="hal").cpu().tolist() == [7.0, 7.0]
    assert torch.arange(5, device="hal").cpu().tolist() == [0, 1, 2, 3, 4]
    assert torch.empty(0, device="hal").numel() == 0


def test_views_share_memory(hal0):
    x = torch.zeros(4, 4, device=hal0)
    x.t()[1].fill_(3.0)
    x[2:, 2:].add_(1.0)
    x.view(16)[0] = 5.0
    expected = torch.zeros(4, 4)
    expected.t()[1].fill_(3.0)
    expected[2:, 2:].add_(1.0)
    expected.view(16)[0] = 5.0
    assert torch.equal(x.cpu(), expected)


def test_outputs_stay_on_device_and_in_hal_memory(hal0):
    a, b = torch.randn(64, 64, device=hal0), torch.randn(64, 64, device=hal0)
    before = torch.hal.memory_allocated()
    c = torch.nn.functional.gelu(a @ b + 1)
    assert c.device == hal0
    assert torch.hal.memory_allocated() >= before + c.numel() * 4
    values, indices = torch.max(c, dim=1)
    assert values.device == hal0 and indices.device == hal0 and indices.dtype == torch.int64


def test_printing(hal0):
    text = repr(torch.tensor([1.5, 2.5], device=hal0))
    assert "device='hal:0'" in text and "1.5000" in text


def test_item_and_tolist(hal0):
    x = torch.tensor([[1, 2], [3, 4]], device=hal0)
    assert x.sum().item() == 10
    assert x.tolist() == [[1, 2], [3, 4]]


def test_save_and_load_with_map_location(tmp_path, hal0):
    model = torch.nn.Linear(4, 3).to(hal0)
    torch.save(model.state_dict(), tmp_path / "m.pt")
    on_cpu = torch.load(tmp_path / "m.pt", map_location="cpu")
    on_hal = torch.load(tmp_path / "m.pt", map_location="hal:0")
    for k, v in model.state_dict().items():
        assert on_hal[k].device == hal0
        assert torch.equal(on_hal[k].cpu(), v.cpu()) and torch.equal(on_cpu[k], v.cpu())
    reloaded = torch.load(tmp_path / "m.pt")
    assert reloaded["weight"].device == hal0


def test_manual_seed_reproduces_random_numbers(hal0):
    torch.manual_seed(123)
    a = torch.randn(1000, device=hal0)
    b = torch.rand(10, device=hal0)
    torch.manual_seed(123)
    assert torch.equal(torch.randn(1000, device=hal0).cpu(), a.cpu())
    assert torch.equal(torch.rand(10, device=hal0).cpu(), b.cpu())
    torch.hal.manual_seed(7)
    state = torch.hal.get_rng_state()
    c = torch.randn(50, device=hal0)
    torch.hal.set_rng_state(state)
    assert torch.equal(torch.randn(50, device=hal0).cpu(), c.cpu())
    g = torch.Generator(device=hal0).manual_seed(5)
    d = torch.randn(20, device=hal0, generator=g)
    g.manual_seed(5)
    assert torch.equal(torch.randn(20, device=hal0, generator=g).cpu(), d.cpu())


def test_hal_generator_is_independent_of_cpu_generator(hal0):
    torch.manual_seed(0)
    a = torch.randn(100, device=hal0)
    torch.manual_seed(0)
    torch.randn(100)  # draws from the CPU generator only: hal's sequence must not move
    b = torch.randn(100, device=hal0)
    assert torch.equal(a.cpu(), b.cpu())
    torch.hal.manual_seed(1)
    c = torch.randn(100, device=hal0)
    assert not torch.equal(c.cpu(), a.cpu())


def test_torch_hal_module_api(hal0):
    assert torch.hal.is_available()
    assert torch.hal.device_count() >= 1
    assert torch.hal.current_device() == 0
    props = torch.hal.get_device_properties(0)
    assert props.total_memory > 0 and props.multi_processor_count >= 1 and props.name
    assert isinstance(torch.hal.get_device_name(), str)
    torch.hal.synchronize()
    with torch.hal.device(0):
        assert torch.hal.current_device() == 0
    assert "Allocated memory" in torch.hal.memory_summary()
    assert "allocated_bytes.all.current" in torch.hal.memory_stats()


def test_torch_accelerator_is_hal(hal0):
    assert torch.accelerator.is_available()
    assert torch.accelerator.current_accelerator().type == "hal"
    assert torch.accelerator.device_count() == torch.hal.device_count()
    torch.accelerator.synchronize()


def test_adapters_lists_host_adapter():
    names = {a.name: a for a in torch_hal.adapters()}
    assert names["host"].state == "loaded" and names["host"].device_count >= 1


def test_info_cli():
    from conftest import run_python
    out = run_python("import torch_hal.__main__ as m; m.main(['info'])")
    assert out.returncode == 0, out.stderr
    assert "host" in out.stdout and "hal:0" in out.stdout


def test_autoload_through_torch_backends_entry_point():
    """On a CPU build of PyTorch `import torch` registers hal; on a CUDA build it must not (it would
    break autograd over cuda tensors, pytorch/pytorch#161129), and `import torch_hal` does."""
    from conftest import run_python
    out = run_python("import torch\n"
                     "try:\n    print(torch.ones(2, device='hal').device)\n"
                     "except RuntimeError:\n    print('not registered')\n"
                     "import torch_hal\nprint(torch.ones(2, device='hal').device)")
    assert out.returncode == 0, out.stderr
    cuda_build = torch.version.cuda is not None or torch.version.hip is not None
    first = "not registered" if cuda_build else "hal:0"
    assert out.stdout.splitlines() == [first, "hal:0"]


def test_cuda_autograd_untouched_by_plain_import_torch():
    if not torch.cuda.is_available():
        pytest.skip("needs torch.cuda")
    from conftest import run_python
    out = run_python("import torch\nx = torch.ones(3, device='cuda', requires_grad=True)\n"
                     "(x * 2).sum().backward()\nprint(x.grad.sum().item())")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "6.0"


def test_autocast_lowers_matmul_precision(hal0):
    a, b = torch.randn(8, 8, device=hal0), torch.randn(8, 8, device=hal0)
    with torch.autocast("hal", dtype=torch.bfloat16):
        c = a @ b
        s = torch.softmax(c, dim=1)
    assert c.dtype == torch.bfloat16
    assert s.dtype == torch.float32


def test_pin_memory_for_hal():
    x = torch.randn(100).pin_memory("hal")
    assert x.is_pinned("hal")
    assert torch.equal(x.to("hal", non_blocking=True).cpu(), x)
