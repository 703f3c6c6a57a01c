"""The ``zoo`` subcommand of ``python -m torch_hal``: its arguments and what it runs (runner.py says what is
compared). Exit status: 0 when every model passed or was skipped, 1 when any failed, 2 for bad arguments."""
import argparse
import json
import sys

import torch

from torch_hal import op_coverage
from torch_hal.zoo import FAMILIES, cuda_side, select, table
from torch_hal.zoo.runner import PERTURBATION, Runner, run_all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="hal", help="hal device (default: the current one), e.g. hal:1")
    parser.add_argument("--family", default="builtin",
                        help=f"comma-separated families: {', '.join(FAMILIES)}, or all (default: builtin)")
    parser.add_argument("--models", default="", help="comma-separated model names (default: every model of the "
                                                     "families)")
    parser.add_argument("--steps", type=int, default=3, help="training steps per model (default: 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the models' initialization and batches")
    parser.add_argument("--strict", action="store_true", help="a model whose steps used the CPU fallback fails")
    parser.add_argument("--cuda", default="auto", help="also train on cuda in a process of its own and compare: auto "
                                                       "(where torch.cuda is available), off, or cuda:N")
    parser.add_argument("--json", metavar="FILE", help="also write every result (losses, times, ops) as JSON")
    parser.add_argument("--test-perturb", default="", metavar="MODELS",
                        help=f"test hook: add noise (standard deviation {PERTURBATION}) to the first parameter of "
                             f"the device copy of these comma-separated models, so that their comparison must fail")


def _names(text: str) -> list:
    return [part.strip() for part in text.split(",") if part.strip()]


def _cuda_device(choice: str, hal_index: int):
    if choice == "off":
        return None
    if choice == "auto":
        if not torch.cuda.is_available():
            return None
        return f"cuda:{hal_index if hal_index < torch.cuda.device_count() else 0}"
    return choice


def run(args) -> int:
    def bad(message: str) -> int:
        print(f"python -m torch_hal zoo: {message}", file=sys.stderr)
        return 2

    try:
        index = op_coverage.existing_device(args.device)
    except (ValueError, RuntimeError) as error:
        return bad(f"bad --device {args.device!r}: {error}")
    families = list(FAMILIES) if args.family == "all" else _names(args.family)
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        return bad(f"unknown family {', '.join(unknown) or '(none)'}; families: {', '.join(FAMILIES)}, all")
    if args.steps < 1:
        return bad("--steps must be 1 or more")
    names = _names(args.models)
    models, skipped = select(families, names)
    missing = sorted(set(names) - {m.name for m in models})
    if missing:
        return bad(f"no model named {', '.join(missing)} in the families {', '.join(families)}"
                   + (f" (skipped: {'; '.join(skipped.values())})" if skipped else ""))
    device = torch.device("hal", index)
    cuda = _cuda_device(args.cuda, index)
    props = torch.hal.get_device_properties(index)
    header = (f"python -m torch_hal zoo: {device} ({props.adapter}: {props.name}), steps: {args.steps}, seed "
              f"{args.seed}, compared with the CPU" + (f" and {cuda}" if cuda else "")
              + (", strict" if args.strict else ""))
    print(header, file=sys.stderr, flush=True)
    references = {}
    if cuda and models:
        references = cuda_side.records(cuda, models, args.steps, args.seed, torch.autograd.is_multithreading_enabled())
    runner = Runner(device, args.steps, args.seed, args.strict, _names(args.test_perturb))
    results = run_all(models, runner, references)
    sys.stdout.write(table.render(results, header, skipped))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"header": header, "device": str(device), "cuda": cuda, "steps": args.steps, "seed": args.seed,
                       "strict": args.strict, "skipped_families": skipped, "results": results}, f, indent=1)
    return 1 if any(r["status"] == "fail" for r in results) else 0
