"""Two sides of a comparison in two processes, driven in lockstep over pipes.

Why two processes: once hal is registered it is PyTorch's accelerator, and PyTorch's autograd engine then
refuses backward passes over cuda tensors in that process (pytorch/pytorch#161129); a side that trains on
cuda must never import torch_hal. Why lockstep: a machine's speed drifts (on the lent H100 machine the same
op differs by up to 40% between two processes, depending on where and when each runs), so the parent asks
one side for a timed batch, then the other, and so on, while the idle side waits on its pipe: both sides see
the same moments of the machine, as ``time_pair`` gives cases that share a process.

The protocol is one line each way: the parent writes a request, the worker answers with one line. A worker
first builds and warms up what it needs and says "ready". Only the standard library is used here, so a
worker that must not load torch_hal can import this module.
"""
import json
import os
import statistics
import subprocess
import sys
from typing import Callable, Dict, List, Optional, Sequence


class Worker:
    """A child process that answers one line per request line (see ``serve``)."""

    def __init__(self, name: str, args: Sequence[str], env: Optional[Dict[str, str]] = None):
        self.name = name
        self.process = subprocess.Popen([sys.executable, *args], env=dict(os.environ, **(env or {})),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self._reply()
        if ready != "ready":
            sys.exit(f"the {name} worker said {ready!r} instead of 'ready'")

    def _reply(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"the {self.name} worker failed (exit {self.process.wait()}); its errors are above")
        return line.rstrip("\n")

    def ask(self, request: str) -> str:
        self.process.stdin.write(request + "\n")
        self.process.stdin.flush()
        return self._reply()

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def serve(answer: Callable[[str], str]):
    """A worker's loop: say "ready", then answer each request line read from stdin with ``answer(line)``.
    Anything else the worker prints must go to stderr, since stdout carries the answers."""
    print("ready", flush=True)
    for line in sys.stdin:
        print(answer(line.rstrip("\n")), flush=True)


def answer_run_request(run, request: str) -> str:
    """The requests that every worker timing a built run answers alike: ``time_step`` and ``time_forward`` (seconds
    per call of one timed batch, ``run.timed("step" | "forward")``) and ``strict`` (whether a step runs with no CPU
    fallback, ``run.strict()``). ValueError for any other request."""
    if request in ("time_step", "time_forward"):
        return repr(run.timed(request[len("time_"):]))
    if request == "strict":
        return json.dumps(run.strict())
    raise ValueError(f"unknown request {request!r}")


def alternating_rounds(sides: List[Callable[[], float]], repeats: int) -> List[List[float]]:
    """Each side's measurements (``sides[i]()`` returns one number, e.g. seconds per call of one timed batch), taken
    ``repeats`` times in rounds: every side once per round, the order reversed every other round (side 0, 1, 2,
    then 2, 1, 0, ...) so that no side always runs right after the same other side. Measurement i of every side
    comes from round i, moments apart (see ``paired_ratios``). The one implementation of alternating rounds: sides
    in other processes (``lockstep_samples``) and in this one (compile_in_process.py) both go through it."""
    answers: List[List[float]] = [[] for _ in sides]
    order = list(range(len(sides)))
    for round_index in range(repeats):
        for side in (order if round_index % 2 == 0 else order[::-1]):
            answers[side].append(float(sides[side]()))
    return answers


def lockstep_samples(workers: List[Worker], request: str, repeats: int) -> List[List[float]]:
    """Each worker's answers (numbers) to ``request``, asked in ``alternating_rounds``."""
    return alternating_rounds([lambda w=w: float(w.ask(request)) for w in workers], repeats)


def paired_ratios(samples: List[List[float]], side: int = 0, reference: int = 1) -> List[float]:
    """Round by round, ``side``'s answer over ``reference``'s (``lockstep_samples``'s answers). Where the machine's
    speed drifts between rounds (a shared 2-core VM: the same process's step 25% slower one minute than the
    next), a ratio of two answers from one round keeps what the drift does to both out of the comparison, which a
    ratio of the two sides' medians over all rounds does not."""
    return [a / b for a, b in zip(samples[side], samples[reference])]


def paired_summary(ratios: List[float], digits: int = 2) -> str:
    """The median of round-by-round ratios (``paired_ratios``) with their middle half: "1.04 (1.01-1.07)" (with
    fewer than 4 rounds, their whole range)."""
    if len(ratios) < 2:
        return f"{ratios[0]:.{digits}f}"
    low, high = (min(ratios), max(ratios)) if len(ratios) < 4 else statistics.quantiles(ratios, n=4)[::2]
    return f"{statistics.median(ratios):.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def lockstep_medians(workers: List[Worker], request: str, repeats: int) -> List[float]:
    """Each worker's median answer to ``request``, asked as ``lockstep_samples`` asks."""
    return medians(lockstep_samples(workers, request, repeats))


def medians(samples: List[List[float]]) -> List[float]:
    """Each side's median over the rounds of ``alternating_rounds``/``lockstep_samples``: how every benchmark here
    summarizes a side (never the best round, which keeps the machine's luckiest moment of one side)."""
    return [statistics.median(a) for a in samples]
