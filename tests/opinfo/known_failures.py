"""Known failures, one list per adapter: tests/opinfo/known_failures/<list>.json maps "op[.variant]:dtype" to
{"status": "wrong" | "error" | "order-dependent", "reason": "..."}. A run leaves the list's expectations when an
(op, dtype) fails that is not listed or fails otherwise than listed, when a listed one passes (the list must
shrink), or on any crash or hang (never accepted, listed or not). "order-dependent" marks a result that depends
on the order in which atomic updates land (half-precision accumulations rounded at every step), which may pass
on one run and miss the tolerance on the next: both are accepted, and a rerun keeps the entry."""
import json
from pathlib import Path

LISTS = Path(__file__).resolve().parent / "known_failures"
FAILED = ("wrong", "error", "crash", "hang")
ORDER_DEPENDENT = "order-dependent"


def list_name(facts: dict) -> str:
    """The adapter's name; the host adapter without host access (TORCH_HAL_HOST_ACCESSIBLE=0) takes the
    discrete-GPU paths (transfers, the counted CPU fallback), so it keeps a list of its own."""
    if facts["adapter"] == "host" and not facts["host_accessible"]:
        return "host_no_host_access"
    return facts["adapter"]


def default_path(facts: dict) -> Path:
    return LISTS / f"{list_name(facts)}.json"


def key(result: dict) -> str:
    return f"{result['op']}:{result['dtype']}"


def load(path) -> dict:
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else {}


def unexpected(results, known: dict, every_op: set) -> list:
    """One line per result that leaves the list's expectations, and per listed op that op_db no longer has."""
    lines = []
    for r in sorted(results, key=key):
        entry = known.get(key(r))
        if entry is not None and entry["status"] == ORDER_DEPENDENT and r["status"] not in ("crash", "hang", "error"):
            continue
        if r["status"] in ("crash", "hang"):
            lines.append(f"{key(r)}: {r['status'].upper()} (never accepted): {r['detail']}")
        elif r["status"] in FAILED and entry is None:
            lines.append(f"{key(r)}: new failure, {r['status']}: {r['detail'].splitlines()[0]}")
        elif r["status"] in FAILED and entry["status"] != r["status"]:
            lines.append(f"{key(r)}: listed as {entry['status']}, now {r['status']}: {r['detail'].splitlines()[0]}")
        elif r["status"] not in FAILED and entry is not None:
            lines.append(f"{key(r)}: listed as {entry['status']}, now {r['status']}: remove it from the list")
    lines += [f"{k}: listed, but op_db has no such op: remove it from the list"
              for k in sorted(known) if k.rsplit(":", 1)[0] not in every_op]
    return lines


def write(path, results, every_op: set, reasons_from=None) -> int:
    """Writes the failures of `results` to `path`, the reason being the first line of each one's detail. Entries
    of (op, dtype) pairs this run did not cover stay as they were, so that several partial runs (shards, --ops,
    --dtypes) build one list. A failure listed before with the same status keeps its reason (the list at
    `reasons_from`, else the one at `path`): reasons are written by people, who say why it fails, not just how.
    Returns the number of entries."""
    ran = {key(r) for r in results}
    existing = load(path)
    earlier = load(reasons_from) if reasons_from else existing
    merged = {k: v for k, v in existing.items() if k not in ran and k.rsplit(":", 1)[0] in every_op}
    for r in results:
        kept = earlier.get(key(r))
        if kept and kept["status"] == ORDER_DEPENDENT and r["status"] in ("wrong", "pass_native", "pass_fallback"):
            merged[key(r)] = kept  # passing this time proves nothing about the next run's order
            continue
        if r["status"] not in FAILED:
            continue
        reason = kept["reason"] if kept and kept["status"] == r["status"] else r["detail"].splitlines()[0][:300]
        merged[key(r)] = {"status": r["status"], "reason": reason}
    # One entry per line: a fix shows in review as the lines it removes.
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(merged[k], sort_keys=True)}" for k in sorted(merged))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("{\n" + body + ("\n" if body else "") + "}\n")
    return len(merged)
