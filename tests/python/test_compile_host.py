"""torch.compile on the host device: Inductor's C++ code over hal memory (torch_hal/compile/host_graph.py).

Each model is compiled once per module (Inductor's C++ compilation is the slow part on CI) and checked,
forward and backward, against the same model run eagerly on CPU tensors, under torch.hal.strict() (no op
may take the CPU fallback). The GPU counterpart is tests/gpu/test_compile_triton.py.
"""
import sys

import pytest
import torch

from conftest import REPO_ROOT, run_python

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
from model_zoo import compile_models  # noqa: E402


def host_device():
    for i in range(torch.hal.device_count()):
        props = torch.hal.get_device_properties(i)
        if props.vendor == "host" and props.host_accessible:
            return torch.device("hal", i)
    pytest.skip("no host-accessible host reference device")


MODELS = {name: (lambda build=build: build(1), shape(1)) for name, (build, shape) in compile_models.MODELS.items()}


def _step(model, x):
    out = model(x)
    (out.float() ** 2).mean().backward()
    return out


def _grads(model):
    return {name: p.grad.cpu() for name, p in model.named_parameters()}


@pytest.fixture(scope="module", params=sorted(MODELS))
def compiled_case(request):
    """(name, eager CPU model, compiled hal model, input shape), the hal model a copy of the CPU one."""
    build, shape = MODELS[request.param]
    torch.manual_seed(0)
    cpu_model = build()
    hal_model = build()
    hal_model.load_state_dict(cpu_model.state_dict())
    hal_model.to(host_device())
    return request.param, cpu_model, torch.compile(hal_model), shape


def test_forward_and_backward_match_eager(compiled_case):
    name, cpu_model, compiled, shape = compiled_case
    device = host_device()
    for step in range(2):  # the second step runs the cached compiled code
        x = torch.randn(shape, generator=torch.Generator().manual_seed(step))
        cpu_model.zero_grad()
        compiled.zero_grad()
        expected = _step(cpu_model, x)
        torch.hal.reset_fallback_stats()
        with torch.hal.strict():
            got = _step(compiled, x.to(device))
        assert torch.hal.fallback_stats() == {}
        assert got.device == device
        torch.testing.assert_close(got.detach().cpu(), expected.detach(), rtol=1e-4, atol=1e-5)
        expected_grads, got_grads = _grads(cpu_model), _grads(compiled._orig_mod)
        for key, grad in expected_grads.items():
            torch.testing.assert_close(got_grads[key], grad, rtol=1e-4, atol=1e-5, msg=f"{name}: grad of {key}")
        for key, buffer in cpu_model.state_dict().items():  # BatchNorm's running statistics, updated in place
            torch.testing.assert_close(compiled._orig_mod.state_dict()[key].cpu(), buffer, msg=f"{name}: {key}")


def test_outputs_are_in_device_memory_without_copies():
    device = host_device()

    @torch.compile
    def scale_and_view(x):
        return x * 2, x.view(-1)

    x = torch.arange(12.0).reshape(3, 4).to(device)
    before = torch.hal.memory_allocated(device)
    doubled, flat = scale_and_view(x)
    # The compiled code allocated its output in hal memory (the device's statistics count it) ...
    assert torch.hal.memory_allocated(device) - before >= doubled.numel() * doubled.element_size()
    torch.testing.assert_close(doubled.cpu(), torch.arange(12.0).reshape(3, 4) * 2)
    # ... and a view of an input is that input's memory, as in eager mode.
    assert flat.data_ptr() == x.data_ptr()
    x.add_(1)
    assert flat[5].item() == 6.0


def test_temporaries_are_in_device_memory():
    """What compiled code allocates only for the duration of a call (here the matmul's input and output, between
    the fused pointwise kernels) is the device's memory too: its peak statistics count it, as torch.cuda's count
    Inductor's buffers."""
    device = host_device()
    n = 128
    x, w = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    compiled = torch.compile(lambda a, b: torch.mm(a.sin(), b).cos())
    compiled(x, w)  # compiled before the measured call
    torch.hal.synchronize(device)
    before = torch.hal.memory_allocated(device)
    torch.hal.reset_peak_memory_stats(device)
    out = compiled(x, w)
    matrix = n * n * 4
    # sin's result and the matmul's are alive at once; the output is one of them, or a third buffer.
    assert torch.hal.max_memory_allocated(device) - before >= 2 * matrix
    torch.testing.assert_close(out.cpu(), torch.mm(x.cpu().sin(), w.cpu()).cos(), rtol=1e-4, atol=1e-4)
    del out
    assert torch.hal.memory_allocated(device) == before  # the temporaries went back when the call returned


