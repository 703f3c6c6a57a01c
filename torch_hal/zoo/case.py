"""What the zoo knows of a model (ZooModel), the deterministic configuration both sides train in, and the rule
that says whether two sides' losses agree. Imports torch alone (hal_free.py says why)."""
import dataclasses
from typing import Any, Callable, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclasses.dataclass(frozen=True)
class ZooModel:
    name: str
    family: str
    build: Callable[[], nn.Module]                 # on the CPU, random init from the current RNG state
    batch: Callable[[torch.Generator], Any]        # one step's inputs, CPU tensors drawn from the generator
    loss: Callable[[nn.Module, Any], torch.Tensor]
    summary: str = ""                              # sizes, for the table
    # Greedy decoding of a few tokens from the untrained model (eval mode) for generative models: both sides must
    # give the same tokens.
    generate: Optional[Callable[[nn.Module, Any], torch.Tensor]] = None
    notes: Tuple[str, ...] = ()                    # what the build did for a deterministic comparison


# Tolerance of the loss comparison. Each layer's forward and backward round a handful of reductions (a matmul's
# or convolution's sums, a norm's mean and variance, a softmax's sum); two devices may sum in different orders, and
# each such difference is up to about eps of the dtype in relative terms. They add up along the depth, so:
#     tolerance = ROUNDINGS_PER_LAYER * eps(dtype) * depth,
# where depth is the number of modules holding parameters of their own (zoo_depth). fp32, 10 layers: 1.9e-5;
# bf16, 10 layers: 1.25. The same rule judges the gradient norms.
ROUNDINGS_PER_LAYER = 16


def loss_tolerance(dtype: torch.dtype, depth: int) -> float:
    return ROUNDINGS_PER_LAYER * torch.finfo(dtype).eps * max(depth, 1)


def zoo_depth(model: nn.Module) -> int:
    """The modules that hold parameters of their own: linear, convolution, norm and embedding layers."""
    return sum(1 for m in model.modules() if next(m.parameters(recurse=False), None) is not None)


def relative_difference(a: float, b: float) -> float:
    """|a - b| relative to the larger of the two; 0 for two equal values (two infinities included), inf where
    one side is NaN."""
    if a == b:
        return 0.0
    if a != a or b != b:
        return float("inf")
    return abs(a - b) / max(abs(a), abs(b))


def make_deterministic(model: nn.Module) -> List[str]:
    """Turns off what draws random numbers during training, so that two devices given one seed compute the same
    thing (their generators differ): dropout modules get p=0 (nn.MultiheadAttention's attention dropout too),
    stochastic depth (torchvision's StochasticDepth, timm's DropPath) rate 0. BatchNorm stays in training mode: its
    batch statistics are deterministic. Returns what was changed, for the table's notes."""
    dropouts, drop_paths = 0, 0
    for module in model.modules():
        if isinstance(module, nn.modules.dropout._DropoutNd) and module.p > 0:
            module.p = 0.0
            dropouts += 1
        elif isinstance(module, nn.MultiheadAttention) and module.dropout > 0:  # a float it passes to F.dropout
            module.dropout = 0.0
            dropouts += 1
        elif type(module).__name__ in ("StochasticDepth", "DropPath"):
            for attribute in ("p", "drop_prob"):
                if getattr(module, attribute, 0.0):
                    setattr(module, attribute, 0.0)
                    drop_paths += 1
    notes = []
    if dropouts:
        notes.append(f"dropout p=0 ({dropouts})")
    if drop_paths:
        notes.append(f"drop-path 0 ({drop_paths})")
    return notes


def to_device(value, device):
    """A batch (tensors in dicts, lists and tuples) on `device`."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def image_batch(batch: int, side: int, classes: int, channels: int = 3):
    def make(generator):
        return {"images": torch.randn(batch, channels, side, side, generator=generator),
                "labels": torch.randint(0, classes, (batch,), generator=generator)}
    return make


def classification_loss(model, batch):
    out = model(batch["images"])
    return F.cross_entropy(out.float(), batch["labels"])


def token_batch(batch: int, seq: int, vocab: int):
    def make(generator):
        tokens = torch.randint(0, vocab, (batch, seq + 1), generator=generator)
        return {"tokens": tokens[:, :-1].contiguous(), "targets": tokens[:, 1:].contiguous()}
    return make


def next_token_loss(model, batch):
    logits = model(batch["tokens"])
    return F.cross_entropy(logits.flatten(0, 1).float(), batch["targets"].flatten())
