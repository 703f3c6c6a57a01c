"""Choosing the best hal device for a request, and saying why every device won or lost.

The rule (also in the README, "Choosing a device"):

1. A device qualifies when it meets every requirement: its vendor is one of ``preferred_vendors``; it has
   ``memory_requirement_gb`` free now (the adapter's free memory); it computes every precision in
   ``required_precisions``; and its matmul TFLOP/s in the compute precision (bf16 when bf16 is required,
   else fp32) reach ``compute_requirement_tflops``. That figure is the peak the adapter reports from the
   architecture and clocks, or, where the adapter reports none (the host reference device),
   :func:`torch_hal.measure`'s timing; the compute check runs only for devices that pass the others.
2. Qualifying devices are ranked by the score, a tuple compared element by element, higher first:
   ``(-position of the vendor in preferred_vendors, reported peak TFLOP/s in the compute precision,
   total memory in GB, -hal index)``. The score holds hardware properties and the caller's order only,
   never a timing or the free memory of the moment, so the same machine gives the same ranking every run.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from torch_hal.device_records import DeviceRecord
from torch_hal.measure import measure
from torch_hal.requirements import Requirements

_SCORE_PARTS = ("vendor preference", "reported peak TFLOP/s", "total memory GB", "lower hal index")


@dataclass
class Candidate:
    device: DeviceRecord
    unmet: List[str] = field(default_factory=list)  # requirements the device fails; empty when it qualifies
    score: Optional[Tuple[float, float, float, int]] = None  # set for qualifying devices
    verdict: str = ""  # "won: ..." or "lost: ...", set once every device is ranked


@dataclass(frozen=True)
class Selection:
    """What ``get_optimal_device_hal(..., explain=True)`` returns: ``device`` (None when nothing qualifies),
    ``reasons`` ({'hal:0': 'won: ...', 'hal:1': 'lost: ...'}) and ``candidates``, best first."""

    device: Optional[DeviceRecord]
    candidates: Tuple[Candidate, ...]
    requirements: Requirements

    @property
    def reasons(self) -> Dict[str, str]:
        return {str(c.device.torch_device): c.verdict for c in self.candidates}

    def __str__(self) -> str:
        head = f"selected {self.device}" if self.device else "no hal device meets the request"
        return "\n".join([head] + [f"  {dev}: {why}" for dev, why in self.reasons.items()])


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _check(device: DeviceRecord, req: Requirements) -> List[str]:
    caps, unmet = device.capabilities, []
    if device.vendor not in req.vendors:
        unmet.append(f"vendor {device.vendor} is not in preferred_vendors ({', '.join(map(str, req.vendors))})")
    free = device.free_memory_gb()
    if free < req.memory_gb:
        unmet.append(f"needs {_fmt(req.memory_gb)} GB free, has {_fmt(free)} GB")
    missing = [p for p in req.precisions if not caps.supports(p)]
    if missing:
        unmet.append(f"lacks {', '.join(missing)} (has {', '.join(caps.precisions)})")
    if req.compute_tflops > 0 and not unmet:
        tflops, source = _compute_tflops(device, req.compute_precision)
        if tflops is None:
            unmet.append(f"needs {_fmt(req.compute_tflops)} TFLOP/s {req.compute_precision}, {source}")
        elif tflops < req.compute_tflops:
            unmet.append(f"needs {_fmt(req.compute_tflops)} TFLOP/s {req.compute_precision}, {source} "
                         f"{_fmt(tflops)}")
    return unmet


def _compute_tflops(device: DeviceRecord, precision: str) -> Tuple[Optional[float], str]:
    """The adapter's peak, else the measured figure; None (with why) when the measurement failed."""
    peak = _reported_peak(device, precision)
    if peak > 0:
        return peak, "peak"
    m = measure(device.torch_device)
    if precision == "bf16" and m.bf16_tflops is None:
        return None, f"but its bf16 matmul failed when measured: {m.bf16_error}"
    return (m.bf16_tflops if precision == "bf16" else m.fp32_tflops), "measured (no reported peak)"


def _reported_peak(device: DeviceRecord, precision: str) -> float:
    caps = device.capabilities
    return caps.peak_bf16_tflops if precision == "bf16" else caps.peak_fp32_tflops


def _score(device: DeviceRecord, req: Requirements) -> Tuple[float, float, float, int]:
    return (-req.vendors.index(device.vendor), _reported_peak(device, req.compute_precision),
            device.capabilities.total_memory_gb, -device.index)


def _describe_score(c: Candidate, req: Requirements) -> str:
    position, peak, memory, _ = c.score
    peak_text = f"reported peak {_fmt(peak)} TFLOP/s {req.compute_precision}" if peak > 0 else "no reported peak"
    return (f"score: vendor {c.device.vendor} #{1 - position} of {len(req.vendors)} preferred, {peak_text}, "
            f"{_fmt(memory)} GB total")


def _why_behind(loser: Candidate, winner: Candidate) -> str:
    """The first part of the score where the loser falls behind the winner."""
    for part, mine, theirs in zip(_SCORE_PARTS, loser.score, winner.score):
        if mine != theirs:
            if part == "vendor preference":
                return f"{loser.device.vendor} comes after {winner.device.vendor} in preferred_vendors"
            if part == "lower hal index":
                return f"equal score, and {winner.device.torch_device} has the lower index"
            return f"{part}: {_fmt(abs(mine))} vs {_fmt(abs(theirs))}"
    return "equal score"


def select(devices: Sequence[DeviceRecord], req: Requirements) -> Selection:
    candidates = [Candidate(d, _check(d, req)) for d in devices]
    qualifying = [c for c in candidates if not c.unmet]
    for c in qualifying:
        c.score = _score(c.device, req)
    qualifying.sort(key=lambda c: c.score, reverse=True)
    rejected = [c for c in candidates if c.unmet]
    for rank, c in enumerate(qualifying):
        if rank == 0:
            c.verdict = f"won: meets every requirement; {_describe_score(c, req)}"
        else:
            c.verdict = (f"lost to {qualifying[0].device.torch_device}: meets every requirement, ranks "
                         f"{rank + 1}: {_why_behind(c, qualifying[0])}")
    for c in rejected:
        c.verdict = "lost: " + "; ".join(c.unmet)
    winner = qualifying[0].device if qualifying else None
    return Selection(winner, tuple(qualifying + rejected), req)
