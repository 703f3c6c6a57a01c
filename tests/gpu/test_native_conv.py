"""Native convolutions (adapter.h ops 1000..1002: cuDNN on NVIDIA, the kernel library's implicit GEMM on AMD): conv1d/2d/3d and transposed convolutions
with stride, padding, dilation, groups, bias, channels-last and strided inputs, forward and backward (input,
weight and bias gradients), compared with the CPU in strict mode, so that a fallback fails the test (the
`native` fixture). float16/bfloat16 results are compared with the CPU's float32 results on the same (exactly
upcast) inputs: cuDNN accumulates them in float32. float32 runs without TF32 (torch.backends.cudnn.allow_tf32
False) where exactness is checked, and with it, as torch.cuda's default, at TF32's tolerance. Skips without a
GPU."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from native_nn_helpers import FLOAT_DTYPES, assert_close, make, native  # noqa: F401  (fixtures)

REDUCED = (torch.float16, torch.bfloat16)
HAL_OP_CONVOLUTION = 1000  # adapter.h


@pytest.fixture(autouse=True)
def adapter_with_convolutions(gpu_device):
    """These tests are about an adapter's own convolution ops; one without them runs convolutions through the
    counted CPU fallback, which test_native_nn.py checks."""
    import torch_hal
    support = torch_hal._C.adapter_op_support(gpu_device.index, HAL_OP_CONVOLUTION, torch.float32)
    if support != "supported":
        adapter = torch.hal.get_device_properties(gpu_device.index).adapter
        pytest.skip(f"the {adapter} adapter has no convolution ops ({support})")


@pytest.fixture(autouse=True)
def no_tf32():
    """Exact float32 unless a test turns TF32 on (restored afterwards)."""
    saved = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32 = saved


def _run(fn, inputs, device, grad=None, upcast=False, memory_format=None, transform=None):
    """fn(*inputs) on `device` and its backward with `grad`; returns (output, input gradients, grad)."""
    leaves = []
    for t in inputs:
        if t is None:
            leaves.append(None)
            continue
        t = t.detach()
        if upcast and t.dtype in REDUCED:
            t = t.float()
        t = t.to(device)
        if memory_format is not None and t.dim() in (4, 5):
            t = t.contiguous(memory_format=memory_format)
        leaves.append(t.requires_grad_(True))
    args = [transform(t) if (transform and t is not None and t is leaves[0]) else t for t in leaves]
    out = fn(*args)
    if grad is None:
        grad = make(out.shape, out.dtype, seed=7, low=-1, high=1)
    out.backward(grad.to(device=device, dtype=out.dtype))
    return out.detach(), [t.grad for t in leaves if t is not None], grad


def terms_per_element(fn, inputs, transform=None):
    """How many products each element of the output and of every input gradient sums (bias included), found
    by running fn and its backward on all-ones inputs and upstream gradient in float64: the reduction length k
    that the tolerance of each compared tensor is derived from (a convolution's output sums C/groups * kernel
    products, a weight gradient N * output-size, a bias gradient N * output-size, an input gradient what
    stride, padding and dilation leave of O/groups * kernel)."""
    leaves = [None if t is None else torch.ones(t.shape, dtype=torch.float64, requires_grad=True) for t in inputs]
    args = [transform(t) if (transform and t is not None and t is leaves[0]) else t for t in leaves]
    out = fn(*args)
    out.backward(torch.ones_like(out))
    counts = [out.detach()] + [t.grad for t in leaves if t is not None]
    return [max(1, int(c.max().item())) if c.numel() else 1 for c in counts]


def check_conv(gpu_device, native, fn, inputs, memory_format=None, transform=None):
    """fn natively on the GPU against the CPU's float reference: output and every input's gradient. Inputs and
    upstream gradient lie in [-1, 1], so every product summed is at most 1 in size; each compared tensor gets
    tol(dtype, k) with k its own reduction length (terms_per_element): rtol a few ulps of the dtype, atol the
    rounding error of a typical sum of k such products."""
    dtype = inputs[0].dtype
    with native():
        got, got_grads, grad = _run(fn, inputs, gpu_device, memory_format=memory_format, transform=transform)
    want, want_grads, _ = _run(fn, inputs, "cpu", grad=grad, upcast=True, transform=transform)
    terms = terms_per_element(fn, inputs, transform)
    assert len(got_grads) == len(want_grads) == len(terms) - 1
    assert_close(got, want.to(dtype), k=terms[0])
    for g, w, k in zip(got_grads, want_grads, terms[1:]):
        assert_close(g, w.to(dtype), k=k)
    if memory_format is not None and got.dim() in (4, 5):
        assert got.is_contiguous(memory_format=memory_format), "the output keeps the input's channels-last layout"
    return got


CONV2D_CASES = [
    # (N, C, H, W), (O, C/groups, kH, kW), stride, padding, dilation, groups
    ((2, 3, 9, 11), (4, 3, 3, 3), 1, 1, 1, 1),
    ((2, 4, 16, 16), (8, 4, 3, 3), 2, 1, 1, 1),
    ((1, 8, 13, 10), (8, 2, 3, 5), (2, 1), (1, 2), (2, 1), 4),
    ((3, 6, 12, 12), (6, 1, 3, 3), 1, 1, 1, 6),   # depthwise
    ((2, 16, 7, 7), (32, 16, 1, 1), 1, 0, 1, 1),  # pointwise
    ((2, 3, 32, 32), (16, 3, 7, 7), 2, 3, 1, 1),  # a ResNet stem
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", CONV2D_CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d(gpu_device, native, dtype, case, bias):
    xs, ws, stride, padding, dilation, groups = case
    x, w = make(xs, dtype, seed=1, low=-1, high=1), make(ws, dtype, seed=2, low=-1, high=1)
    b = make((ws[0],), dtype, seed=3, low=-1, high=1) if bias else None
    fn = lambda x, w, b=None: F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)
    check_conv(gpu_device, native, fn, [x, w, b] if bias else [x, w])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", CONV2D_CASES[:4])
def test_conv2d_channels_last(gpu_device, native, dtype, case):
    xs, ws, stride, padding, dilation, groups = case
    x, w = make(xs, dtype, seed=1, low=-1, high=1), make(ws, dtype, seed=2, low=-1, high=1)
    b = make((ws[0],), dtype, seed=3, low=-1, high=1)
    fn = lambda x, w, b: F.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)
    check_conv(gpu_device, native, fn, [x, w, b], memory_format=torch.channels_last)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_conv2d_strided_input(gpu_device, native, dtype):
    """A transposed (non-dense) input view is made dense before cuDNN sees it."""
    x = make((2, 5, 12, 10), dtype, seed=1, low=-1, high=1)
    w = make((6, 5, 3, 3), dtype, seed=2, low=-1, high=1)
    check_conv(gpu_device, native, lambda x, w: F.conv2d(x, w, padding=1), [x, w],
               transform=lambda t: t.transpose(2, 3))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 3, 2, 2), (3, 1, 1, 4)])
def test_conv1d(gpu_device, native, dtype, stride, padding, dilation, groups):
    x = make((3, 8, 50), dtype, seed=1, low=-1, high=1)
    w = make((12, 8 // groups, 5), dtype, seed=2, low=-1, high=1)
    b = make((12,), dtype, seed=3, low=-1, high=1)
    fn = lambda x, w, b: F.conv1d(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)
    check_conv(gpu_device, native, fn, [x, w, b])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_conv3d(gpu_device, native, dtype, channels_last):
    if channels_last and dtype == torch.float64:
        pytest.skip("channels-last float64 3-D convolutions: not a layout torch.cuda uses either")
    x = make((2, 4, 6, 9, 8), dtype, seed=1, low=-1, high=1)
    w = make((6, 2, 3, 3, 2), dtype, seed=2, low=-1, high=1)
    b = make((6,), dtype, seed=3, low=-1, high=1)
    fn = lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 1, 0), dilation=(1, 1, 2), groups=2)
    check_conv(gpu_device, native, fn, [x, w, b],
               memory_format=torch.channels_last_3d if channels_last else None)


TRANSPOSED_CASES = [
    # dims, (N, C_in, S...), (C_in, C_out/groups, K...), stride, padding, output_padding, dilation, groups
    (1, (2, 6, 17), (6, 4, 3), 2, 1, 1, 1, 1),
    (2, (2, 4, 7, 9), (4, 3, 3, 3), 2, 1, 1, 1, 1),
    (2, (1, 8, 6, 6), (8, 2, 4, 4), 2, 1, 0, 1, 4),
    (2, (2, 4, 5, 5), (4, 5, 3, 2), (1, 2), (0, 1), (0, 1), (2, 1), 1),
    (3, (1, 4, 4, 5, 3), (4, 2, 3, 3, 3), 2, 1, 1, 1, 2),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", TRANSPOSED_CASES)
def test_conv_transpose(gpu_device, native, dtype, case):
    dims, xs, ws, stride, padding, output_padding, dilation, groups = case
    x, w = make(xs, dtype, seed=1, low=-1, high=1), make(ws, dtype, seed=2, low=-1, high=1)
    b = make((ws[1] * groups,), dtype, seed=3, low=-1, high=1)
    op = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[dims]
    fn = lambda x, w, b: op(x, w, b, stride=stride, padding=padding, output_padding=output_padding,
                            groups=groups, dilation=dilation)
    check_conv(gpu_device, native, fn, [x, w, b])


def test_conv_transpose2d_channels_last(gpu_device, native):
    x = make((2, 8, 9, 7), torch.float16, seed=1, low=-1, high=1)
    w = make((8, 4, 3, 3), torch.float16, seed=2, low=-1, high=1)
    fn = lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    check_conv(gpu_device, native, fn, [x, w], memory_format=torch.channels_last)


def test_padding_same_and_modules(gpu_device, native):
    """padding='same' (ATen pads asymmetric cases itself) and nn modules reach the same kernels."""
    x = make((2, 3, 10, 11), torch.float32, seed=1, low=-1, high=1)
    w = make((5, 3, 4, 3), torch.float32, seed=2, low=-1, high=1)
    check_conv(gpu_device, native, lambda x, w: F.conv2d(x, w, padding="same", dilation=(1, 2)), [x, w])
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 4, 3, padding=1)
    gpu_conv = nn.Conv2d(3, 4, 3, padding=1).to(gpu_device)
    gpu_conv.load_state_dict(conv.state_dict())
    with native():
        got = gpu_conv(x.to(gpu_device))
        got.sum().backward()
    want = conv(x)
    want.sum().backward()
    # |x| <= 1 and |weight|, |bias| <= 1/sqrt(27): an output sums 27 products and a bias, each at most 1; the
    # weight and bias gradients (upstream gradient 1) sum one term per output position, 2 * 10 * 11 of them.
    assert_close(got, want.detach(), k=28)
    assert_close(gpu_conv.weight.grad, conv.weight.grad, k=2 * 10 * 11)
    assert_close(gpu_conv.bias.grad, conv.bias.grad, k=2 * 10 * 11)


def test_tf32_default_matches_torch_cuda_tolerance(gpu_device, native):
    """With TF32 allowed (torch.cuda's default for cuDNN) float32 convolutions may use tensor cores: close
    to the CPU at TF32's precision (10-bit mantissa)."""
    torch.backends.cudnn.allow_tf32 = True
    x = make((4, 32, 16, 16), torch.float32, seed=1, low=-1, high=1)
    w = make((64, 32, 3, 3), torch.float32, seed=2, low=-1, high=1)
    with native():
        got = F.conv2d(x.to(gpu_device), w.to(gpu_device), padding=1)
    torch.testing.assert_close(got.cpu(), F.conv2d(x, w, padding=1), atol=5e-2, rtol=5e-3)


def test_empty_batch_takes_the_fallback_path_correctly(gpu_device):
    """A zero-size batch is not sent to cuDNN; the result still has the right shape."""
    x = torch.empty(0, 3, 8, 8, device=gpu_device)
    w = torch.randn(4, 3, 3, 3).to(gpu_device)
    assert F.conv2d(x, w, padding=1).shape == (0, 4, 8, 8)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.block = nn.Conv2d(16, 16, 3, padding=1, groups=2)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        x = F.relu(self.block(x)) + x
        x = self.up(x)
        return self.head(x.mean(dim=(2, 3)))


@pytest.mark.parametrize("channels_last", [False, True])
def test_convnet_training_steps_do_not_fall_back(gpu_device, channels_last):
    """SGD steps of a small convnet on the GPU and the CPU from the same weights: the losses agree and no
    convolution went through the CPU fallback."""
    torch.manual_seed(0)
    cpu_model, gpu_model = ConvNet(), ConvNet().to(gpu_device)
    gpu_model.load_state_dict(cpu_model.state_dict())
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    gpu_model = gpu_model.to(memory_format=fmt)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(4, 3, 32, 32, generator=g)
    target = torch.randint(0, 10, (4,), generator=g)
    losses = {}
    torch.hal.reset_fallback_stats()
    for name, model, device in (("gpu", gpu_model, gpu_device), ("cpu", cpu_model, "cpu")):
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        xs, ts = x.to(device).contiguous(memory_format=fmt), target.to(device)
        losses[name] = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(xs), ts)
            loss.backward()
            opt.step()
            losses[name].append(loss.item())
    stats = torch.hal.fallback_stats()
    assert not ({"aten::convolution", "aten::convolution_backward"} & set(stats)), stats
    assert losses["gpu"] == pytest.approx(losses["cpu"], rel=1e-3, abs=1e-4)
