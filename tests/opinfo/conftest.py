import sys
from pathlib import Path

# run_opinfo.py is a script as well as the test's library: importable under a name of its own.
sys.path.insert(0, str(Path(__file__).resolve().parent))
