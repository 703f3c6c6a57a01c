"""PyTorch features hal lacks (quantized, sparse and strided nested tensors) fail with an error naming the op
and the fix, never a broken result; the nn.TransformerEncoder fast path and torch.accelerator.memory._snapshot
work on hal and match the CPU (issue 44, part 5)."""
import warnings

import pytest
import torch

import torch_hal  # noqa: F401
from torch_hal.pytorch_gaps import HalUnsupportedError

warnings.filterwarnings("ignore", message=".*quantiz.*deprecated")
warnings.filterwarnings("ignore", message=".*[Ss]parse.*")
warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")

HAL = "hal:0"


def _raises(fn, op, *words):
    with pytest.raises(NotImplementedError) as info:
        fn()
    text = str(info.value)
    assert isinstance(info.value, HalUnsupportedError), text
    assert op in text and "not supported on hal" in text, text
    for word in words:
        assert word in text, text
    return text


# ------------------------------------------------------------------------------------------------ quantized
def test_quantize_per_tensor_raises_naming_the_op_and_the_cpu_route():
    x = torch.randn(8, device=HAL)
    _raises(lambda: torch.quantize_per_tensor(x, 0.1, 0, torch.qint8), "aten::quantize_per_tensor",
            "quantize on the CPU", "fake_quantize_per_tensor_affine")
    _raises(lambda: torch.quantize_per_tensor(x, torch.tensor(0.1, device=HAL), torch.tensor(0, device=HAL),
                                              torch.quint8), "aten::quantize_per_tensor.tensor_qparams")
    _raises(lambda: torch.quantize_per_channel(x.view(2, 4), torch.ones(2, device=HAL), torch.zeros(2, dtype=torch.long,
                                               device=HAL), 0, torch.qint8), "aten::quantize_per_channel")
    _raises(lambda: torch.quantize_per_tensor_dynamic(x, torch.quint8, False), "aten::quantize_per_tensor_dynamic")
    _raises(lambda: torch._make_per_tensor_quantized_tensor(torch.zeros(4, dtype=torch.int8, device=HAL), 0.1, 0),
            "aten::_make_per_tensor_quantized_tensor")


def test_quantized_tensors_cannot_reach_hal():
    q = torch.quantize_per_tensor(torch.randn(4), 0.1, 0, torch.qint8)
    _raises(lambda: q.to(HAL), "quantized tensors", "quantize on the CPU")
    _raises(lambda: torch.empty(3, dtype=torch.qint8, device=HAL), "quantized tensors")
    _raises(lambda: torch._empty_affine_quantized([3], scale=0.1, zero_point=0, dtype=torch.qint8, device=HAL),
            "aten::_empty_affine_quantized")


def test_fake_quantize_the_hal_route_matches_cpu():
    x = torch.randn(64)
    cpu = torch.fake_quantize_per_tensor_affine(x, 0.05, 3, -128, 127)
    hal = torch.fake_quantize_per_tensor_affine(x.to(HAL), 0.05, 3, -128, 127)
    assert hal.device.type == "hal"
    torch.testing.assert_close(hal.cpu(), cpu, rtol=0, atol=0)
    # and the CPU route the message names works: quantized CPU tensor from a hal tensor's values
    q = torch.quantize_per_tensor(x.to(HAL).cpu(), 0.05, 3, torch.qint8)
    assert q.is_quantized
    torch.testing.assert_close(q.dequantize(), torch.quantize_per_tensor(x, 0.05, 3, torch.qint8).dequantize())


# ------------------------------------------------------------------------------------------------ sparse
def test_to_sparse_raises_and_leaves_the_dense_tensor_usable():
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0]], device=HAL)
    _raises(lambda: x.to_sparse(), "aten::_to_sparse", "x.cpu().to_sparse()", "to_dense")
    _raises(lambda: x.to_sparse(1), "aten::_to_sparse")
    _raises(lambda: x.to_sparse_csr(), "aten::_to_sparse_csr")
    _raises(lambda: x.to_sparse_csc(), "aten::_to_sparse_csc")
    _raises(lambda: x.to_sparse_bsr((1, 1)), "aten::_to_sparse_bsr")
    torch.testing.assert_close((x * 2).cpu(), torch.tensor([[2.0, 0.0], [0.0, 4.0]]))
    # the CPU route works and gives the same values
    torch.testing.assert_close(x.cpu().to_sparse().to_dense(), x.cpu())


def test_sparse_constructors_and_copies_to_hal_raise():
    i, v = torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0])
    _raises(lambda: torch.sparse_coo_tensor(i, v, (2, 2), device=HAL), "aten::_sparse_coo_tensor_with_dims_and_tensors",
            "device=\"cpu\"")
    _raises(lambda: torch.sparse_coo_tensor(i, v, (2, 2)).to(HAL), "sparse tensors")
    crow, col = torch.tensor([0, 1, 2]), torch.tensor([0, 1])
    _raises(lambda: torch.sparse_csr_tensor(crow, col, v, (2, 2), device=HAL), "CSR")
    _raises(lambda: torch.sparse_csr_tensor(crow.to(HAL), col.to(HAL), v.to(HAL), (2, 2)), "CSR")
    _raises(lambda: torch.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse_csr().to(HAL), "CSR")


