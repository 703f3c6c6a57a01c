"""The test side of forked_case_runner.py: a pytest fixture that starts one runner per test module and runs
cases in it. Each case is a fresh `import torch_hal` in a child process with its own environment, output
and timeout; a hang or a crash comes back as a result (timed_out, a negative returncode), never as a stuck
or dead test session."""
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Optional

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent.parent
TESTS_PYTHON = HERE.parent


@dataclass
class CaseResult:
    name: str
    returncode: int  # negative: killed by that signal (-11 SIGSEGV, -7 SIGBUS, -6 SIGABRT)
    stdout: str
    stderr: str
    timed_out: bool
    signalled: bool
    seconds: float

    def __str__(self):  # what an assertion shows
        return (f"case {self.name}: exit {self.returncode}{' (TIMED OUT: a hang)' if self.timed_out else ''} "
                f"after {self.seconds}s\n--- stdout\n{self.stdout[-4000:]}\n--- stderr\n{self.stderr[-4000:]}")

    def lines(self, prefix: str):
        """The JSON payloads of stdout lines starting with `prefix`."""
        return [json.loads(line[len(prefix):]) for line in self.stdout.splitlines() if line.startswith(prefix)]

    def assert_clean_exit(self):
        assert not self.timed_out and self.returncode == 0, str(self)
        assert "terminate called" not in self.stderr and "Traceback" not in self.stderr, str(self)


class ForkedCases:
    def __init__(self):
        env = dict(os.environ)
        # The runner imports torch alone: an installed torch_hal autoloaded with it would be that build's.
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
        env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(HERE), str(TESTS_PYTHON), env.get("PYTHONPATH", "")])
        self._process = subprocess.Popen([sys.executable, str(HERE / "forked_case_runner.py")], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, env=env, cwd=REPO_ROOT)

    def run(self, code: str, *, name: str = "case", env: Optional[Dict[str, str]] = None, unset: Iterable[str] = (),
            timeout: float = 60, signal_after: Optional[str] = None, signal_number: int = signal.SIGINT,
            finalize: bool = True) -> CaseResult:
        """Runs `code` (dedented) in a fresh child. finalize=False ends the child with os._exit after its
        code, skipping the interpreter's exit (for cases about start-up only: it saves a second each)."""
        request = {"name": name, "code": textwrap.dedent(code), "env": {k: str(v) for k, v in (env or {}).items()},
                   "unset": list(unset), "timeout": timeout, "signal_after": signal_after, "signal": int(signal_number),
                   "finalize": finalize}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        # The runner enforces the timeout itself; this only guards against the runner dying or hanging.
        ready, _, _ = select.select([self._process.stdout], [], [], timeout + 120)
        line = self._process.stdout.readline() if ready else ""
        if not line:
            self.close()
            pytest.fail(f"the red-team case runner gave no result for case {name} (exit {self._process.returncode})")
        return CaseResult(**json.loads(line))

    def close(self):
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


@pytest.fixture(scope="module")
def forked():
    cases = ForkedCases()
    yield cases
    cases.close()
