"""PyTorch's operator database (OpInfo) on a device, compared with CPU, surviving crashes and hangs.

    python tests/opinfo/run_opinfo.py --device hal:0 --workers 8 --json out.json      # the GPU machine (16 cores)
    python tests/opinfo/run_opinfo.py --ops nn.functional.conv2d addmm --dtypes float32
    python tests/opinfo/run_opinfo.py ... --write-known-failures tests/opinfo/known_failures/nvidia.json
    TORCH_HAL_ADAPTERS=$PWD/build/current/amd_on_nvidia/libhal_adapter_amd.so HAL_VISIBLE_DEVICES=amd:0 \
        python tests/opinfo/run_opinfo.py --device hal:0 --workers 8                  # the AMD path (amd.json)

A whole run of the six dtypes took 75-100 s on the 2-core CI machine (--workers 2). Where one call of a machine
cannot hold a run, split it by --dtypes (float32 complex64 | float16 bfloat16 int64 bool) or --shard K/N; each
part checks its own jobs, and --write-known-failures merges the parts into one list.

Every sample of every (op, variant, dtype) that CPU supports runs on the device and on CPU (op_compare.py); for
float32 ops with autograd, the gradients of every input that requires grad are compared too. Each job runs in a
worker process (worker_pool.py), so a crash or hang costs only that job. Statuses: pass_native, pass_fallback
(matched, but some sample went through the CPU fallback: torch.hal.fallback_stats()), wrong (values, or with
"grad wrong:" gradients, differ from CPU's), error (an exception where CPU gives a result), crash, hang, skip (CPU
accepts no sample). On memory the CPU can address (the host device with host access) ATen's CPU kernels run in place and
the fallback counts nothing, so there pass_native means "no copy to the CPU". --ops takes exact names: op.name, or
op.name.variant_test_name.

Known failures: the list of the device's adapter (known_failures.py; tests/opinfo/known_failures/<adapter>.json,
host_no_host_access.json for the host device under TORCH_HAL_HOST_ACCESSIBLE=0) unless --known-failures names
one. The exit status is 1 when a result leaves the list's expectations; --write-known-failures PATH rewrites a
list from this run (keeping the entries of jobs it did not run).
"""
import argparse
import collections
import json
import os
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import known_failures  # noqa: E402
from worker_pool import run_jobs  # noqa: E402

DTYPES = ["float32", "float16", "bfloat16", "complex64", "int64", "bool"]
STATUSES = ["pass_native", "pass_fallback", "wrong", "error", "crash", "hang", "skip"]


def all_jobs(dtypes):
    """(op, dtype) jobs for every op of op_db and every one of `dtypes` that the op supports on CPU."""
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    from op_compare import full_name

    return [{"op": full_name(op), "dtype": d} for op in op_db for d in dtypes
            if getattr(torch, d) in op.supported_dtypes("cpu")]


def select(jobs, ops=None, shard=None):
    """Jobs of the exact op names in `ops`, and of shard (k, n): ops spread by a hash of their name, so that a
    shard keeps its ops when others are added."""
    if ops:
        unknown = set(ops) - {j["op"] for j in jobs}
        if unknown:
            raise SystemExit(f"no such op in op_db: {', '.join(sorted(unknown))} (names are exact)")
        jobs = [j for j in jobs if j["op"] in ops]
    if shard:
        k, n = shard
        jobs = [j for j in jobs if zlib.crc32(j["op"].encode()) % n == k]
    return jobs


