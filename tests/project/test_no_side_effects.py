"""Importing the packages and plotting change no global setting of numba or matplotlib."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import matplotlib, numba, warnings
import gymnasium, pettingzoo  # noqa: F401  (their own import-time filters are theirs)
before = (numba.config.CACHE_DIR, matplotlib.get_backend(), list(warnings.filters))
import hanabi_env, agents, qd, meta  # noqa: F401
after_import = (numba.config.CACHE_DIR, matplotlib.get_backend(), list(warnings.filters))
assert before == after_import, (before, after_import)

# plotting leaves the caller's backend alone (a notebook's inline backend stays)
matplotlib.use("svg")
import tempfile, os
from qd.io import load_population
from qd.plot import heatmap
a = load_population("5x5")
with tempfile.TemporaryDirectory() as d:
    heatmap(a, os.path.join(d, "h.png"))
    assert os.path.getsize(os.path.join(d, "h.png")) > 1000
assert matplotlib.get_backend() == "svg", matplotlib.get_backend()

# a user's own cached numba function is cached where numba puts it, not under this package
@numba.njit(cache=True)
def f(x):
    return x + 1
f(1)
path = f._cache.cache_path
assert "hanabi-adhoc" not in path, path
print("ok")
"""


def test_import_and_plotting_change_no_global_setting(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")