def test_graphs_of_every_shape():
    """Factories with no hal input, an in-place op on an argument, CPU scalar tensors beside hal tensors,
    integer dtypes, an output that is a view of a compiled buffer (resizable, as eager outputs are)."""
    device = host_device()
    arange = torch.compile(lambda n: torch.arange(n, device=device) * 2)
    assert arange(5).device == device and arange(5).cpu().tolist() == [0, 2, 4, 6, 8]

    def add_in_place(x):
        x.add_(1)
        return x.sum()

    x = torch.zeros(4, device=device)
    assert torch.compile(add_in_place)(x).item() == 4.0 and x.cpu().tolist() == [1.0] * 4
    mixed = torch.compile(lambda a, b, c: (a * b + c).to(torch.int32))
    got = mixed(torch.arange(4, device=device), torch.tensor(3), torch.ones(4, dtype=torch.int64, device=device))
    assert got.dtype == torch.int32 and got.cpu().tolist() == [1, 4, 7, 10]
    plus_one_t = lambda a: (a + 1).reshape(2, 2).t()  # noqa: E731
    view, expected = torch.compile(plus_one_t)(torch.arange(4.0, device=device)), plus_one_t(torch.arange(4.0))
    assert view.device == device and view.cpu().tolist() == expected.tolist()
    view.resize_(10)
    expected.resize_(10)
    assert view.shape == (10,) and view[:4].cpu().tolist() == expected[:4].tolist()
    # Outputs of several kinds at once: a hal result, a CPU tensor made inside the graph, a view of an input.
    kinds = torch.compile(lambda a: (a * 2, (a + 1).to("cpu"), a[1:]))
    a = torch.arange(3.0, device=device)
    doubled, on_cpu, tail = kinds(a)
    assert doubled.device == device and doubled.cpu().tolist() == [0.0, 2.0, 4.0]
    assert on_cpu.device.type == "cpu" and on_cpu.tolist() == [1.0, 2.0, 3.0]
    assert tail.device == device and tail.data_ptr() == a.data_ptr() + a.element_size()


