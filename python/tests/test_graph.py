"""superopt.load and Graph: every kind of model, the report `graph check --json` prints, JSON and
ONNX round trips, costs and reference outputs equal to the command line's."""
import os

import numpy as np
import pytest

import superopt
from conftest import REPO

BOTTLENECK = os.path.join(REPO, "data", "graphs", "resnet_bottleneck.json")
TINY_ONNX = os.path.join(REPO, "tests", "data", "onnx", "tiny.onnx")


def test_load_builtin_reports_what_graph_check_reports(cli_json):
    g = superopt.load("builtin:squeezenet")
    expected = cli_json("graph", "check", "builtin:squeezenet")
    assert g.report() == expected
    assert g.num_operators == expected["totals"]["operators"]
    assert len(g.operators) == g.num_operators
    assert g.inputs == [(e["name"], tuple(e["shape"])) for e in expected["inputs"]]
    assert "squeezenet" in superopt.builtin_models()


def test_load_json_and_onnx_files(cli_json):
    for path in (BOTTLENECK, TINY_ONNX):
        g = superopt.load(path)
        assert g.report()["hash"] == cli_json("graph", "check", path)["hash"]
        assert g.source == path


def test_onnx_bytes_load_as_the_file_does():
    with open(TINY_ONNX, "rb") as f:
        from_bytes = superopt.load(f.read())
    assert from_bytes.report()["hash"] == superopt.load(TINY_ONNX).report()["hash"]


def test_cost_matches_graph_check_with_a_cost_model(cli_json):
    g = superopt.load(BOTTLENECK)
    expected = cli_json("graph", "check", BOTTLENECK, "--cost", "analytic:v100")["totals"]["cost_ms"]
    assert g.cost("analytic:v100") == pytest.approx(expected, rel=1e-12)
    assert g.report(cost="analytic:v100")["totals"]["cost_ms"] == pytest.approx(expected, rel=1e-12)
    assert g.cost("analytic:h100") != g.cost("analytic:v100")


def test_json_round_trip_keeps_the_graph(tmp_path):
    g = superopt.load(BOTTLENECK)
    path = tmp_path / "copy.json"
    g.save(path)
    assert path.read_text() == g.to_json()
    assert superopt.load(path).report()["hash"] == g.report()["hash"]


def test_onnx_export_computes_the_same_outputs(tmp_path):
    g = superopt.load(TINY_ONNX)
    again = superopt.load(g.to_onnx())
    for a, b in zip(g.evaluate(), again.evaluate()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    g.save(tmp_path / "tiny.onnx")
    assert (tmp_path / "tiny.onnx").read_bytes()[:2] == g.to_onnx()[:2]


def test_evaluate_is_graph_run(cli_json):
    g = superopt.load(BOTTLENECK)
    outputs = g.evaluate(seed=3)
    expected = cli_json("graph", "run", BOTTLENECK, "--seed", "3")["outputs"]
    assert len(outputs) == len(expected)
    for array, row in zip(outputs, expected):
        assert list(array.shape) == row["shape"]
        assert float(array.sum()) == pytest.approx(row["sum"], rel=1e-9)


def test_evaluate_takes_given_inputs():
    g = superopt.load(BOTTLENECK)
    name, shape = g.inputs[0]
    zeros = g.evaluate(inputs={name: np.zeros(shape)})
    ones = g.evaluate(inputs={name: np.ones(shape)})
    assert not np.allclose(zeros[0], ones[0])
    assert np.array_equal(zeros[0], g.evaluate(inputs={name: np.zeros(shape)})[0])
