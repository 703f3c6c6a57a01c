"""PyTorch's operator database (OpInfo) on a device, compared with CPU, surviving crashes and hangs.

    python tests/opinfo/run_opinfo.py --device hal:0 --dtypes float32 bfloat16 --json out.json
    python tests/opinfo/run_opinfo.py --device cuda:0 ...     # torch.cuda's rate on the same samples

Each (op, dtype) runs in a worker process (worker.py); a worker that dies or stays silent past --timeout
costs only the op it was running, recorded as crash (with its signal) or hang, and a new worker goes on
with the next op. Statuses: pass, wrong (values differ from CPU), error (an exception where CPU gives a
result), crash, hang, skip (CPU itself accepts no sample). The pass rate counts every status but skip.
"""
import argparse
import collections
import json
import os
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

WORKER = Path(__file__).resolve().parent / "worker.py"
DEFAULT_DTYPES = ["float32", "float16", "bfloat16", "complex64", "int64", "bool"]


def list_jobs(dtypes, op_filter=None):
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    jobs = []
    for op in op_db:
        if op_filter and not any(f in op.name for f in op_filter):
            continue
        supported = op.supported_dtypes("cpu")
        for name in dtypes:
            if getattr(torch, name) in supported:
                jobs.append({"op": op.name, "variant": op.variant_test_name, "dtype": name})
    return jobs


def run_shard(jobs, device, max_samples, timeout, env, results):
    """Runs `jobs` in order through worker processes, restarting a worker after a crash or a hang."""
    remaining = list(jobs)
    while remaining:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.writelines(json.dumps(j) + "\n" for j in remaining)
            job_file = f.name
        with open(job_file) as stdin:
            proc = subprocess.Popen([sys.executable, str(WORKER), device, str(max_samples)], stdin=stdin,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        current, deadline = None, time.monotonic() + timeout * 4  # the first op also pays the imports
        while True:
            ready = selector.select(timeout=max(0.0, deadline - time.monotonic()))
            line = proc.stdout.readline() if ready else None
            if line is None:  # silent past the deadline
                proc.kill()
                proc.wait()
                if current is not None:
                    results.append(dict(current, status="hang", detail=f"no result within {timeout} s"))
                    remaining = remaining[1:]
                else:
                    results.extend(dict(j, status="hang", detail="worker did not start") for j in remaining)
                    remaining = []
                break
            if not line:  # the worker exited
                code = proc.wait()
                if current is not None:
                    results.append(dict(current, status="crash", detail=f"worker exit code {code}"))
                    remaining = remaining[1:]
                elif remaining:
                    results.extend(dict(j, status="crash", detail=f"worker exit {code} before start")
                                   for j in remaining)
                    remaining = []
                break
            message = json.loads(line)
            if "start" in message:
                current, deadline = message["start"], time.monotonic() + timeout
            else:
                results.append(dict(message["done"], status=message["status"], detail=message["detail"]))
                remaining = remaining[1:]
                current = None
        selector.close()
        os.unlink(job_file)


def run(device, dtypes=DEFAULT_DTYPES, op_filter=None, max_samples=4, timeout=120, workers=1, env=None):
    jobs = list_jobs(dtypes, op_filter)
    env = dict(os.environ if env is None else env, PYTHONWARNINGS="ignore")
    # The workers import torch_hal from this checkout, whatever another checkout's install points to.
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH", "")) if p)
    results = []
    shards = [jobs[i::workers] for i in range(workers)]
    threads = [threading.Thread(target=run_shard, args=(s, device, max_samples, timeout, env, results))
               for s in shards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def summarize(results):
    """Per dtype: counts of each status and the pass rate over every status but skip."""
    table = {}
    for dtype in sorted({r["dtype"] for r in results}):
        counts = collections.Counter(r["status"] for r in results if r["dtype"] == dtype)
        judged = sum(n for s, n in counts.items() if s != "skip")
        table[dtype] = dict(counts, rate=(counts["pass"] / judged) if judged else 1.0)
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="hal:0")
    parser.add_argument("--dtypes", nargs="+", default=DEFAULT_DTYPES)
    parser.add_argument("--ops", nargs="*", help="run only ops whose name contains one of these")
    parser.add_argument("--max-samples", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=120, help="seconds one op may take")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", help="write every result here")
    args = parser.parse_args(argv)
    start = time.time()
    results = run(args.device, args.dtypes, args.ops, args.max_samples, args.timeout, args.workers)
    table = summarize(results)
    print(f"OpInfo on {args.device}: {len(results)} (op, dtype) pairs in {time.time() - start:.0f} s")
    for dtype, row in table.items():
        counts = ", ".join(f"{k} {v}" for k, v in sorted(row.items()) if k != "rate")
        print(f"  {dtype:10s} pass rate {100 * row['rate']:5.1f}%  ({counts})")
    for r in results:
        if r["status"] in ("crash", "hang"):
            print(f"  {r['status'].upper()}: {r['op']}{'.' + r['variant'] if r['variant'] else ''} {r['dtype']}: {r['detail']}")
    errors = collections.Counter(r["detail"].split(":")[0] + ": " + r["detail"].split(":", 1)[-1][:80]
                                 for r in results if r["status"] == "error")
    for detail, n in errors.most_common(15):
        print(f"  error x{n}: {detail}")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": args.device, "summary": table, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
