"""The models the model benchmark trains (benchmarks/model_benchmark.py), each as a ModelCase: how to build it
(random init from the caller's seed, nothing downloaded), a batch of inputs, its training loss and its
inference forward.

GPT-2, a Llama-style decoder and a BERT classifier come from transformers' config classes, ResNet-18 and
ResNet-50 from torchvision, where those packages are importable; mini_gpt and mini_convnet (torch_hal/zoo/builtin.py,
the zoo's builtin family) stand in for them where they are not. ``quick`` gives tiny sizes for a smoke test.
"""
import dataclasses
import importlib.util
from typing import Callable, Dict, List, Optional

import torch
import torch.nn as nn

from model_zoo import transformers_models, vision_models
from zoo_loader import zoo_module

builtin = zoo_module("builtin")  # torch_hal/zoo/builtin.py
zoo_case = zoo_module("case")  # the zoo's batches and losses

Batch = Dict[str, torch.Tensor]


@dataclasses.dataclass(frozen=True)
class ModelCase:
    name: str
    summary: str                                  # sizes, for the results table
    package: Optional[str]                        # what must be importable; None for the built-in models
    build: Callable[[], nn.Module]                # on the CPU, from the current RNG state
    batch: Callable[[torch.Generator], Batch]     # CPU tensors drawn from the generator
    loss: Callable[[nn.Module, Batch], torch.Tensor]
    forward: Callable[[nn.Module, Batch], torch.Tensor]

    def available(self) -> bool:
        return self.package is None or importlib.util.find_spec(self.package) is not None


@dataclasses.dataclass(frozen=True)
class LanguageSizes:
    layers: int
    dim: int
    heads: int
    seq: int
    batch: int

    def describe(self, vocab: int) -> str:
        return f"{self.layers} layers, d={self.dim}, seq {self.seq}, batch {self.batch}, vocab {vocab}"


@dataclasses.dataclass(frozen=True)
class ImageSizes:
    side: int
    batch: int
    classes: int

    def describe(self) -> str:
        return f"{self.side}x{self.side} images, batch {self.batch}, {self.classes} classes"


def all_cases(quick: bool) -> List[ModelCase]:
    lm = LanguageSizes(2, 64, 4, 32, 2) if quick else LanguageSizes(4, 512, 8, 256, 8)
    images = ImageSizes(32, 2, 10) if quick else ImageSizes(64, 32, 1000)
    mini_images = dataclasses.replace(images, classes=10)
    mini_vocab = 512 if quick else 8192
    cases = [
        ModelCase("mini_gpt", lm.describe(mini_vocab), None,
                  lambda: builtin.MiniGPT(mini_vocab, lm.dim, lm.layers, lm.heads, lm.seq),
                  zoo_case.token_batch(lm.batch, lm.seq, mini_vocab), zoo_case.next_token_loss,
                  lambda m, b: m(b["tokens"])),
        ModelCase("mini_convnet", mini_images.describe(), None,
                  lambda: builtin.MiniConvNet((8, 16, 32) if quick else (32, 64, 128), mini_images.classes),
                  zoo_case.image_batch(mini_images.batch, mini_images.side, mini_images.classes),
                  zoo_case.classification_loss, lambda m, b: m(b["images"])),
    ]
    for name, build, vocab in transformers_models.builders(lm, quick):
        cases.append(ModelCase(name, lm.describe(vocab), "transformers", build,
                               transformers_models.batch(name, lm, vocab), transformers_models.loss,
                               transformers_models.forward))
    sizes, build, vocab = transformers_models.published_gpt2(LanguageSizes, quick)
    cases.append(ModelCase("gpt2_small", sizes.describe(vocab), "transformers", build,
                           transformers_models.batch("gpt2", sizes, vocab), transformers_models.loss,
                           transformers_models.forward))
    for name, build in vision_models.builders(images):
        cases.append(ModelCase(name, images.describe(), "torchvision", build,
                               zoo_case.image_batch(images.batch, images.side, images.classes),
                               zoo_case.classification_loss, lambda m, b: m(b["images"])))
    return cases


def default_names(quick: bool) -> List[str]:
    """The packaged models where their package is importable, else the built-in model standing for them."""
    cases = {c.name: c for c in all_cases(quick)}
    names = [n for n in ("gpt2", "llama", "bert") if cases[n].available()] or ["mini_gpt"]
    names += [n for n in ("resnet18", "resnet50") if cases[n].available()] or ["mini_convnet"]
    return names


def case(name: str, quick: bool) -> ModelCase:
    cases = {c.name: c for c in all_cases(quick)}
    if name not in cases:
        raise ValueError(f"unknown model {name!r}; models: {', '.join(cases)}")
    found = cases[name]
    if not found.available():
        raise ValueError(f"model {name!r} needs the {found.package} package, which is not importable here")
    return found
