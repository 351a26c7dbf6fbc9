"""The README's example ("From Python") runs as pasted, with the build tree's package."""
import os
import re
import subprocess
import sys

from conftest import REPO


def test_readme_example_runs_as_pasted(tmp_path):
    text = open(os.path.join(REPO, "README.md")).read()
    section = text[text.index("## From Python"):]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert 8 <= len(example.strip().splitlines()) <= 12
    r = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert "check passed" in lines[0]
    assert float(lines[1]) < 1e-3  # float32
    before, after, median_ms = map(float, lines[2].split())
    assert after <= before and median_ms > 0
