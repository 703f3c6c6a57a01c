"""Runs red-team cases, each in a child process forked from this interpreter after `import torch` and
before anything imported torch_hal.

Each child imports torch_hal itself, so it reads its environment and loads its adapters afresh, exactly as a
new process does, and it ends through a real interpreter exit (atexit, finalization, static destructors).
What it saves is PyTorch's start-up, most of a fresh interpreter's time: a suite that needs a hundred
fresh processes then runs in seconds rather than minutes.

Protocol (forked_cases.py speaks the other side): one JSON request per line on stdin, one JSON result per
line on stdout. A request holds the case's code, extra environment, a timeout, and optionally a signal to
send once a marker appears in the child's stdout. The child's stdout and stderr go to pipes of their own;
a child that runs past its timeout is killed with its process group, and reported as timed out.
"""
import gc
import json
import os
import select
import signal
import sys
import time
import traceback


def _child(request, out_fd, err_fd, protocol_fds):
    """In the forked child: never returns to the request loop."""
    os.setpgid(0, 0)  # one group with anything it starts, so that a timeout kills them all
    # As a script started from a terminal has it, whatever started the suite: a shell's background job (`cmd &`
    # without job control) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in protocol_fds:  # stays valid for the interpreter's own stdin/stdout objects, but goes nowhere
        os.dup2(devnull, fd)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    for name in request.get("unset", []):
        os.environ.pop(name, None)
    os.environ.update(request.get("env", {}))
    status = 0
    try:
        exec(compile(request["code"], f"<red-team case {request['name']}>", "exec"), {"__name__": "__main__"})
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except KeyboardInterrupt:
        if request.get("finalize", True):
            raise  # uncaught, as in a script: the interpreter reports it and ends by SIGINT
        traceback.print_exc()
        status = 1
    except BaseException:
        traceback.print_exc()
        status = 1
    if not request.get("finalize", True):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    # Unwinds out of the runner's frames: the interpreter then exits as any script does.
    raise SystemExit(status)


def _collect(pid, out_r, err_r, request):
    """Reads the child's output until it closes both pipes or runs out of time, then reaps it."""
    deadline = time.monotonic() + request.get("timeout", 60)
    marker, signalled = request.get("signal_after"), False
    chunks = {out_r: [], err_r: []}
    open_fds = [out_r, err_r]
    timed_out = False
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select(open_fds, [], [], min(left, 0.5))
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                chunks[fd].append(data)
            else:
                open_fds.remove(fd)
        if marker and not signalled and marker.encode() in b"".join(chunks[out_r]):
            time.sleep(request.get("signal_delay", 0.5))  # let it get well into the work after the marker
            os.kill(pid, request.get("signal", signal.SIGINT))
            signalled = True
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    for fd in (out_r, err_r):
        os.close(fd)
    return {
        "name": request["name"],
        "returncode": os.waitstatus_to_exitcode(status),
        "stdout": b"".join(chunks[out_r]).decode(errors="replace"),
        "stderr": b"".join(chunks[err_r]).decode(errors="replace"),
        "timed_out": timed_out,
        "signalled": signalled,
    }


def main():
    import torch  # noqa: F401  (the expensive import every child shares)

    assert "torch_hal" not in sys.modules, "torch_hal was imported with torch: set TORCH_DEVICE_BACKEND_AUTOLOAD=0"
    gc.freeze()  # the children's collections and exits skip PyTorch's millions of objects
    protocol_in, protocol_out = sys.stdin.fileno(), os.dup(sys.stdout.fileno())
    replies = os.fdopen(protocol_out, "w", buffering=1)
    for line in sys.stdin:
        request = json.loads(line)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        started = time.monotonic()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(out_r)
            os.close(err_r)
            _child(request, out_w, err_w, (protocol_in, protocol_out, sys.stdout.fileno()))
        os.close(out_w)
        os.close(err_w)
        result = _collect(pid, out_r, err_r, request)
        result["seconds"] = round(time.monotonic() - started, 3)
        replies.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
