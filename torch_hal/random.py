"""Random number generators of hal devices: one default generator per device, seeded like torch.cuda's."""
from typing import Iterable, List, Union

import torch

from torch_hal import _C
from torch_hal.device_index import device_index

_DeviceLike = Union[int, str, torch.device, None]


class _DefaultGenerators:
    """``torch.hal.default_generators[i]``: a live view, since devices can be added at run time."""

    def __getitem__(self, index: int) -> torch.Generator:
        return _C.default_generator(index)

    def __len__(self) -> int:
        return _C.device_count()

    def __iter__(self):
        return (self[i] for i in range(len(self)))


default_generators = _DefaultGenerators()


def _generator(device: _DeviceLike) -> torch.Generator:
    return _C.default_generator(device_index(device))


def manual_seed(seed: int) -> None:
    """Seeds the current hal device's generator."""
    _generator(None).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    for g in default_generators:
        g.manual_seed(int(seed))


def seed() -> None:
    _generator(None).seed()


def seed_all() -> None:
    for g in default_generators:
        g.seed()


def initial_seed() -> int:
    return _generator(None).initial_seed()


def get_rng_state(device: _DeviceLike = "hal") -> torch.Tensor:
    return _generator(device).get_state()


def set_rng_state(new_state: torch.Tensor, device: _DeviceLike = "hal") -> None:
    _generator(device).set_state(new_state.cpu())


def get_rng_state_all() -> List[torch.Tensor]:
    return [g.get_state() for g in default_generators]


def set_rng_state_all(new_states: Iterable[torch.Tensor]) -> None:
    for g, state in zip(default_generators, new_states):
        g.set_state(state.cpu())
