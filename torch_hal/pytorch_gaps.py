"""Parts of PyTorch that hal does not implement, made to fail clearly (or, where a Python route is simple and
exact, to work) instead of giving a broken result. ``import torch_hal`` installs all of it:

- **Quantized tensors** (``torch.quantize_per_tensor`` and the other quantized constructors, and moving a
  quantized CPU tensor to hal) raise NotImplementedError naming the op. Without this the CPU kernel behind
  the fallback made a plain (non-quantized) hal tensor of dtype qint8 whose ``dequantize()``/``.cpu()`` failed.
  torch.cuda has quantized kernels; hal has none (no QuantizedPrivateUse1 tensor type exists in torch_hal).
  Quantize on the CPU, or use ``torch.fake_quantize_per_tensor_affine`` (which works on hal) for
  quantization-aware training.
- **Sparse tensors** (COO, CSR/CSC/BSR/BSC): ``Tensor.to_sparse*()``, ``torch.sparse_coo_tensor`` /
  ``sparse_csr_tensor`` with a hal device, moving a sparse CPU tensor to hal and the backward of
  ``nn.Embedding``/``nn.EmbeddingBag(sparse=True)`` raise NotImplementedError naming the op and the CPU or
  dense alternative (before, some failed with "Cannot access storage of SparseTensorImpl", and CSR
  constructors made a tensor on which nothing, printing included, could run).
- **Strided nested tensors** (``torch.nested`` with ``layout=torch.strided``) raise, pointing at
  ``layout=torch.jagged``, which works on hal. ``nn.TransformerEncoder``'s inference fast path converts its
  input to such a tensor; on hal it takes the dense route instead (below), with the fast path's result.
- **torch.accelerator.memory._snapshot()** reads ``torch.hal.memory._snapshot()`` when hal is the
  accelerator (PyTorch 2.13 sends every accelerator but XPU to torch.cuda's).
"""
import functools

import torch

_installed = False
_libraries = []  # torch.library registrations live as long as their Library object
# The aten ops (qualified names) given a PrivateUse1 kernel here that raises: `python -m torch_hal coverage`
# reports them as unsupported.
UNSUPPORTED_OPS = set()

_QUANTIZED_FIX = ("quantize on the CPU (torch.quantize_per_tensor(x.cpu(), ...)) and keep quantized tensors "
                  "there, or use torch.fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine, "
                  "which run on hal, for quantization-aware training")
_SPARSE_FIX = ("keep sparse tensors on the CPU (x.cpu().to_sparse(), torch.sparse_coo_tensor(..., "
               "device=\"cpu\")) or use dense tensors on hal (x.to_dense().to(\"hal\"))")
_EMBEDDING_FIX = ("construct the module with sparse=False on hal: its gradient is then dense, with the same "
                  "values, and every optimizer takes it")
_NESTED_FIX = "use layout=torch.jagged (torch.nested.nested_tensor(..., layout=torch.jagged)), which runs on hal"


class HalUnsupportedError(NotImplementedError):
    """An op hal does not implement (quantized, sparse or strided nested tensors). ``op`` names it."""

    def __init__(self, op: str, message: str):
        super().__init__(message)
        self.op = op


def _op_name(op) -> str:
    name = op._schema.name
    overload = op._schema.overload_name
    return f"{name}.{overload}" if overload else name


def _raiser(kind: str, fix: str, op_name: str = ""):
    def kernel(*args, **kwargs):
        raise HalUnsupportedError(op_name, f"{op_name}: {kind} are not supported on hal; {fix}")

    return kernel


def _fallback(kind: str, fix: str):
    def kernel(op, *args, **kwargs):
        name = _op_name(op)
        raise HalUnsupportedError(name, f"{name}: {kind} are not supported on hal; {fix}")

    return kernel


def _has_op(qualified: str) -> bool:
    name, _, overload = qualified.partition(".")
    packet = getattr(torch.ops.aten, name, None)
    return packet is not None and (overload or "default") in packet.overloads()


def _impl(lib, ops, kind: str, fix: str, keys) -> None:
    for op in ops:
        if not _has_op(op):
            continue
        for key in keys:
            lib.impl(op, _raiser(kind, fix, "aten::" + op), key)
        if "PrivateUse1" in keys:
            UNSUPPORTED_OPS.add("aten::" + op)