def test_second_host_device():
    result = run_python(
        "import torch, torch_hal\n"
        "x = torch.randn(8, 8)\n"
        "f = torch.compile(lambda a: torch.softmax(a @ a, dim=-1))\n"
        "y = f(x.to('hal:1'))\n"
        "assert y.device == torch.device('hal', 1), y.device\n"
        "torch.testing.assert_close(y.cpu(), torch.softmax(x @ x, dim=-1))\n"
        "print(torch.hal.memory_allocated(1) > 0, torch.hal.memory_allocated(0))\n",
        TORCH_HAL_HOST_DEVICES="2", HAL_VISIBLE_DEVICES="host:0,host:1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "0"], result.stdout  # its buffers are hal:1's memory


def test_dynamic_shapes_compile_once():
    device = host_device()
    counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")

    def f(x, w):
        return torch.tanh(x @ w).sum(dim=1)

    compiled = torch.compile(f, backend=counter, dynamic=True)
    w = torch.randn(7, 3)
    for rows in (2, 5, 9):
        x = torch.randn(rows, 7)
        torch.testing.assert_close(compiled(x.to(device), w.to(device)).cpu(), f(x, w), rtol=1e-5, atol=1e-5)
    assert counter.frame_count == 1


def test_graph_break_in_the_middle():
    from torch._dynamo.testing import CompileCounterWithBackend  # not imported by torch._dynamo itself

    device = host_device()
    counter = CompileCounterWithBackend("inductor")

    def f(x):
        y = torch.sin(x) * 2
        torch._dynamo.graph_break()
        return (y + x.cos()).mean(dim=0)

    x = torch.randn(4, 6)
    got = torch.compile(f, backend=counter)(x.to(device))
    torch.testing.assert_close(got.cpu(), f(x))
    assert counter.frame_count == 2  # one graph before the break, one after


def test_streams_in_stream_order():
    """Compiled code reads its inputs after the work queued on the current stream, whichever it is."""
    device = host_device()
    compiled = torch.compile(lambda a: (a * 3).sum())
    side = torch.hal.Stream(device)
    with torch.hal.stream(side):
        x = torch.full((1000,), 2.0, device=device)
        x.mul_(2)
        total = compiled(x)
    side.synchronize()
    assert total.item() == 12000.0


def test_device_interface():
    from torch._dynamo.device_interface import get_interface_for_device

    device = host_device()
    interface = get_interface_for_device("hal")
    assert interface.device_count() == torch.hal.device_count()
    assert interface.is_available()
    assert interface.current_device() == torch.hal.current_device()
    assert interface.get_device_properties(device).name == torch.hal.get_device_properties(device).name
    assert interface.current_stream().device_type == torch.hal.current_stream().device_type
    assert interface.get_raw_stream(device.index) == 0  # the host device has no vendor stream handle
    assert not interface.is_triton_capable(device)
    with interface.device(device.index):
        interface.synchronize()


def test_generated_code_calls():
    """The C calls compiled code makes once per buffer or kernel launch (csrc/torch/compile/generated_code_calls.cpp):
    what they return, and a clear error for what generated code never passes."""
    from torch_hal import _C

    device = host_device()
    with torch.hal.device(device):
        t = _C.empty_strided_hal((2, 3), (1, 2), torch.float16)
    assert t.device == device and t.shape == (2, 3) and t.stride() == (1, 2) and t.dtype == torch.float16
    before = torch.hal.memory_allocated(device)
    buffer = _C.host_buffer_allocator(device.index)([4, 5], [5, 1], torch.float32)
    assert buffer.device.type == "cpu" and buffer.shape == (4, 5)
    assert torch.hal.memory_allocated(device) - before >= 80  # in the hal device's memory
    assert _C.current_raw_stream(device.index) == 0  # the host device has no vendor stream
    current = torch.hal.current_device()
    assert _C.exchange_device(device.index) == current and torch.hal.current_device() == device.index
    assert _C.exchange_device(current) == device.index and torch.hal.current_device() == current
    assert _C.exchange_device(-1) == current and torch.hal.current_device() == current  # -1 changes nothing
    with pytest.raises(TypeError, match="takes 3 arguments"):
        _C.empty_strided_hal((2,), (1,))
    with pytest.raises(TypeError, match="size must be a tuple or list of ints"):
        _C.empty_strided_hal(2, (1,), torch.float32)
    with pytest.raises(ValueError, match="2 sizes but 1 strides"):
        _C.empty_strided_hal((2, 3), (1,), torch.float32)
    with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
        _C.empty_strided_hal((2,), (1,), "float32")
    with pytest.raises(IndexError):
        _C.host_buffer_allocator(torch.hal.device_count() + 5)


def test_inputs_that_only_kernels_take_are_not_viewed():
    """A C++ kernel takes a hal tensor's data pointer as it takes a CPU tensor's, so the inputs that only kernels
    take (here the norms' parameters and running statistics) are waited for, not viewed; the linear layer's,
    which its extern matrix multiply takes, are viewed. The results are eager mode's."""
    import re

    from torch._inductor.utils import run_and_get_code

    build, shape = MODELS["norm_net"]
    torch.manual_seed(0)
    model = build().eval()
    x = torch.randn(shape)
    with torch.no_grad():
        expected = model(x)
        device = host_device()
        got, code = run_and_get_code(torch.compile(model.to(device)), x.to(device))
    torch.testing.assert_close(got.cpu(), expected)
    joined = "\n".join(code)
    viewed = re.search(r"= _hal_views\((.*)\)", joined).group(1).split(", ")
    waited = re.search(r"_hal_wait\((.*)\)", joined).group(1).split(", ")
    assert len(viewed) == 3, joined  # the linear layer's weight and bias, and x
    assert len(waited) == 6, joined  # two norms' weights and biases, the running mean and variance
    for name in waited:
        assert f"extern_kernels.addmm({name}" not in joined and f"reinterpret_tensor({name}" not in joined


def test_cpu_views_are_kept_with_their_hal_tensors():
    """A hal tensor's CPU view is made once and handed out again while it still views the tensor's bytes (the
    parameters of every step); a tensor whose storage, size or place changed gets a new one, a shallow copy gets
    its own, and the kept view lives and dies with its tensor, holding no memory after it. Compiled code follows
    a parameter replaced between calls."""
    from torch_hal import _C

    device = host_device()
    t = torch.arange(6.0, device=device)
    view = _C.compile_host_views(t)[0]
    assert view.device.type == "cpu" and view.data_ptr() == t.data_ptr()
    assert _C.compile_host_views(t)[0] is view
    t.data = torch.arange(6.0, 12.0, device=device)  # a new storage
    assert torch.equal(_C.compile_host_views(t)[0], torch.arange(6.0, 12.0))
    t.resize_(100)  # new memory of the same storage
    moved = _C.compile_host_views(t)[0]
    assert moved.shape == (100,) and moved.data_ptr() == t.data_ptr()
    detached = t.detach()  # a tensor of its own: its own view
    assert _C.compile_host_views(detached)[0] is not moved
    detached.set_(torch.ones(3, device=device))
    assert torch.equal(_C.compile_host_views(detached)[0], torch.ones(3))
    assert _C.compile_host_views(t)[0] is moved
    torch.hal.synchronize(device)
    before = torch.hal.memory_allocated(device)
    del t, view, moved
    assert torch.hal.memory_allocated(device) < before  # the kept view held nothing past its tensor

    layer = torch.nn.Linear(4, 3).to(device)
    compiled = torch.compile(layer)
    x = torch.randn(2, 4)
    with torch.no_grad():
        compiled(x.to(device))
        layer.weight.data = torch.randn(3, 4, device=device)
        got = compiled(x.to(device))
    torch.testing.assert_close(got.cpu(), torch.nn.functional.linear(x, layer.weight.cpu(), layer.bias.cpu()))


def _norm_model_training_step():
    """The norm model trained one step eagerly on CPU tensors (the reference) and compiled on the host device from
    the same weights: (reference, hal model, compiled hal model, input, device, the generated code)."""
    from torch._inductor.utils import run_and_get_code

    build, shape = MODELS["norm_net"]
    torch.manual_seed(0)
    reference = build()
    x = torch.randn(shape)
    reference(x).square().mean().backward()
    device = host_device()
    model = build().to(device)
    model.load_state_dict(reference.state_dict())
    compiled = torch.compile(model)
    _, code = run_and_get_code(lambda: compiled(x.to(device)).square().mean().backward())
    return reference, model, compiled, x, device, code


def test_parameters_a_training_forward_saves_are_not_viewed():
    """A training forward returns the parameters its backward needs; those that only its C++ kernels take leave
    as the hal tensors they came in as (the backward takes them as well), so they are not viewed. Training
    matches eager mode, gradients included, and an in-place change to a saved parameter before the backward
    still raises autograd's error."""
    import re

    reference, model, compiled, x, device, code = _norm_model_training_step()
    forward = next(c for c in code if "return _hal_outputs(" in c and "primals_1, primals_2" in c)
    viewed = re.search(r"= _hal_views\((.*)\)", forward).group(1).split(", ")
    returned = re.search(r"return _hal_outputs\(\((.*)\), \(", forward).group(1)
    saved_unviewed = [n for n in re.findall(r"primals_\d+", returned) if n not in viewed]
    assert len(viewed) == 3, forward  # the linear layer's weight and bias, and x
    assert len(saved_unviewed) == 4, forward  # the two norms' weights and biases
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad.cpu(), q.grad, rtol=1e-4, atol=1e-5)
    loss = compiled(x.to(device)).square().mean()
    with torch.no_grad():
        model.layer_norm.weight.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_gradients_only_kernels_write_are_hal_tensors_from_the_start():
    """A training backward's gradients that only its C++ kernels write are allocated as hal tensors and leave as
    they are, whole or reinterpreted (the linear layer's bias gradient, summed into a [1, n] buffer); the weight
    gradient an extern matmul writes (out=) stays a CPU buffer in device memory, wrapped at the return.
    Gradients match eager mode, the memory statistics count them, and a second step reuses their memory (no
    growth)."""
    import re

    reference, model, compiled, x, device, code = _norm_model_training_step()
    backward = next(c for c in code if "tangents_1" in c)
    on_device = re.findall(r"(buf\d+) = empty_strided_hal_output\(", backward)
    reused = dict(re.findall(r"(buf\d+) = (buf\d+); del \2  # reuse", backward))  # new name: old name

    def allocated_as(name):
        while name in reused:
            name = reused[name]
        return name

    returned = re.search(r"return _hal_outputs\(\((.*)\), \(", backward).group(1)
    returned_buffers = [allocated_as(b) for b in re.findall(r"(?:^|, |reinterpret_tensor\()(buf\d+)", returned)]
    # the norms' weight and bias gradients, and the linear layer's bias gradient
    assert len(on_device) == 5 and all(name in returned_buffers for name in on_device), backward
    assert allocated_as(re.search(r"reinterpret_tensor\((buf\d+)", returned).group(1)) in on_device, backward
    matmul_out = re.search(r"extern_kernels\.mm\(.*out=(buf\d+)\)", backward).group(1)
    assert re.search(rf"{matmul_out} = empty_strided_cpu\(", backward), backward
    for p, q in zip(model.parameters(), reference.parameters()):
        assert p.grad.device == device
        torch.testing.assert_close(p.grad.cpu(), q.grad, rtol=1e-4, atol=1e-5)
    grad_bytes = sum(p.grad.untyped_storage().nbytes() for p in model.parameters())
    torch.hal.synchronize(device)
    held = torch.hal.memory_allocated(device)
    assert held >= grad_bytes
    for p in model.parameters():
        p.grad = None
    compiled(x.to(device)).square().mean().backward()
    torch.hal.synchronize(device)
    assert torch.hal.memory_allocated(device) == held


