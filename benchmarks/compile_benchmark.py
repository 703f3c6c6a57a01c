"""torch.compile (Inductor) on hal against eager hal, and against compiled code on a reference device.

    python benchmarks/compile_benchmark.py [--device hal:0] [--reference auto|cpu|cuda:N] [--models mlp,...]
                                           [--scale 8] [--repeats 5] [--threads N] [--batch-seconds 0.05]
                                           [--processes 1] [--quick] [--markdown FILE] [--json FILE]

The reference (auto) is cuda:N for hal:N where torch.cuda is available, else CPU tensors: on the host device,
compiled hal runs Inductor's C++ code in place on hal memory, which should cost what the same compiled code
costs on CPU tensors. Each side runs in a process of its own (compile_worker.py; the reference never imports
torch_hal), and the two are timed in lockstep (lockstep.py), eager and compiled, training steps (forward, loss,
backward) and inference forwards. A compiled step under torch.hal.strict() counts the CPU fallback calls of the
compiled graphs (the target is none). Ratios below 1: the first named takes less time. Below the table, each
compiled ratio is also given round by round (lockstep.paired_ratios): the figure that holds where the
machine's speed drifts during a run.

Autograd threading (sides.py): importing torch_hal runs backward on the calling thread, so the reference runs with
the hal side's setting (torch.autograd.set_multithreading_enabled(False) in its process too): "compiled hal/ref".
Where the reference has an autograd device thread (cuda, not CPU tensors), one more process, the reference with
PyTorch's default threading, gives "compiled hal/ref default" for the training steps. --hal-autograd-threading
worker runs the hal side (and so the "same" reference) with PyTorch's default instead, to measure what the
calling-thread backward is worth.

--loaded-reference adds one more process, the reference device with torch_hal loaded (as `import torch` loads it
wherever torch_hal is installed): PyTorch compiles every frame of a process that has an accelerator with a
prologue that records the accelerator's current stream, which CPU tensors pay there too (7-9 µs a call on the
2-core machine), so that column isolates what the hal device itself costs.
"""
import argparse
import json
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lockstep  # noqa: E402
import sides  # noqa: E402
from model_benchmark import auto_reference, fmt_time, machine  # noqa: E402
import compile_worker  # noqa: E402
from model_zoo import compile_models  # noqa: E402

WORKER = str(Path(__file__).resolve().parent / "compile_worker.py")
COLUMNS = ("model", "kind", "hal eager", "hal compiled", "eager/compiled hal", "ref compiled",
           "compiled hal/ref", "compiled hal/ref default", "compile s hal", "fallback calls (strict)")
LOADED_COLUMNS = ("ref compiled, torch_hal loaded", "compiled hal/that")


