"""One side of a zoo comparison: the model built on the CPU from a seed, deep-copied to a device, and trained there
step by step on batches every side draws alike. Imports torch alone (hal_free.py says why): the cuda side runs it
too.

Every side trains with plain SGD (no momentum, no state): a small learning rate keeps random-init models finite
over a few steps, and an update that is a fixed multiple of the gradient passes a gradient's difference between two
devices into the next step's loss unchanged (an adaptive optimizer would normalize it away or blow it up).
"""
import contextlib
import copy
import statistics
import time
from typing import Any, List, Optional

import torch

from .case import ZooModel, make_deterministic, to_device, zoo_depth

LEARNING_RATE = 1e-3
# Steps shorter than this are timed again, in batches of steps (torch_hal.timing): one such step is within the
# noise of a scheduler's time slice.
SHORT_STEP = 0.05


def build(zoo_model: ZooModel, seed: int):
    """The model on the CPU, from `seed`, in training mode and the deterministic configuration; and the notes of
    what that configuration changed."""
    torch.manual_seed(seed)
    model = zoo_model.build()
    model.train()
    return model, make_deterministic(model)


def batches(zoo_model: ZooModel, seed: int, steps: int) -> List[Any]:
    """The CPU inputs of each step; every side gets the same ones."""
    return [zoo_model.batch(torch.Generator().manual_seed(seed * 7919 + step)) for step in range(steps)]


def parameter_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def synchronizer(device: torch.device):
    if device.type == "cpu":
        return lambda: None
    module = getattr(torch, device.type)  # torch.cuda, torch.hal
    return lambda: module.synchronize(device)


class Side:
    """A copy of the CPU model on `device` with its optimizer; records each step's loss, gradient norm and time."""

    def __init__(self, zoo_model: ZooModel, cpu_model: torch.nn.Module, device):
        self.zoo_model = zoo_model
        self.device = torch.device(device)
        self.model = copy.deepcopy(cpu_model).to(self.device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=LEARNING_RATE)
        self.sync = synchronizer(self.device)
        self.losses: List[float] = []
        self.grad_norms: List[float] = []
        self.seconds: List[float] = []

    @property
    def depth(self) -> int:
        return zoo_depth(self.model)

    @property
    def dtype(self) -> torch.dtype:
        return next((p.dtype for p in self.model.parameters() if p.is_floating_point()), torch.float32)

    def generate(self, batch) -> list:
        """The greedy tokens of the model's generate() (eval mode, no gradients), as lists of ints."""
        self.model.eval()
        try:
            with torch.no_grad():
                return self.zoo_model.generate(self.model, to_device(batch, self.device)).cpu().tolist()
        finally:
            self.model.train()

    def _train(self, batch) -> torch.Tensor:
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.zoo_model.loss(self.model, batch)
        loss.backward()
        self.optimizer.step()
        return loss

    def step(self, batch, context=None) -> None:
        """One training step, timed from the inputs on the device to the update done there; `context` (a context
        manager such as an op counter) wraps the step."""
        batch = to_device(batch, self.device)
        self.sync()
        start = time.perf_counter()
        with context or contextlib.nullcontext():
            loss = self._train(batch)
            self.sync()
        self.seconds.append(time.perf_counter() - start)
        self.losses.append(loss.item())
        # The gradients' norm, taken on the CPU: the comparison is of the gradients, not of a device's norm kernel,
        # and nothing outside the step runs on the device (the runner counts the device's ops and fallbacks).
        grads = [p.grad.detach().cpu() for p in self.model.parameters() if p.grad is not None]
        self.grad_norms.append(torch.nn.utils.get_total_norm(grads).item() if grads else 0.0)

    def more_steps(self, batch):
        """A function that trains one more step on `batch`, unrecorded: for timing steps too short to time one by
        one (after the compared steps, which it leaves as they were)."""
        batch = to_device(batch, self.device)
        return lambda: self._train(batch)

    def median_step(self) -> Optional[float]:
        """The median of the steps after the first (which warms up, and is counted on the hal side)."""
        timed = self.seconds[1:] or self.seconds
        return statistics.median(timed) if timed else None

    def record(self) -> dict:
        return {"losses": self.losses, "grad_norms": self.grad_norms, "seconds": self.seconds}
