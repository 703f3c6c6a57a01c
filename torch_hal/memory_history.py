"""The caching allocator's state and history in torch.cuda's snapshot format, so that the tools written for
torch.cuda.memory._snapshot() (PyTorch's memory_viz: https://pytorch.org/memory_viz, and
torch.cuda._memory_viz) read hal snapshots unchanged."""
import pickle
import sys
from typing import Any, Dict, List

from torch_hal import _C

# What one device keeps while recording when the caller sets no bound (torch.cuda keeps sys.maxsize; a
# bound keeps a forgotten recorder from growing without end).
_DEFAULT_MAX_ENTRIES = 1_000_000


def _frames(context: str) -> List[Dict[str, Any]]:
    """The recorded stack ("filename\\tline\\tname" per line, outermost first) as memory_viz's frames,
    innermost first."""
    frames = []
    for line in context.splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            frames.append({"filename": parts[0], "line": int(parts[1]), "name": parts[2]})
    frames.reverse()
    return frames


def _readable(frames: List[Dict[str, Any]]) -> str:
    return "".join(f'  File "{f["filename"]}", line {f["line"]}, in {f["name"]}\n' for f in reversed(frames))


def memory_snapshot() -> List[Dict[str, Any]]:
    """Every segment the caching allocator holds, with its blocks; while memory history is recorded, each
    allocated block has the Python stack that allocated it ("frames", and "context" as readable text)."""
    segments = _C.memory_snapshot()
    for segment in segments:
        segment.update(requested_size=0, active_size=0, segment_pool_id=(0, 0), is_expandable=False, frames=[])
        for block in segment["blocks"]:
            block["frames"] = _frames(block["context"])
            block["context"] = _readable(block["frames"])
            if block["state"] == "active_allocated":
                segment["requested_size"] += block["requested_size"]
                segment["active_size"] += block["size"]
    return segments


def _device_traces() -> List[List[Dict[str, Any]]]:
    by_device = _C.memory_trace()
    traces = []
    for index in range(_C.device_count()):
        entries = by_device.get(index, [])
        for entry in entries:
            entry["frames"] = _frames(entry.pop("context"))
            if entry["action"] == "oom":
                entry["device_free"] = entry["addr"]  # the core records the device's free bytes there
        traces.append(entries)
    return traces


def _snapshot(device=None, augment_with_fx_traces: bool = False) -> Dict[str, Any]:
    """torch.cuda.memory._snapshot() for hal: {"segments", "device_traces", "allocator_settings"}. Every
    device is included, as in torch.cuda's; `device` is accepted for compatibility. augment_with_fx_traces
    adds FX node information to the frames of FX-generated code, as torch.cuda's does."""
    snapshot = {"segments": memory_snapshot(), "device_traces": _device_traces(), "allocator_settings": {}}
    if augment_with_fx_traces:
        from torch._utils import _augment_memory_snapshot_stack_traces

        snapshot = _augment_memory_snapshot_stack_traces(snapshot)
    return snapshot


def _dump_snapshot(filename: str = "dump_snapshot.pickle", augment_with_fx_traces: bool = False) -> None:
    """Writes _snapshot() as a pickle, the file https://pytorch.org/memory_viz opens."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(augment_with_fx_traces=augment_with_fx_traces), f)


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries: int = sys.maxsize,
                           device=None, **kwargs) -> None:
    """Starts (enabled="all", "state" or True) or stops (None or False) recording allocation stacks and the
    allocator's actions, as torch.cuda.memory._record_memory_history does. Stopping drops the history."""
    if enabled not in (None, False, True, "all", "state"):
        raise ValueError(f'enabled must be "all", "state", None, True or False, not {enabled!r}')
    on = enabled not in (None, False)
    if on and (not isinstance(max_entries, int) or max_entries <= 0):
        raise ValueError(f"max_entries must be a positive integer, not {max_entries!r}")
    keep = _DEFAULT_MAX_ENTRIES if max_entries == sys.maxsize else max_entries
    # "state" records stacks of live blocks only (no trace of actions), as in torch.cuda.
    _C.record_memory_history(on, keep if enabled != "state" else 0)
