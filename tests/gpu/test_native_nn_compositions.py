"""nn ops composed from native ones, on a GPU in strict mode (any op reaching the CPU fallback fails) against
PyTorch's CPU results, in the dtypes the OpenCL tests (tests/python/test_opencl_nn_compositions.py) cannot run:
reflection padding with negative padding (padding_ops.cpp), avg_pool2d with a negative divisor_override
(pooling_ops.cpp), unfold_backward's slice additions and its accumulating launch for small steps
(unfold_backward_ops.cpp), sgn's zero-tensor gradient (zero_tensor_ops.cpp), _segment_reduce
(segment_reduce_ops.cpp), embedding's max_norm (embedding_ops.cpp) and the margin losses (margin_loss_ops.cpp)."""
import pytest
import torch
import torch.nn.functional as F

from test_native_elementwise import check, make

FLOATS = [torch.float32, torch.float16, torch.bfloat16]


def both(fn, x, *args, device, grad=True, dtype=None):
    """fn(x, *args) on the device (strict) and on the CPU; with grad, the gradients of (out * w).sum() too."""
    def on(where):
        leaf = x.detach().clone().to(where).requires_grad_(grad)
        moved = [a.to(where) if isinstance(a, torch.Tensor) else a for a in args]
        out = fn(leaf, *moved)
        if grad:
            w = torch.linspace(-1, 2, out.numel()).reshape(out.shape).to(out.dtype).to(where)
            (out * w).sum().backward()
        return out, leaf.grad
    with torch.hal.strict():
        got, got_grad = on(device)
        torch.hal.synchronize(device)
    want, want_grad = on("cpu")
    check(got, want, dtype)
    if grad:
        check(got_grad, want_grad, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,pad", [((1, 3, 4, 4), (-1, 1, -2, 1)), ((2, 3, 5, 6), (4, -3, 2, 3)),
                                       ((2, 3, 7), (3, 6)), ((1, 2, 3, 4, 5), (1, 1, 2, 2, -1, 1))])
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_reflection_and_replication_pad(gpu_device, dtype, shape, pad, mode):
    both(lambda u: F.pad(u, pad, mode=mode), make(shape, dtype), device=gpu_device)


def test_reflection_pad_complex(gpu_device):
    z = torch.complex(make((2, 3, 4, 4), torch.float32), make((2, 3, 4, 4), torch.float32, seed=1))
    both(lambda u: F.pad(u, (-1, 1, -2, 1), mode="reflect"), z, device=gpu_device, grad=False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("divisor", [-2, -3, 5])
def test_avg_pool2d_divisor(gpu_device, dtype, divisor):
    both(lambda u: F.avg_pool2d(u, 2, padding=1, ceil_mode=True, divisor_override=divisor),
         make((2, 3, 5, 6), dtype), device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim,size,step", [((), 0, 1, 1), ((5, 5, 5), 0, 3, 1), ((10,), 0, 3, 3),
                                                  ((4, 40), 1, 20, 1), ((3, 17), -1, 5, 2)])
def test_unfold_backward(gpu_device, dtype, shape, dim, size, step):
    both(lambda u: u.unfold(dim, size, step), make(shape, dtype), device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sgn_gradient(gpu_device, dtype):
    both(torch.sgn, make((20, 20), dtype), device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 2.0])
@pytest.mark.parametrize("index", ["lengths", "offsets"])
def test_segment_reduce(gpu_device, dtype, reduce, initial, index):
    x = make((2, 6, 3), dtype).round()  # ties for max and min, zeros for prod
    lengths = torch.tensor([[1, 3, 0, 2], [2, 2, 2, 0]])
    offsets = torch.cat([torch.zeros(2, 1, dtype=torch.long), lengths.cumsum(1)], 1)
    kw = dict(lengths=lengths) if index == "lengths" else dict(offsets=offsets)
    both(lambda u, ix: torch._segment_reduce(u, reduce, axis=1, initial=initial, **{index: ix}), x, kw[index],
         device=gpu_device, grad=dtype == torch.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_embedding_max_norm(gpu_device, dtype):
    w = make((6, 5), dtype)
    idx = torch.tensor([[0, 1, 1], [4, 0, 3]])
    wd, wc = w.to(gpu_device), w.clone()
    with torch.hal.strict():
        out = F.embedding(idx.to(gpu_device), wd, max_norm=1.0)
    check(out, F.embedding(idx, wc, max_norm=1.0))
    check(wd, wc)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(gpu_device, reduction, p):
    y = torch.tensor([2, 0, 4, 1, 1, 3, 0])
    w = make((5,), torch.float32, 0, 2)
    both(lambda u, t, ws: F.multi_margin_loss(u, t, p=p, margin=0.7, weight=ws, reduction=reduction),
         make((7, 5), torch.float32), y, w, device=gpu_device)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(gpu_device, reduction):
    t = torch.tensor([[1, 3, -1, 0, 2], [4, 4, 0, -1, -1], [-1, 1, 2, 3, 4], [0, 1, 2, 3, 4]])
    both(lambda u, tt: F.multilabel_margin_loss(u, tt, reduction=reduction), make((4, 5), torch.float32), t,
         device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,out", [((2, 3, 7, 8, 9), (3, 4, 5)), ((3, 5, 6, 7), (5, 6, 7))])
def test_adaptive_max_pool3d(gpu_device, dtype, shape, out):
    x = make(shape, dtype).round()  # ties: the first largest, as on the CPU
    both(lambda u: F.adaptive_max_pool3d(u, out), x, device=gpu_device, grad=dtype == torch.float32)
    with torch.hal.strict():
        _, indices = F.adaptive_max_pool3d(x.to(gpu_device), out, return_indices=True)
    assert torch.equal(indices.cpu(), F.adaptive_max_pool3d(x, out, return_indices=True)[1])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,k,out", [((2, 3, 9, 10), (2, 3), (4, 5)), ((3, 9, 10), 2, (5, 4)),
                                         ((2, 3, 7, 8, 9), (2, 2, 3), (3, 4, 5))])
def test_fractional_max_pool(gpu_device, dtype, shape, k, out):
    spatial = len(out)
    x = make(shape, dtype).round()
    samples = make((shape[0] if len(shape) == spatial + 2 else 1, shape[-spatial - 1], spatial), dtype, 0, 1)
    fn = F.fractional_max_pool2d if spatial == 2 else F.fractional_max_pool3d
    both(lambda u, s: fn(u, k, output_size=out, _random_samples=s), x, samples, device=gpu_device,
         grad=dtype == torch.float32)
