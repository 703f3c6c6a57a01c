"""Streams and events of hal devices. They are PyTorch's own ``torch.Stream`` and ``torch.Event``, which
reach the HAL core through the device guard; these subclasses add the ``torch.cuda`` spellings."""
from typing import Optional, Union

import torch

from torch_hal import _C
from torch_hal.device_index import device_index

_DeviceLike = Union[int, str, torch.device, None]


def _as_device(device: _DeviceLike) -> torch.device:
    return torch.device("hal", device_index(device))


class Stream(torch.Stream):
    """An in-order queue of work on a hal device (``torch.hal.Stream()`` makes a new one)."""

    def __new__(cls, device: _DeviceLike = None, priority: int = 0, **kwargs):
        if kwargs:  # stream_id/device_index/device_type: wrapping an existing stream
            return super().__new__(cls, **kwargs)
        return super().__new__(cls, device=_as_device(device), priority=priority)

    def wait_event(self, event: "Event") -> None:
        event.wait(self)

    def wait_stream(self, stream: torch.Stream) -> None:
        self.wait_event(stream.record_event())

    def record_event(self, event: Optional["Event"] = None) -> "Event":
        event = Event() if event is None else event
        event.record(self)
        return event

    def __enter__(self):
        index = self.device_index
        self._previous = _C.current_stream_id(index)
        _C.set_current_stream(index, self.stream_id)
        return self

    def __exit__(self, *exc):
        _C.set_current_stream(self.device_index, self._previous)
        return False


class Event:
    """A marker in a stream: ``record``, ``wait``, ``query``, ``synchronize``, ``elapsed_time``.

    It wraps a ``torch.Event`` rather than subclassing it: ``torch.Event.elapsed_time`` accepts only
    exact ``torch.Event`` objects."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        self.event = torch.Event(device="hal", enable_timing=enable_timing, blocking=blocking,
                                 interprocess=interprocess)

    def record(self, stream: Optional[torch.Stream] = None) -> None:
        self.event.record(current_stream() if stream is None else stream)

    def wait(self, stream: Optional[torch.Stream] = None) -> None:
        self.event.wait(current_stream() if stream is None else stream)

    def query(self) -> bool:
        return self.event.query()

    def synchronize(self) -> None:
        self.event.synchronize()

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds between this event and ``end``; both need ``enable_timing=True``."""
        return self.event.elapsed_time(end.event if isinstance(end, Event) else end)

    def __repr__(self):
        return f"torch.hal.Event({self.event!r})"


# The integer DeviceType of PrivateUse1, which torch.Stream's device_type field holds.
_HAL_DEVICE_TYPE = _C.device_type_id()


def current_stream(device: _DeviceLike = None) -> Stream:
    index = device_index(device)
    return Stream(stream_id=_C.current_stream_id(index), device_index=index, device_type=_HAL_DEVICE_TYPE)


def default_stream(device: _DeviceLike = None) -> Stream:
    return Stream(stream_id=0, device_index=device_index(device), device_type=_HAL_DEVICE_TYPE)


def set_stream(stream: torch.Stream) -> None:
    _C.set_current_stream(stream.device_index, stream.stream_id)


class StreamContext:
    """``with torch.hal.stream(s):`` runs the block with ``s`` as the current stream of its device."""

    def __init__(self, stream: Optional[torch.Stream]):
        self.stream = stream
        self.previous = None

    def __enter__(self):
        if self.stream is not None:
            self.previous = _C.current_stream_id(self.stream.device_index)
            _C.set_current_stream(self.stream.device_index, self.stream.stream_id)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _C.set_current_stream(self.stream.device_index, self.previous)
        return False


def stream(stream: Optional[torch.Stream]) -> StreamContext:
    return StreamContext(stream)
