"""The small models that the benchmarks and the tests train, defined once (not part of the torch_hal package:
it imports torch only, so a process that must not register hal, such as the cuda side of a comparison, imports
it as well). Benchmarks import it as ``reference_models`` (their folder is on sys.path); tests put
benchmarks/ on sys.path first.

- ``mlp()``: 784-256-128-10 with ReLU, the quickstart's model.
- ``TinyTransformer``: token embedding, one pre-norm transformer block (attention written with matmul and
  softmax, so the same aten ops run on every device, and a GELU feed-forward), a final layer norm and a
  vocabulary head, trained with cross entropy.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


class SelfAttention(nn.Module):
    """Multi-head self-attention over one fused QKV projection. ``causal`` masks later positions (a decoder's);
    ``fused`` calls F.scaled_dot_product_attention, as transformers' models do, where the default writes it with
    matmul and softmax, so that the same aten ops run on every device."""

    def __init__(self, dim: int, heads: int, causal: bool = False, fused: bool = False):
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.fused = fused
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, seq, dim = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        # [batch, heads, seq, head_dim]
        q, k, v = (t.reshape(batch, seq, self.heads, dim // self.heads).transpose(1, 2) for t in (q, k, v))
        if self.fused:
            attended = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(dim // self.heads))
            if self.causal:
                later = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
                scores = scores.masked_fill(later, float("-inf"))
            attended = torch.softmax(scores, dim=-1) @ v
        return self.proj(attended.transpose(1, 2).reshape(batch, seq, dim))


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
