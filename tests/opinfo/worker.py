"""Child process of worker_pool.py: runs the jobs it reads from stdin, one JSON line each ({"op", "dtype"}, op being
op.name[.variant_test_name]), one at a time, and answers on its own channel, one JSON line per message:
{"ready": facts} once imported, {"sample": ...} before each sample's forward and backward (so that the parent can
name the sample if this process dies), and {"done": ...} with the job's status and detail.

    python worker.py DEVICE THREADS
"""
import json
import os
import sys
import time
import traceback

import torch


def device_facts(device: str) -> dict:
    """What picks the known-failure list: the device's adapter, and whether its memory is host-accessible."""
    if not device.startswith("hal"):
        return {"adapter": torch.device(device).type, "host_accessible": device == "cpu", "name": device}
    p = torch.hal.get_device_properties(torch.device(device))
    return {"adapter": p.adapter, "host_accessible": bool(p.host_accessible), "name": p.name}


def main():
    device, threads = sys.argv[1], int(sys.argv[2])
    # The protocol gets its own copy of stdout; fd 1 then points at stderr, so nothing that an op or a library
    # prints can break a line of the protocol.
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def send(message):
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    torch.set_num_threads(threads)  # the workers share the machine's cores
    if device.startswith("hal"):
        import torch_hal  # noqa: F401
    from torch.testing._internal.common_methods_invocations import op_db

    from op_compare import full_name, run_op

    by_name = {full_name(op): op for op in op_db}
    send({"ready": device_facts(device)})

    def progress(i, n, phase, sample):
        send({"sample": f"sample {i}/{n} {phase}: {sample.summary()[:400]}"})

    for line in sys.stdin:
        job = json.loads(line)
        start = time.monotonic()
        try:
            status, detail = run_op(by_name[job["op"]], getattr(torch, job["dtype"]), device, progress)
        except Exception:  # noqa: BLE001  (a bug of the harness itself, reported as such)
            status, detail = "error", "harness: " + traceback.format_exc().strip().splitlines()[-1][:300]
        send({"done": dict(job, status=status, detail=detail, seconds=round(time.monotonic() - start, 2))})


if __name__ == "__main__":
    main()
