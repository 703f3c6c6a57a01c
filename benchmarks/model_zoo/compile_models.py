"""Small models for torch.compile: what tests/python/test_compile_host.py checks against eager mode and
benchmarks/compile_benchmark.py times. Sizes are arguments: the tests use tiny ones (Inductor's C++
compilation dominates their time), the benchmark larger ones."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from zoo_loader import zoo_module

builtin = zoo_module("builtin")  # torch_hal/zoo/builtin.py
DecoderBlock, MiniConvNet = builtin.DecoderBlock, builtin.MiniConvNet


def mlp(inputs: int = 20, hidden: int = 32, outputs: int = 5) -> nn.Module:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.GELU(),
                         nn.Linear(hidden, outputs))


def transformer_block(dim: int = 16, heads: int = 2) -> nn.Module:
    """A GPT-style pre-norm block: layer norms, causal attention (scaled_dot_product_attention), a GELU MLP."""
    return DecoderBlock(dim, heads)


class NormNet(nn.Module):
    """Reductions and normalizations: sum over a dimension and var_mean (what Inductor's lowering failed on
    for hal before it had a code generation for it), BatchNorm (its running statistics are inputs the graph
    mutates), LayerNorm, softmax, log_softmax and amax."""

    def __init__(self, inputs: int = 12, hidden: int = 16):
        super().__init__()
        self.linear = nn.Linear(inputs, hidden)
        self.batch_norm = nn.BatchNorm1d(hidden)
        self.layer_norm = nn.LayerNorm(hidden)

    def forward(self, x):
        h = self.layer_norm(self.batch_norm(self.linear(x)).relu())
        var, mean = torch.var_mean(h, dim=1, keepdim=True)
        h = (h - mean) / (var + 1e-5).sqrt() + h.sum(dim=0, keepdim=True) / h.shape[0]
        return F.log_softmax(h, dim=-1) + h.softmax(dim=0).amax(dim=1, keepdim=True)


# name: (build(scale), input shape(scale)); scale 1 is the tests' size
MODELS = {
    "mlp": (lambda s: mlp(20 * s, 32 * s, 5 * s), lambda s: (6 * s, 20 * s)),
    "transformer_block": (lambda s: transformer_block(16 * s, 2 * min(s, 4)), lambda s: (2 * s, 5 * s, 16 * s)),
    "norm_net": (lambda s: NormNet(12 * s, 16 * s), lambda s: (8 * s, 12 * s)),
    # Convolutions, BatchNorm2d, max and adaptive pooling: Inductor's layout optimization makes them
    # channels-last, which the host path must keep from reaching across its boundary (host_graph.py).
    "conv_net": (lambda s: MiniConvNet((4 * s, 8 * s, 16 * s), 10), lambda s: (2 * s, 3, 16, 16)),
}
