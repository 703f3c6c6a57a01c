"""The small models that the benchmarks and the tests train, defined once (not part of the torch_hal package:
it imports torch, and SelfAttention from torch_hal/zoo/builtin.py without registering hal (zoo_loader.py), so a
process that must not register hal, such as the cuda side of a comparison, imports it as well). Benchmarks import
it as ``reference_models`` (their folder is on sys.path); tests put benchmarks/ on sys.path first.

- ``mlp()``: 784-256-128-10 with ReLU, the quickstart's model.
- ``TinyTransformer``: token embedding, one pre-norm transformer block (attention written with matmul and
  softmax, so the same aten ops run on every device, and a GELU feed-forward), a final layer norm and a
  vocabulary head, trained with cross entropy.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from zoo_loader import zoo_module  # benchmarks/, on sys.path wherever this module is imported

SelfAttention = zoo_module("builtin").SelfAttention  # defined once, in torch_hal/zoo/builtin.py


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


class TinyTransformer(nn.Module):
    def __init__(self, vocab: int = 1000, dim: int = 256, heads: int = 4, hidden: int = 1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.norm_out = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        x = x + self.attn(self.norm1(x))
        x = x + self.ff(self.norm2(x))
        return self.head(self.norm_out(x))


def transformer_batch(batch: int = 16, seq: int = 128, vocab: int = 1000, seed: int = 0):
    """Tokens and next-token targets from a fixed generator (CPU tensors)."""
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, vocab, (batch, seq + 1), generator=g)
    return tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()


def training_step(model: nn.Module, optimizer: torch.optim.Optimizer, inputs, targets):
    """One step: forward, cross entropy, backward, update. Returns the loss tensor (not synchronized)."""
    optimizer.zero_grad(set_to_none=True)
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    loss.backward()
    optimizer.step()
    return loss