def test_compiled_code_allocates_with_the_fast_calls():
    from torch._inductor.utils import run_and_get_code

    device = host_device()
    x = torch.randn(8, 8, device=device)
    _, code = run_and_get_code(torch.compile(lambda a: (a.relu() * 2, a.sum(0))), x)
    joined = "\n".join(code)
    # Buffers that leave as hal tensors come from the device's memory through one bound C function (no Python
    # frame per buffer).
    assert "empty_strided_cpu = _hal_buffer_allocator(" in joined, joined[:3000]
    assert "def empty_strided_cpu" not in joined


def test_without_host_access_inductor_names_aot_eager():
    """A device whose memory the CPU cannot address and no Triton: Inductor refuses with the way out, and
    aot_eager runs."""
    result = run_python(
        "import torch, torch_hal\n"
        "f = lambda x: torch.relu(x) + 1\n"
        "x = torch.randn(4).to('hal:0')\n"
        "torch.testing.assert_close(torch.compile(f, backend='aot_eager')(x).cpu(), f(x.cpu()))\n"
        "try:\n"
        "    torch.compile(f)(x)\n"
        "except Exception as e:\n"
        "    print('ERROR', e)\n",
        TORCH_HAL_HOST_ACCESSIBLE="0", HAL_VISIBLE_DEVICES="host:0")
    assert result.returncode == 0, result.stderr
    assert "ERROR" in result.stdout and 'backend="aot_eager"' in result.stdout, result.stdout


