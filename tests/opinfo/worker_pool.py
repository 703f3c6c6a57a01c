"""Worker processes (worker.py) that may crash or hang. Each runs one job at a time; the job a worker was running
when it died or stayed silent past the timeout is recorded as crash or hang, with the sample it had reached, and
a new worker takes the next job."""
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

WORKER = Path(__file__).resolve().parent / "worker.py"
START_TIMEOUT = 300  # seconds for a worker's imports (torch, torch_hal, op_db) on a loaded 2-core machine


class WorkerDied(Exception):
    pass


class Worker:
    def __init__(self, device, threads, env):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, str(WORKER), device, str(threads)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, env=env)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.buffer = b""
        try:
            ready = self.read(time.monotonic() + START_TIMEOUT)
        except WorkerDied:
            self.close()
            raise
        if ready is None:
            self.close()
            raise WorkerDied(f"silent for {START_TIMEOUT} s after its start")
        self.facts = ready["ready"]

    def read(self, deadline):
        """The next message; None past the deadline; WorkerDied when the process exits."""
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(timeout=left):
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)  # raw reads: no hidden buffer behind select()
            if not chunk:
                raise WorkerDied(self.exit_reason())
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def exit_reason(self):
        code = self.proc.wait()
        reason = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - 600))
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        return reason + ("; stderr: " + " | ".join(tail) if tail else "")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.selector.close()
        self.proc.stdout.close()
        self.stderr.close()


def run_jobs(jobs, device, workers, timeout, env, threads=1, report=lambda result: None):
    """Runs every job; returns (results, facts of the device as a worker saw it). A job's timeout counts from
    when it is sent; `report` sees each result as it comes."""
    todo = queue.Queue()
    for job in jobs:
        todo.put(job)
    results, facts = [], {}

    def record(result):
        results.append(result)
        report(result)

    def serve():
        worker = None
        while True:
            try:
                job = todo.get_nowait()
            except queue.Empty:
                break
            try:
                if worker is None:
                    worker = Worker(device, threads, env)
                    facts.update(worker.facts)
            except WorkerDied as e:
                record(dict(job, status="crash", detail=f"worker did not start: {e}", seconds=0))
                worker = None
                continue
            started, where = time.monotonic(), "before its first sample"
            try:
                try:
                    worker.proc.stdin.write((json.dumps(job) + "\n").encode())
                    worker.proc.stdin.flush()
                except BrokenPipeError:
                    pass  # it died after its last job: the read below says how
                while True:
                    message = worker.read(started + timeout)
                    if message is None:
                        worker.close()
                        worker = None
                        record(dict(job, status="hang", detail=f"no result within {timeout:g} s, at {where}",
                                    seconds=round(time.monotonic() - started, 2)))
                        break
                    if "done" in message:
                        record(message["done"])
                        break
                    where = message["sample"]
            except WorkerDied as e:
                worker.close()
                worker = None
                record(dict(job, status="crash", detail=f"worker {e}, at {where}",
                            seconds=round(time.monotonic() - started, 2)))
        if worker is not None:
            worker.close()

    threads_ = [threading.Thread(target=serve) for _ in range(max(1, min(workers, len(jobs))))]
    for t in threads_:
        t.start()
    for t in threads_:
        t.join()
    return results, facts