def _install_unsupported_layouts() -> None:
    aten = torch.library.Library("aten", "IMPL")
    fallbacks = torch.library.Library("_", "IMPL")
    _libraries.extend([aten, fallbacks])

    quantized = "quantized tensors"
    _impl(aten, ["quantize_per_tensor", "quantize_per_tensor.tensor_qparams", "quantize_per_tensor.tensors",
                 "quantize_per_tensor_dynamic", "quantize_per_channel", "_make_per_tensor_quantized_tensor",
                 "_make_per_channel_quantized_tensor"], quantized, _QUANTIZED_FIX, ["PrivateUse1"])
    _impl(aten, ["_empty_affine_quantized", "_empty_per_channel_affine_quantized"], quantized, _QUANTIZED_FIX,
          ["PrivateUse1", "QuantizedPrivateUse1"])
    fallbacks.fallback(_fallback(quantized, _QUANTIZED_FIX), "QuantizedPrivateUse1")

    sparse = "sparse tensors"
    _impl(aten, ["_to_sparse", "_to_sparse.sparse_dim", "_to_sparse_csr", "_to_sparse_csc", "_to_sparse_bsr",
                 "_to_sparse_bsc", "_sparse_coo_tensor_unsafe"],
          sparse, f"the dense tensor stays usable on hal; {_SPARSE_FIX}", ["PrivateUse1"])
    _impl(aten, ["_sparse_coo_tensor_with_dims", "_sparse_coo_tensor_with_dims_and_tensors"], sparse, _SPARSE_FIX,
          ["SparsePrivateUse1"])
    _impl(aten, ["sparse_compressed_tensor.comp_plain_value_size", "sparse_compressed_tensor.comp_plain_value",
                 "_sparse_compressed_tensor_unsafe", "sparse_csr_tensor.crow_col_value_size",
                 "sparse_csr_tensor.crow_col_value", "sparse_csc_tensor.ccol_row_value_size",
                 "sparse_csc_tensor.ccol_row_value", "sparse_bsr_tensor.crow_col_value_size",
                 "sparse_bsr_tensor.crow_col_value", "sparse_bsc_tensor.ccol_row_value_size",
                 "sparse_bsc_tensor.ccol_row_value", "_sparse_csr_tensor_unsafe", "_sparse_csc_tensor_unsafe",
                 "_sparse_bsr_tensor_unsafe", "_sparse_bsc_tensor_unsafe"],
          "sparse compressed (CSR/CSC/BSR/BSC) tensors", _SPARSE_FIX, ["PrivateUse1", "SparseCsrPrivateUse1"])
    _impl(aten, ["embedding_sparse_backward"], "sparse gradients of nn.Embedding(sparse=True)", _EMBEDDING_FIX,
          ["PrivateUse1"])
    _impl(aten, ["_embedding_bag_sparse_backward"], "sparse gradients of nn.EmbeddingBag(sparse=True)",
          _EMBEDDING_FIX, ["PrivateUse1"])
    _install_embedding_bag_check()
    fallbacks.fallback(_fallback(sparse, _SPARSE_FIX), "SparsePrivateUse1")
    fallbacks.fallback(_fallback("sparse compressed (CSR/CSC/BSR/BSC) tensors", _SPARSE_FIX),
                       "SparseCsrPrivateUse1")

    nested = "strided nested tensors (torch.nested with layout=torch.strided)"
    _impl(aten, ["_nested_tensor_from_mask", "_nested_from_padded", "_nested_from_padded_and_nested_example",
                 "_nested_tensor_from_tensor_list", "_nested_view_from_buffer"], nested, _NESTED_FIX,
          ["PrivateUse1"])
    fallbacks.fallback(_fallback(nested, _NESTED_FIX), "NestedTensorPrivateUse1")