@pytest.mark.parametrize("module", ["Embedding", "EmbeddingBag"])
def test_sparse_embedding_backward_raises_and_dense_matches_cpu(module):
    torch.manual_seed(0)
    sparse = getattr(torch.nn, module)(10, 3, sparse=True).to(HAL)
    idx = torch.tensor([[1, 2, 2]])
    _raises(lambda: sparse(idx.to(HAL)).sum().backward(), "backward", f"nn.{module}(sparse=True)", "sparse=False")
    with torch.no_grad():  # inference with a sparse=True module works and matches the CPU
        torch.testing.assert_close(sparse(idx.to(HAL)).cpu(), sparse.cpu()(idx))
        sparse.to(HAL)
    dense = getattr(torch.nn, module)(10, 3, sparse=False)
    dense.weight.data.copy_(sparse.weight.data.cpu())
    dense(idx).pow(2).sum().backward()
    dense_hal = getattr(torch.nn, module)(10, 3, sparse=False).to(HAL)
    dense_hal.weight.data.copy_(sparse.weight.data)
    dense_hal(idx.to(HAL)).pow(2).sum().backward()
    torch.testing.assert_close(dense_hal.weight.grad.cpu(), dense.weight.grad)


# ------------------------------------------------------------------------------------------------ nested
def test_strided_nested_tensors_raise_and_jagged_works():
    parts = [torch.ones(2, 3), torch.ones(4, 3)]
    with pytest.raises(NotImplementedError) as info:
        t = torch.nested.nested_tensor([p.to(HAL) for p in parts])
        t.unbind()
    assert "layout=torch.jagged" in str(info.value) and "hal" in str(info.value)
    jagged = torch.nested.nested_tensor([p.to(HAL) for p in parts], layout=torch.jagged)
    assert [u.sum().item() for u in (jagged * 2).unbind()] == [12.0, 24.0]


@pytest.mark.parametrize("with_norm", [False, True])
def test_transformer_encoder_fast_path_with_padding_mask_matches_cpu(with_norm):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, dropout=0.0)
    norm = torch.nn.LayerNorm(16) if with_norm else None
    encoder = torch.nn.TransformerEncoder(layer, 2, norm=norm).eval()
    assert encoder.use_nested_tensor  # the fast path applies
    src = torch.randn(3, 7, 16)
    mask = torch.zeros(3, 7, dtype=torch.bool)
    mask[1, 5:] = True
    mask[2, 2:] = True
    with torch.no_grad():
        cpu = encoder(src, src_key_padding_mask=mask)
        encoder.to(HAL)
        hal = encoder(src.to(HAL), src_key_padding_mask=mask.to(HAL))
    assert hal.device.type == "hal" and hal.shape == cpu.shape
    # padded positions: the fast path leaves zeros there (then the norm of zeros)
    if not with_norm:
        assert cpu[2, 2:].abs().max() == 0
    torch.testing.assert_close(hal.cpu(), cpu, rtol=1e-5, atol=1e-5)
    # training mode and no mask take the regular path, as before
    with torch.no_grad():
        torch.testing.assert_close(encoder(src.to(HAL)).cpu(), encoder.cpu()(src), rtol=1e-5, atol=1e-5)


def test_transformer_encoder_float_padding_mask_matches_cpu():
    torch.manual_seed(1)
    encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1).eval()
    src = torch.randn(2, 5, 8)
    mask = torch.zeros(2, 5)
    mask[0, 3:] = float("-inf")
    with torch.no_grad():
        cpu = encoder(src, src_key_padding_mask=mask)
        hal = encoder.to(HAL)(src.to(HAL), src_key_padding_mask=mask.to(HAL))
    torch.testing.assert_close(hal.cpu(), cpu, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------------------ snapshot
def test_accelerator_memory_snapshot_reads_hal():
    assert torch.accelerator.current_accelerator().type == "hal"
    torch.hal.memory._record_memory_history()
    try:
        x = torch.randn(1024, device=HAL)
        snap = torch.accelerator.memory._snapshot()
        snap_fx = torch.accelerator.memory._snapshot(augment_with_fx_traces=True)
    finally:
        torch.hal.memory._record_memory_history(enabled=None)
    assert set(snap) >= {"segments", "device_traces"} and set(snap_fx) >= {"segments", "device_traces"}
    blocks = [b for s in snap["segments"] for b in s["blocks"] if b["state"] == "active_allocated"]
    assert any(b["size"] >= x.numel() * 4 for b in blocks)
    assert any(e["action"] == "alloc" for trace in snap["device_traces"] for e in trace)
