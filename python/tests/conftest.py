"""Shared by the superopt package's tests: the repository, the superopt binary beside the package
(the CLI the package's reports are compared with) and a runner for it."""
import json
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("SUPEROPT_BINARY", os.path.join(REPO, "build", "superopt"))
    if not os.access(path, os.X_OK):
        pytest.skip(f"no superopt binary at {path} (set $SUPEROPT_BINARY)")
    return path


@pytest.fixture(scope="session")
def cli(binary):
    """cli(args...) -> (exit code, stdout, stderr) of the superopt binary."""
    def run(*args):
        r = subprocess.run([binary, *args], capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr
    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    def run(*args):
        code, out, err = cli(*args, "--json")
        assert code == 0, err
        return json.loads(out)
    return run
