"""Bad input raises superopt.Error (a ValueError) with the command line's one-line message; the
interpreter never crashes."""
import os

import pytest

import superopt
from conftest import REPO

BOTTLENECK = os.path.join(REPO, "data", "graphs", "resnet_bottleneck.json")


def cli_message(cli, *args):
    """The one line the command prints on stderr, without its "superopt: " prefix (exit 2)."""
    code, _, err = cli(*args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    return lines[0].split(": ", 1)[1]


def raises(call, *args, **kwargs):
    with pytest.raises(superopt.Error) as e:
        call(*args, **kwargs)
    assert isinstance(e.value, ValueError)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_missing_file(cli, tmp_path):
    missing = str(tmp_path / "missing.json")
    assert raises(superopt.load, missing) == cli_message(cli, "graph", "check", missing)
    assert raises(superopt.RuleDatabase, tmp_path / "missing.h5") == cli_message(
        cli, "db", "info", str(tmp_path / "missing.h5"))


def test_malformed_json(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "superopt-graph", "version": 1, "outputs": [}')
    assert raises(superopt.load, bad) == cli_message(cli, "graph", "check", str(bad))


def test_unknown_builtin(cli):
    assert raises(superopt.load, "builtin:nope") == cli_message(cli, "graph", "check", "builtin:nope")


def test_bad_onnx_bytes():
    assert raises(superopt.load, b"not a model").startswith("<onnx bytes>: not an ONNX model")
    with pytest.raises(TypeError):
        superopt.load(42)


def test_bad_cost_and_search(cli):
    g = superopt.load(BOTTLENECK)
    assert raises(g.cost, "analytic:nowhere") == cli_message(cli, "graph", "check", BOTTLENECK, "--cost",
                                                              "analytic:nowhere")
    assert raises(superopt.optimize, g, cost="fast please") == cli_message(
        cli, "optimize", BOTTLENECK, "--rules", superopt.default_rules(), "--cost", "fast please")
    assert raises(superopt.optimize, g, search="eventually").startswith("--search: unknown search 'eventually'")
    raises(superopt.optimize, g, time_limit=0)
    raises(superopt.optimize, g, budget=0)


def test_bad_run(cli):
    g = superopt.load(BOTTLENECK)
    assert raises(superopt.run, g, threads=10000) == cli_message(cli, "run", BOTTLENECK, "--device", "cpu",
                                                                  "--threads", "10000")
    assert raises(superopt.run, g, device="tpu") == cli_message(cli, "run", BOTTLENECK, "--device", "tpu")
    raises(superopt.run, g, repeat=0)
    with pytest.raises(superopt.Error, match="no input or weight 'nope'"):
        g.evaluate(inputs={"nope": [1.0]})