def start_worker(device: str, scale: int, threads, batch_seconds: float, load_torch_hal: bool = False,
                 autograd_threading: str = "keep") -> lockstep.Worker:
    env = {} if device.startswith("hal") or load_torch_hal else {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    command = [WORKER, "--device", device, "--scale", str(scale), "--batch-seconds", str(batch_seconds),
               "--autograd-threading", autograd_threading]
    command += ["--threads", str(threads)] if threads else []
    name = f"{device} ({autograd_threading} autograd threading{', torch_hal loaded' if load_torch_hal else ''})"
    return lockstep.Worker(name, command, env=env)


def measure(workers, roles, name: str, repeats: int) -> dict:
    """One model on every worker; each figure is a list in the order of ``roles``. The reference with PyTorch's
    default autograd threading ("ref default") times training steps only: a no_grad forward runs no backward, so
    its threading cannot change it (its forward figure repeats the "ref" one's)."""
    hal = workers[0]
    result = {"model": name, "roles": roles}
    for mode in ("eager", "compiled"):
        built = [json.loads(w.ask(f"build {name} {mode}")) for w in workers]
        result[f"compile_s_{mode}"] = [b["compile_s"] for b in built]
        for kind in ("step", "forward"):
            timed = [i for i, role in enumerate(roles) if kind == "step" or role != "ref default"]
            part = lockstep.lockstep_samples([workers[i] for i in timed], f"time_{kind}", repeats)
            by_index = dict(zip(timed, part))
            samples = [by_index.get(i, by_index[roles.index("ref")]) for i in range(len(roles))]
            result[f"{kind}_{mode}"] = lockstep.medians(samples)
            result[f"{kind}_{mode}_samples"] = samples
        if mode == "compiled":
            result["strict"] = json.loads(hal.ask("strict"))
    return result


def run_set(devices, names, scale, repeats, args) -> tuple:
    """One set of worker processes through every model: hal, the reference with hal's autograd threading ("ref"),
    where it differs the reference with PyTorch's default threading ("ref default"), and with --loaded-reference
    the reference with torch_hal loaded ("loaded"). Their descriptions and per-model results."""
    workers = [start_worker(devices[0], scale, args.threads, args.batch_seconds,
                            autograd_threading=args.hal_autograd_threading)]
    roles = ["hal"]
    try:
        describe = [json.loads(workers[0].ask("describe"))]
        for role, mode in zip(("ref", "ref default"), sides.reference_threadings(describe[0]["autograd"], devices[1])):
            workers.append(start_worker(devices[1], scale, args.threads, args.batch_seconds, autograd_threading=mode))
            roles.append(role)
        if args.loaded_reference:  # torch_hal's own threading, as a user's process with it loaded has
            workers.append(start_worker(devices[1], scale, args.threads, args.batch_seconds, load_torch_hal=True))
            roles.append("loaded")
        describe += [json.loads(w.ask("describe")) for w in workers[1:]]
        results = []
        for i, name in enumerate(names, 1):
            print(f"[{i}/{len(names)}] {name} (scale {scale}) on {devices[0]} and {devices[1]}", file=sys.stderr,
                  flush=True)
            results.append(measure(workers, roles, name, repeats))
    finally:
        for w in workers:
            w.close()
    return describe, results


def combine(sets: list) -> list:
    """Per model, the median over the process sets of each side's figure; the fallback check from the set that
    found the most (a failure over any count). Each set's own step ratios stay in "step_ratios_by_set", and
    "paired_<kind>" keeps, per reference, the ratios of compiled hal over that reference round by round
    (lockstep.paired_ratios) from all the sets together."""
    combined = []
    for per_set in zip(*sets):
        result = dict(per_set[0])
        for key in ("step_eager", "forward_eager", "step_compiled", "forward_compiled",
                    "compile_s_eager", "compile_s_compiled"):
            result[key] = [statistics.median(side) for side in zip(*(r[key] for r in per_set))]
        result["strict"] = max((r["strict"] for r in per_set),
                               key=lambda s: (s["strict"] == "fail", s.get("fallback_calls", 0)))
        result["step_ratios_by_set"] = [[r["step_compiled"][0] / r["step_compiled"][r["roles"].index(role)]
                                         for role in ("ref", "loaded") if role in r["roles"]] for r in per_set]
        for kind in ("step", "forward"):
            references = [result["roles"].index(role) for role in ("ref", "ref default", "loaded")
                          if role in result["roles"] and not (kind == "forward" and role == "ref default")]
            result[f"paired_{kind}"] = [[ratio for r in per_set
                                         for ratio in lockstep.paired_ratios(r[f"{kind}_compiled_samples"], 0, j)]
                                        for j in references]
        combined.append(result)
    return combined


def paired_lines(results: list, loaded_reference: bool) -> str:
    roles = results[0]["roles"] if results else []
    which = "the reference" + (" / the reference with PyTorch's default threading (steps only)"
                               if "ref default" in roles else "") + (" / the loaded reference" if loaded_reference else "")
    rounds = len(results[0]["paired_step"][0]) if results else 0
    text = (f"\nCompiled hal over {which}, round by round (the median of the {rounds} rounds' ratios, and their "
            "middle half; each round times every side once, moments apart):\n")
    for r in results:
        cells = [f"{kind} " + " / ".join(lockstep.paired_summary(ratios) for ratios in r[f"paired_{kind}"])
                 for kind in ("step", "forward")]
        text += f"- {r['model']}: " + "; ".join(cells) + "\n"
    return text


def rows(result: dict):
    strict = result["strict"]
    calls = str(strict["fallback_calls"]) if strict["strict"] == "pass" else f"fails ({strict['op']})"
    roles = result["roles"]
    for kind in ("step", "forward"):
        eager, compiled = result[f"{kind}_eager"], result[f"{kind}_compiled"]
        ref = roles.index("ref")
        if "ref default" not in roles:
            default = "n/a (CPU)" if result.get("reference_is_cpu") else "= (same threading)"
        else:
            default = f"{compiled[0] / compiled[roles.index('ref default')]:.2f}" if kind == "step" else "= (no backward)"
        cells = (result["model"], kind, fmt_time(eager[0]), fmt_time(compiled[0]), f"{eager[0] / compiled[0]:.2f}",
                 fmt_time(compiled[ref]), f"{compiled[0] / compiled[ref]:.2f}", default,
                 f"{result['compile_s_compiled'][0]:.1f}", calls)
        if "loaded" in roles:  # the reference with torch_hal loaded
            loaded = roles.index("loaded")
            cells += (fmt_time(compiled[loaded]), f"{compiled[0] / compiled[loaded]:.2f}")
        yield "| " + " | ".join(cells) + " |"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--reference", default="auto", help="cpu, cuda:N, or auto (default)")
    parser.add_argument("--models", default=",".join(compile_models.MODELS),
                        help="compile models (model_zoo/compile_models.py) and model benchmark models (gpt2, llama, "
                        "bert, resnet18, resnet50, mini_gpt, mini_convnet), comma-separated")
    parser.add_argument("--scale", type=int, help="model and batch size multiplier (default 8, 1 with --quick)")
    parser.add_argument("--repeats", type=int, help="timed batches per side (default 5, 2 with --quick)")
    parser.add_argument("--threads", type=int, help="CPU threads of each side (torch.set_num_threads): on a machine "
                        "shared with other work, 1 keeps OpenMP's waiting out of the figures")
    parser.add_argument("--batch-seconds", type=float, default=0.05,
                        help="least duration of one timed batch (default 0.05). Longer batches leave less of each "
                        "batch to the cold caches it starts with after the other sides ran: small models on a "
                        "shared 2-core machine need about 0.25 for figures that hold from run to run")
    parser.add_argument("--quick", action="store_true", help="test-sized models, for a smoke test")
    parser.add_argument("--loaded-reference", action="store_true",
                        help="also time the reference device in a process with torch_hal loaded (see above)")
    parser.add_argument("--hal-autograd-threading", choices=sides.THREADING, default="keep",
                        help="the hal side's autograd threading (default keep: torch_hal's, the calling thread on one "
                        "device); the reference's first column always follows it")
    parser.add_argument("--processes", type=int, default=1,
                        help="sets of fresh worker processes to run one after the other (default 1); the table "
                        "gives each figure's median over the sets. On the 2-core machine one process of a side can "
                        "run a small model's step 5-10%% faster or slower than the next (where its code and data "
                        "land in the caches), more than the target's margin: 3 or more sets give figures that "
                        "hold from run to run")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    scale = args.scale or (1 if args.quick else 8)
    repeats = args.repeats or (2 if args.quick else 5)
    if args.processes < 1:
        parser.error("--processes takes 1 or more")
    names = args.models.split(",")
    known = compile_worker.model_names()
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown models {unknown}; choose from {', '.join(known)}")
    devices = [args.device, auto_reference(args.device) if args.reference == "auto" else args.reference]
    sets = []
    for k in range(args.processes):
        if args.processes > 1:
            print(f"process set {k + 1} of {args.processes}", file=sys.stderr, flush=True)
        describe, results = run_set(devices, names, scale, repeats, args)
        sets.append(results)
    results = combine(sets)
    for r in results:
        r["reference_is_cpu"] = devices[1].startswith("cpu")
    across = (f", then the median over {args.processes} sets of fresh processes" if args.processes > 1 else "")
    header = (f"{devices[0]} ({describe[0]['name']}) vs {devices[1]} ({describe[1]['name']}), torch "
              f"{describe[1]['torch']}, scale {scale}, {args.threads or 'default'} CPU threads, median of {repeats} timed batches "
              f"of at least {args.batch_seconds} s per side, in alternating rounds{across}.\nAutograd threading: "
              f"hal {sides.describe_threading(describe[0]['autograd'])}, ref the same; ref default: the reference "
              f"with {sides.describe_threading('worker')}"
              + ("" if "ref default" in results[0]["roles"] else
                 " (not measured: " + ("CPU tensors' backward runs on the calling thread either way)"
                                       if devices[1].startswith("cpu") else "the same as ref)")))
    columns = COLUMNS + (LOADED_COLUMNS if args.loaded_reference else ())
    text = "\n".join([header, "", "| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
                     + [row for r in results for row in rows(r)]) + "\n"
    if args.processes > 1:
        text += "\nCompiled step of hal over the reference" + (" (and over the loaded reference)" if
                                                              args.loaded_reference else "") + ", set by set:\n"
        for r in results:
            by_set = ", ".join("/".join(f"{x:.2f}" for x in ratios) for ratios in r["step_ratios_by_set"])
            text += f"- {r['model']}: {by_set}\n"
    text += paired_lines(results, args.loaded_reference)
    print(text, end="")
    if args.markdown:
        Path(args.markdown).write_text(f"Machine: {machine()}.\n\n" + text)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "devices": describe, "results": results},
                                              indent=1) + "\n")
    finite = all(math.isfinite(r[f"{k}_compiled"][0]) for r in results for k in ("step", "forward"))
    return 0 if finite else 1


if __name__ == "__main__":
    sys.exit(main())
