#!/usr/bin/env python3
"""Batch normalization folded into the convolution on import (issue 36, item 2):
small PyTorch modules (conv + BatchNorm2d (+ relu), with and without the conv's
bias, grouped, depthwise; Linear + BatchNorm1d) exported with the batch norm kept as a node, as the
zoo exports them; the import must leave no batchnorm, each conv with its bias
as its third input (the conv's own bias and the shift folded into one), a
Linear one linear layer (its bias and the shift folded into one),
and equal the float64 PyTorch module within 1e-8 (the folded kernel and shift
are weight-only subgraphs, folded at load time in float64); `run --device cpu
--check` must pass. A conv whose output is also read elsewhere keeps its
batchnorm. Clip(x, 0, inf) and Max(x, 0) import as relu, Clip(x, 0, 6) as relu6.

  /usr/bin/python3 tests/onnx_batchnorm_fold_test.py build/superopt OUT_DIR
"""
import json
import os
import sys
from collections import Counter

import h5py
import numpy as np
import torch
from torch import nn

from onnx_case_driver import require_cpu_check, run, run_cases  # this folder

BOUND = 1e-8


class ConvBn(nn.Module):
    def __init__(self, cin, cout, groups=1, bias=False, relu=True, tap=False):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, groups=groups, bias=bias)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = relu
        self.tap = tap  # the conv's output is also read by the sum: the batchnorm stays

    def forward(self, x):
        c = self.conv(x)
        y = self.bn(c)
        y = torch.relu(y) if self.relu else y
        return y + c if self.tap else y


class ClampMax(nn.Module):
    """relu written as Clip(x, 0, inf) and as Max(x, 0): both import as relu; ReLU6 (exported as Relu
    then Clip(x, 0, 6)) as relu6 alone."""

    def forward(self, x):
        return torch.clamp(x, min=0) + torch.maximum(x * 2, torch.zeros(())) + nn.functional.relu6(x * 4)


def cases():
    """name -> (module, its input shape, batchnorms expected after import)."""
    yield "conv_bn_relu", ConvBn(3, 8), (1, 3, 6, 7), 0
    yield "conv_bias_bn", ConvBn(3, 8, bias=True, relu=False), (2, 3, 5, 5), 0
    yield "grouped_conv_bn_relu", ConvBn(4, 8, groups=2, bias=True), (1, 4, 6, 6), 0
    yield "depthwise_conv_bn_relu", ConvBn(6, 6, groups=6), (1, 6, 5, 6), 0
    yield "linear_bn1d_relu", nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4), nn.ReLU()), (3, 5), 0
    yield "linear_no_bias_bn1d", nn.Sequential(nn.Linear(5, 4, bias=False), nn.BatchNorm1d(4)), (3, 5), 0
    yield "clip_and_max_as_relu", ClampMax(), (2, 3, 4), 0
    yield "conv_read_twice_keeps_bn", ConvBn(3, 8, tap=True), (1, 3, 5, 5), 1


def randomize_bn(m, seed):
    """Running statistics and affine parameters away from their identity defaults."""
    g = torch.Generator().manual_seed(seed)
    for bn in (x for x in m.modules() if isinstance(x, nn.modules.batchnorm._BatchNorm)):
        c = bn.num_features
        bn.running_mean.copy_(torch.randn(c, generator=g))
        bn.running_var.copy_(torch.rand(c, generator=g) * 2 + 0.1)
        bn.weight.data.copy_(torch.randn(c, generator=g))
        bn.bias.data.copy_(torch.randn(c, generator=g))


def data_operators(nodes):
    """The operators that read the input (the weight-only ones are folded at load time), by op."""
    on_data = {"x"}
    for n in nodes:  # in topological order
        if any(i in on_data for i in n["inputs"]):
            on_data.add(n["name"])
    ops = Counter(n["op"] for n in nodes if n["name"] in on_data and n["op"] != "input")
    # A convolution that took its bias: conv2d:3, beside conv2d.
    ops["conv2d:3"] = sum(1 for n in nodes if n["op"] == "conv2d" and n["name"] in on_data and len(n["inputs"]) == 3)
    return ops


def check_case(superopt, out, name, module, dims, batchnorms):
    torch.manual_seed(len(name))
    randomize_bn(module, len(name))
    module.eval()
    path = os.path.join(out, f"{name}.onnx")
    torch.onnx.export(module, torch.zeros(dims), path, opset_version=17, input_names=["x"], output_names=["y"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    ops = data_operators(json.loads(run([superopt, "graph", "check", path, "--json"]))["nodes"])
    if ops["batchnorm"] != batchnorms:
        raise AssertionError(f"{ops['batchnorm']} batchnorm nodes after import, expected {batchnorms}: {dict(ops)}")
    if isinstance(module, ClampMax):
        if ops["relu"] != 2 or ops["relu6"] != 1 or ops["clip"]:
            raise AssertionError(f"expected two relu, one relu6 and no clip: {dict(ops)}")
    elif batchnorms == 0 and ops["conv2d"] and (ops["ewadd"] or ops["conv2d:3"] != ops["conv2d"]):
        raise AssertionError(f"expected every conv with its bias input and no add: {dict(ops)}")
    elif batchnorms == 0 and not ops["conv2d"] and (ops["ewadd"] or ops["matmul"] or ops["linear"] != 1):
        # the Linear's bias and the shift, one bias of one linear layer
        raise AssertionError(f"expected one linear layer and no add: {dict(ops)}")
    dump = os.path.join(out, f"{name}.h5")
    run([superopt, "graph", "run", path, "--dump", dump])
    with h5py.File(dump, "r") as f:
        x, ours = np.asarray(f["sources"]["x"]), np.asarray(f["outputs"]["y"])
    with torch.inference_mode():
        theirs = module.double()(torch.as_tensor(x, dtype=torch.float64)).numpy()
    err = float(np.max(np.abs(ours - theirs)) / max(float(np.max(np.abs(theirs))), 1e-300))
    if not err <= BOUND:
        raise AssertionError(f"relative error against PyTorch in float64 {err:.3e} > {BOUND:g}")
    require_cpu_check(superopt, path)
    return err


def main(argv):
    return run_cases("onnx_batchnorm_fold_test", argv, cases(), check_case)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