@pytest.mark.parametrize("input_format", [torch.contiguous_format, torch.channels_last])
@pytest.mark.parametrize("weight_format", [torch.contiguous_format, torch.channels_last])
def test_fake_convolution_predicts_the_layout_hal_returns(input_format, weight_format):
    """Compiled graphs check real outputs against fake ones. PyTorch 2.11's fake convolution alone calls every
    PrivateUse1 output contiguous (torch_hal/compile/conv_layout.py tells it hal's rule; 2.13 has the same rule
    itself); the Triton suite checks the same on the GPU, under Inductor's layout optimization."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    device = host_device()
    x = torch.randn(2, 3, 8, 8).to(device).contiguous(memory_format=input_format)
    w = torch.randn(4, 3, 3, 3).to(device).contiguous(memory_format=weight_format)
    args = (None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    real = torch.ops.aten.convolution(x, w, *args)
    with FakeTensorMode() as mode:
        fake = torch.ops.aten.convolution(mode.from_tensor(x), mode.from_tensor(w), *args)
    assert fake.device == device and fake.stride() == real.stride(), (fake.stride(), real.stride())


def test_conv_net_code_is_the_cpu_code_within_the_boundary():
    """Inductor lays a conv net out channels-last, and the activations its forward saves for the backward keep
    that layout on the host device as on CPU tensors: apart from the boundary calls (_hal_views, _hal_wait,
    _hal_outputs) and which outputs are hal tensors from the start, the training graphs' code is the code
    compiled for CPU tensors. Pinning hal outputs to their fake tensors' strides once added layout copies that
    cost a conv net's step 10%."""
    import re

    from torch._inductor.utils import run_and_get_code

    build, shape = MODELS["conv_net"]

    def training_code(device):
        torch.manual_seed(0)
        model = build().to(device)
        x = torch.randn(shape, device=device)
        compiled = torch.compile(model)
        _, code = run_and_get_code(lambda: (compiled(x) ** 2).mean().backward())
        return code

    def call_bodies(code):
        bodies = []
        for module in code:
            body = module[module.index("def call("):]
            lines = []
            for line in body.splitlines():
                if "_hal_views(" in line or line.strip().startswith(("#", "assert_size_stride", "_hal_wait(")):
                    continue
                line = line.replace("empty_strided_hal_output(", "empty_strided_cpu(")
                line = re.sub(r"return _hal_outputs\((\(.*\)), \([-0-9, ]*\)\)$", r"return \1", line)
                lines.append(line.rstrip())
                if line.strip().startswith("return"):
                    break
            bodies.append("\n".join(lines))
        return bodies

    cpu, hal = call_bodies(training_code("cpu")), call_bodies(training_code(host_device()))
    assert len(hal) == len(cpu) == 2  # forward and backward
    # Layout optimization took place: buffers of 4-d activations with a channel stride of 1 (channels-last).
    assert re.search(r"empty_strided_cpu\(\(\d+, \d+, \d+, \d+\), \(\d+, 1, \d+, \d+\)", cpu[0]), cpu[0]
    for expected, got in zip(cpu, hal):
        assert got == expected