def run(device="hal:0", dtypes=DTYPES, ops=None, shard=None, workers=1, timeout=300, env=None, known=None,
        report=lambda result: None):
    """Runs the selected jobs. Returns a dict: results, facts (adapter, host access), list_path, unexpected
    (lines; see known_failures.unexpected) and seconds."""
    start = time.monotonic()
    every = all_jobs(dtypes)
    jobs = select(every, ops, shard)
    env = dict(os.environ if env is None else env, PYTHONWARNINGS="ignore")
    # The workers import torch_hal from this checkout, whatever another checkout's install points to.
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH", "")) if p)
    # One intra-op thread per worker where the workers fill the cores: more only oversubscribes them.
    threads = max(1, (os.cpu_count() or 1) // max(1, workers))
    results, facts = run_jobs(jobs, device, workers, timeout, env, threads, report)
    list_path = Path(known) if known else known_failures.default_path(facts) if facts else None
    listed = known_failures.load(list_path) if list_path else {}
    every_op = {j["op"] for j in all_jobs(DTYPES)}
    return {"device": device, "facts": facts, "list_path": str(list_path), "results": results,
            "unexpected": known_failures.unexpected(results, listed, every_op),
            "seconds": round(time.monotonic() - start, 1)}


def summarize(results):
    """Per dtype: the count of each status, and native passes over every status but skip."""
    table = {}
    for dtype in [d for d in DTYPES if any(r["dtype"] == d for r in results)]:
        counts = collections.Counter(r["status"] for r in results if r["dtype"] == dtype)
        judged = sum(n for s, n in counts.items() if s != "skip")
        table[dtype] = dict({s: counts[s] for s in STATUSES},
                            native_rate=round(counts["pass_native"] / judged, 4) if judged else None,
                            seconds=round(sum(r["seconds"] for r in results if r["dtype"] == dtype), 1))
    return table


def print_report(out):
    facts = out["facts"]
    print(f"OpInfo on {out['device']} ({facts.get('adapter')} adapter, {facts.get('name')}, host-accessible "
          f"{facts.get('host_accessible')}): {len(out['results'])} (op, dtype) jobs in {out['seconds']:.0f} s")
    print(f"  {'dtype':10s} " + " ".join(f"{s:>13s}" for s in STATUSES) + "  native rate  job-seconds")
    for dtype, row in summarize(out["results"]).items():
        rate = "-" if row["native_rate"] is None else f"{100 * row['native_rate']:.1f}%"
        counts = " ".join(f"{row[s]:13d}" for s in STATUSES)
        print(f"  {dtype:10s} {counts}  {rate:>11s}  {row['seconds']:11.0f}")
    print(f"Known failures: {out['list_path']}")
    print(f"{len(out['unexpected'])} unexpected results" + (":" if out["unexpected"] else ""))
    for line in out["unexpected"]:
        print("  " + line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--dtypes", nargs="+", default=DTYPES, choices=DTYPES)
    parser.add_argument("--ops", nargs="+", help="exact names: op.name or op.name.variant_test_name")
    parser.add_argument("--shard", help="K/N: the K-th (from 0) of N shards of the ops")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds one (op, dtype) job may take (the longest took 16 s on 2 cores)")
    parser.add_argument("--json", help="write every result here")
    parser.add_argument("--known-failures", help="the list to check against (default: the adapter's)")
    parser.add_argument("--write-known-failures", metavar="PATH",
                        help="rewrite this list from the run's failures (reasons of failures listed before are kept)")
    parser.add_argument("--quiet", action="store_true", help="no line per failing job while running")
    args = parser.parse_args(argv)
    shard = tuple(int(x) for x in args.shard.split("/")) if args.shard else None

    def report(r):
        if not args.quiet and r["status"] not in ("pass_native", "pass_fallback", "skip"):
            first = r["detail"].splitlines()[0][:160]
            print(f"  [{r['seconds']:6.1f} s] {r['op']}:{r['dtype']}: {r['status']}: {first}", flush=True)

    out = run(args.device, args.dtypes, args.ops, shard, args.workers, args.timeout, known=args.known_failures,
              report=report)
    out["summary"] = summarize(out["results"])
    print_report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    if args.write_known_failures:
        # Reasons carry over from the list this run was checked against, even when writing a new file.
        n = known_failures.write(args.write_known_failures, out["results"], {j["op"] for j in all_jobs(DTYPES)},
                                 reasons_from=out.get("list_path"))
        print(f"wrote {n} known failures to {args.write_known_failures}")
    return 1 if out["unexpected"] else 0


if __name__ == "__main__":
    sys.exit(main())
