"""The README's Python script runs as printed and plots the discharge."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_script_runs_the_hourglass_and_plots_it(tmp_path):
    text = (ROOT / "README.md").read_text()
    script = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len([l for l in script.splitlines() if l.strip()]) <= 10, "the README promises a ten-line script"
    # Headless: the Agg backend writes the PNG without a display.
    (tmp_path / "readme.py").write_text("import matplotlib\nmatplotlib.use('Agg')\n" + script)
    r = subprocess.run([sys.executable, "readme.py"], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "passed.png").stat().st_size > 1000
