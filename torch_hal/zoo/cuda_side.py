"""The cuda side of the zoo: the same models trained on torch.cuda in a process of its own, which never registers hal
(hal_free.py says why). ``records()`` runs it from the hal side's process; the child runs this file as a script and
prints one JSON line per model: its device, losses, gradient norms, step seconds, generated tokens, or the error that
stopped it, and whether torch_hal was loaded there (it must not be). Autograd's threading is the hal side's
(benchmarks/sides.py says why that is the fair comparison of step times).
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List


def records(device: str, models: List, steps: int, seed: int, multithreading: bool) -> Dict[str, dict]:
    """{model name: record} of the cuda side; a model the child did not answer for gets an error."""
    command = [sys.executable, str(Path(__file__).resolve()), "--device", device, "--steps", str(steps),
               "--seed", str(seed), "--multithreading", str(int(multithreading)),
               "--models", ",".join(f"{m.family}:{m.name}" for m in models)]
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")  # `import torch` must not load torch_hal
    child = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env)
    found = {}
    for line in child.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            found[record["name"]] = record
    for m in models:
        found.setdefault(m.name, {"name": m.name, "device": device,
                                  "error": f"the cuda side's process ended (exit status {child.returncode}) before "
                                           f"this model"})
    return found


def _serve(args) -> None:
    import torch

    zoo = hal_free.import_module("torch_hal.zoo")
    training = hal_free.import_module("torch_hal.zoo.training")
    timing = hal_free.import_module("torch_hal.timing")
    torch.autograd.set_multithreading_enabled(bool(args.multithreading))
    wanted = [tuple(item.split(":", 1)) for item in args.models.split(",") if item]
    by_family: Dict[str, dict] = {}
    for family, name in wanted:
        if family not in by_family:
            by_family[family] = {m.name: m for m in zoo.family_models(family)}
        zoo_model = by_family[family][name]
        record = {"name": name, "device": args.device}
        try:
            cpu_model, _ = training.build(zoo_model, args.seed)
            side = training.Side(zoo_model, cpu_model, args.device)
            del cpu_model
            batches = training.batches(zoo_model, args.seed, args.steps)
            if zoo_model.generate is not None:
                record["tokens"] = side.generate(batches[0])
            for batch in batches:
                side.step(batch)
            record.update(side.record(), step_seconds=side.median_step())
            if record["step_seconds"] < training.SHORT_STEP:  # too short to time alone (runner.py does the same)
                record["step_seconds"] = timing.time_per_call(side.more_steps(batch), side.sync, repeats=5,
                                                              min_time=training.SHORT_STEP)
            del side
        except Exception as error:  # noqa: BLE001  (reported per model)
            text = str(error).strip()
            record["error"] = f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"[:300]
        record["torch_hal_loaded"] = "torch_hal" in sys.modules  # must stay False (hal_free.py)
        print(json.dumps(record), flush=True)
        print(f"[{args.device}] {family}/{name}: {record.get('error', 'done')}", file=sys.stderr, flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    # Run as a script: the torch_hal above this file is the one to load, without its __init__.py.
    sys.path[0] = str(Path(__file__).resolve().parents[2])
    import importlib.util

    _spec = importlib.util.spec_from_file_location("hal_free", Path(__file__).with_name("hal_free.py"))
    hal_free = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(hal_free)
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--multithreading", type=int, default=0)
    parser.add_argument("--models", required=True)
    _serve(parser.parse_args())