def test_saved_activations_stay_cpu_tensors_in_device_memory():
    """A training forward hands back as hal tensors only what the user sees; what its backward alone takes
    stays CPU tensors over the device's memory (no wrapping there and back), which the device's statistics
    count until the backward frees it."""
    from torch._inductor.utils import run_and_get_code

    device = host_device()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4)).to(device)
    compiled = torch.compile(model)
    x = torch.randn(8, 16, device=device)
    before = torch.hal.memory_allocated(device)
    out, code = run_and_get_code(compiled, x)
    forward = next(c for c in code if "_hal_outputs(" in c)
    devices = forward[forward.index("return _hal_outputs("):].splitlines()[0].rsplit("(", 1)[1]
    assert devices.startswith("0, -1"), devices  # the output, then what the backward saves
    assert out.device == device
    assert torch.hal.memory_allocated(device) - before >= 8 * 32 * 4  # the saved tanh activation at least
    out.sum().backward()
    del out
    model.zero_grad(set_to_none=True)
    assert torch.hal.memory_allocated(device) == before  # the backward freed them


def test_in_place_change_to_a_saved_input_raises_as_on_cpu():
    """A compiled backward that saved a parameter notices an in-place change to it made after the forward,
    as autograd does for CPU tensors (the CPU views the host graph takes share the hal tensors' version
    counters), rather than computing a gradient from the changed values."""
    device = host_device()
    layer = torch.nn.Linear(4, 4).to(device)
    compiled = torch.compile(lambda x: torch.tanh(layer(x)).sum())
    loss = compiled(torch.randn(3, 4, device=device, requires_grad=True))
    with torch.no_grad():
        layer.weight.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
