"""The zoo's builtin family: small models defined here with torch.nn alone, so that the zoo (and the model
benchmark, benchmarks/model_zoo/) runs where transformers and torchvision are missing.

- MiniGPT is what GPT-2 is made of: learned token and position embeddings, pre-norm blocks of causal
  self-attention (F.scaled_dot_product_attention, as transformers' models call it) and a GELU feed-forward, a
  final layer norm and a vocabulary head.
- MiniConvNet has the layers a ResNet leans on: convolution, BatchNorm, ReLU, max pooling, a global average pool.
- RecurrentClassifier: a bidirectional two-layer LSTM feeding a GRU.
- EncoderClassifier: nn.TransformerEncoder (nn.TransformerEncoderLayer, dropout 0.1, turned off for the
  comparison) with a key padding mask.
- TinyUNet: convolutions down (max pooling) and up (a transposed convolution, then bilinear upsampling), skip
  connections concatenated, a per-pixel classification.
- DropoutMLP: linear layers with LayerNorm, GELU, SiLU and dropout (turned off for the comparison).
MiniGPT and MiniConvNet use no dropout, so that the benchmark's two devices given one seed compute the same thing.
Imports torch alone (hal_free.py says why).
"""
import math
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

from .case import ZooModel, classification_loss, image_batch, next_token_loss, token_batch


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


class DecoderBlock(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, causal=True, fused=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class MiniGPT(nn.Module):
    def __init__(self, vocab: int, dim: int, layers: int, heads: int, max_seq: int):
        super().__init__()
        self.token = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(max_seq, dim)
        self.blocks = nn.ModuleList(DecoderBlock(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.token(tokens) + self.position(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def conv_block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.MaxPool2d(2))


class MiniConvNet(nn.Module):
    def __init__(self, widths=(32, 64, 128), classes: int = 10):
        super().__init__()
        channels = (3,) + tuple(widths)
        self.features = nn.Sequential(*(conv_block(a, b) for a, b in zip(channels, channels[1:])))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(widths[-1], classes)

    def forward(self, images):
        return self.classifier(self.pool(self.features(images)).flatten(1))


class RecurrentClassifier(nn.Module):
    def __init__(self, vocab: int = 128, dim: int = 24, hidden: int = 32, classes: int = 5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        out, last = self.gru(out)
        return self.head(last[-1])


class EncoderClassifier(nn.Module):
    def __init__(self, vocab: int = 128, dim: int = 32, heads: int = 4, layers: int = 2, classes: int = 5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens, padding):
        x = self.encoder(self.embed(tokens), src_key_padding_mask=padding)
        kept = (~padding).unsqueeze(-1).to(x.dtype)
        return self.head((x * kept).sum(1) / kept.sum(1))


class TinyUNet(nn.Module):
    def __init__(self, channels: int = 3, width: int = 8, classes: int = 4):
        super().__init__()
        self.down1 = nn.Sequential(nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.down2 = nn.Sequential(nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU())
        self.bottom = nn.Sequential(nn.Conv2d(2 * width, 4 * width, 3, padding=1), nn.ReLU())
        self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.merge2 = nn.Conv2d(4 * width, 2 * width, 3, padding=1)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.merge1 = nn.Conv2d(3 * width, width, 3, padding=1)
        self.out = nn.Conv2d(width, classes, 1)

    def forward(self, images):
        d1 = self.down1(images)
        d2 = self.down2(F.max_pool2d(d1, 2))
        b = self.bottom(F.max_pool2d(d2, 2))
        u2 = F.relu(self.merge2(torch.cat([self.up2(b), d2], dim=1)))
        u1 = F.relu(self.merge1(torch.cat([self.up1(u2), d1], dim=1)))
        return self.out(u1)


class DropoutMLP(nn.Module):
    def __init__(self, inputs: int = 20, hidden: int = 48, classes: int = 5, p: float = 0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inputs, hidden), nn.LayerNorm(hidden), nn.GELU(), nn.Dropout(p),
                                 nn.Linear(hidden, hidden), nn.LayerNorm(hidden), nn.SiLU(), nn.Dropout(p),
                                 nn.Linear(hidden, classes))

    def forward(self, x):
        return self.net(x)


def _recurrent_batch(generator):
    return {"tokens": torch.randint(0, 128, (3, 12), generator=generator),
            "labels": torch.randint(0, 5, (3,), generator=generator)}


def _encoder_batch(generator):
    padding = torch.zeros(3, 10, dtype=torch.bool)
    padding[1, 7:] = True  # the second sequence is 7 tokens long
    return {"tokens": torch.randint(0, 128, (3, 10), generator=generator), "padding": padding,
            "labels": torch.randint(0, 5, (3,), generator=generator)}


def _segmentation_batch(generator):
    return {"images": torch.randn(2, 3, 32, 32, generator=generator),
            "labels": torch.randint(0, 4, (2, 32, 32), generator=generator)}


def _features_batch(generator):
    return {"images": torch.randn(6, 20, generator=generator), "labels": torch.randint(0, 5, (6,), generator=generator)}


def models() -> List[ZooModel]:
    return [
        ZooModel("mini_gpt", "builtin", lambda: MiniGPT(256, 32, 2, 4, 16), token_batch(2, 16, 256), next_token_loss,
                 "2 layers, d=32, seq 16, batch 2, vocab 256"),
        ZooModel("mini_convnet", "builtin", lambda: MiniConvNet((8, 16, 32), 10), image_batch(2, 32, 10),
                 classification_loss, "32x32 images, batch 2, 10 classes"),
        ZooModel("lstm_gru", "builtin", RecurrentClassifier, _recurrent_batch,
                 lambda m, b: F.cross_entropy(m(b["tokens"]), b["labels"]), "2-layer bidirectional LSTM, GRU, seq 12"),
        ZooModel("transformer_encoder", "builtin", EncoderClassifier, _encoder_batch,
                 lambda m, b: F.cross_entropy(m(b["tokens"], b["padding"]), b["labels"]),
                 "2 nn.TransformerEncoderLayer, d=32, padding mask"),
        ZooModel("tiny_unet", "builtin", TinyUNet, _segmentation_batch,
                 lambda m, b: F.cross_entropy(m(b["images"]), b["labels"]), "32x32 images, 4 classes per pixel"),
        ZooModel("dropout_mlp", "builtin", DropoutMLP, _features_batch, classification_loss,
                 "20-48-48-5, LayerNorm, dropout"),
    ]
