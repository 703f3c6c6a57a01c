"""Models defined here with torch.nn alone, so that the benchmark runs where transformers and torchvision
are missing (CI, the host device): a GPT-style decoder and a small convolutional classifier.

MiniGPT is what GPT-2 is made of: learned token and position embeddings, pre-norm blocks of causal
self-attention (F.scaled_dot_product_attention, as transformers' models call it) and a GELU feed-forward,
a final layer norm and a vocabulary head. MiniConvNet has the layers a ResNet leans on: convolution,
BatchNorm, ReLU, max pooling and a global average pool. Neither uses dropout, so that two devices given the
same seed compute the same thing and their losses can be compared.
"""
import torch
import torch.nn as nn
from reference_models import SelfAttention  # benchmarks/, on sys.path wherever model_zoo is imported


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