def _install_embedding_bag_check() -> None:
    """aten::_embedding_bag_backward has a CPU kernel, which the hal fallback runs; with sparse=True it makes a
    sparse CPU gradient the fallback cannot hand back ("Cannot access storage of SparseTensorImpl"). A
    PrivateUse1 kernel for it would replace that fallback for the dense case too, so the check is made where
    the sparse gradient is asked for: F.embedding_bag (nn.EmbeddingBag's forward) on hal with sparse=True and
    a weight that needs a gradient."""
    from torch.nn import functional as F

    embedding_bag = F.embedding_bag
    if getattr(embedding_bag, "_torch_hal_wrapped", False):
        return

    @functools.wraps(embedding_bag)
    def hal_embedding_bag(input, weight, *args, **kwargs):
        sparse = kwargs.get("sparse", args[5] if len(args) > 5 else False)  # after input, weight
        if (sparse and isinstance(weight, torch.Tensor) and weight.device.type == "hal" and weight.requires_grad
                and torch.is_grad_enabled()):
            op = "aten::_embedding_bag_backward (sparse=True)"
            raise HalUnsupportedError(op, f"{op}: sparse gradients of nn.EmbeddingBag(sparse=True) / "
                                          f"F.embedding_bag(sparse=True) are not supported on hal; {_EMBEDDING_FIX}")
        return embedding_bag(input, weight, *args, **kwargs)

    hal_embedding_bag._torch_hal_wrapped = True
    F.embedding_bag = hal_embedding_bag


# ------------------------------------------------------------------------- nn.TransformerEncoder fast path
def _install_transformer_encoder() -> None:
    """nn.TransformerEncoder's inference fast path (eval, no grad, src_key_padding_mask, enable_nested_tensor)
    packs the batch into a strided nested tensor, which hal lacks. On hal the same computation runs on the
    dense batch: each layer with the padding mask (the layers' own fast path, on dense tensors, runs on hal),
    then the padded positions zeroed, as the fast path's to_padded_tensor(0.0) leaves them, then the norm."""
    from torch.nn.modules import transformer

    encoder = transformer.TransformerEncoder
    forward = encoder.forward
    if getattr(forward, "_torch_hal_wrapped", False):
        return

    @functools.wraps(forward)
    def hal_forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        if not (isinstance(src, torch.Tensor) and src.device.type == "hal" and src_key_padding_mask is not None):
            return forward(self, src, mask, src_key_padding_mask, is_causal)
        try:
            return forward(self, src, mask, src_key_padding_mask, is_causal)
        except HalUnsupportedError as error:
            # The fast path's first step: nothing has run on the batch yet.
            if error.op != "aten::_nested_tensor_from_mask":
                raise
        return _dense_fast_path(self, src, src_key_padding_mask, is_causal)

    hal_forward._torch_hal_wrapped = True
    encoder.forward = hal_forward


def _dense_fast_path(self, src, src_key_padding_mask, is_causal):
    from torch.nn import functional as F
    from torch.nn.modules.transformer import _detect_is_causal_mask, _get_seq_len

    # The fast path requires mask=None and batch_first, so src is (batch, seq, feature).
    padding = F._canonical_mask(mask=src_key_padding_mask, mask_name="src_key_padding_mask", other_type=None,
                                other_name="mask", target_type=src.dtype)
    is_causal = _detect_is_causal_mask(None, is_causal, _get_seq_len(src, True))
    output = src
    for layer in self.layers:
        output = layer(output, src_mask=None, is_causal=is_causal, src_key_padding_mask=padding)
    # The fast path keeps the positions where logical_not(padding) holds and pads the rest with 0.
    output = output.masked_fill(padding.logical_not().logical_not().unsqueeze(-1), 0.0)
    if self.norm is not None:
        output = self.norm(output)
    return output


# ------------------------------------------------------------------------- torch.accelerator.memory
def _install_accelerator_snapshot() -> None:
    memory = getattr(torch.accelerator, "memory", None)
    snapshot = getattr(memory, "_snapshot", None)
    if snapshot is None or getattr(snapshot, "_torch_hal_wrapped", False):
        return

    @functools.wraps(snapshot)
    def accelerator_snapshot(device=None, augment_with_fx_traces: bool = False):
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == "hal":
            return torch.hal.memory._snapshot(device, augment_with_fx_traces=augment_with_fx_traces)
        return snapshot(device, augment_with_fx_traces=augment_with_fx_traces)

    accelerator_snapshot._torch_hal_wrapped = True
    memory._snapshot = accelerator_snapshot


def install() -> None:
    global _installed
    if _installed:
        return
    _install_unsupported_layouts()
    _install_transformer_encoder()
    _install_accelerator_snapshot()
    _installed = True
