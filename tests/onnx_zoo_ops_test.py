#!/usr/bin/env python3
"""The operators the torchvision zoo brought (issue 36), each in a small ONNX
model written at test time with the onnx package: imported (the operator we
expect, the fused activations included), run on the CPU reference in float64
and compared with PyTorch's definition in float64, run on the oneDNN executor
(`run --device cpu --check`: every operator against the reference), exported
and imported back (the same values).

  /usr/bin/python3 tests/onnx_zoo_ops_test.py build/superopt OUT_DIR
"""
import json
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

from onnx_case_driver import require_cpu_check, run, run_cases  # this folder

BOUND = 1e-12  # float64 against float64: the order of operations only
# Cases with a weight-only subgraph: the export writes its values, computed in double, as
# float32 initializers (onnx_write.cc, with_computed_weights), so the round trip is float32's.
ROUND_TRIP_FLOAT32 = {"logit_scale"}


def model(nodes, x_dims, inits, opset):
    """x times 4 (as xs, so that the hard activations meet their corners), then the nodes."""
    nodes = [helper.make_node("Mul", ["x", "four"], ["xs"])] + nodes
    inits = dict(inits, four=np.float32(4))
    graph = helper.make_graph(nodes, "zoo_op", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_dims)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def rng_array(*dims):
    return np.random.default_rng(sum(dims)).standard_normal(dims).astype(np.float32)


def gelu_nodes():
    """As torch.onnx.export writes nn.GELU()."""
    return [helper.make_node("Div", ["xs", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
            helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", ["xs", "a"], ["m"]),
            helper.make_node("Mul", ["m", "half"], ["y"])]


def cases():
    """name -> (ONNX model, the operator we expect, PyTorch's definition on xs = 4 x in float64)."""
    t = lambda a: torch.as_tensor(np.asarray(a), dtype=torch.float64)
    scale, bias = rng_array(6), rng_array(6)
    ln2_scale, ln2_bias = rng_array(3, 6), rng_array(3, 6)
    kernel = rng_array(4, 3, 3, 3)
    yield "layer_norm", model([helper.make_node("LayerNormalization", ["xs", "s", "b"], ["y"], epsilon=1e-6)],
                              [2, 3, 6], {"s": scale, "b": bias}, 17), "layer_norm", \
        lambda x: F.layer_norm(x, (6,), t(scale), t(bias), float(np.float32(1e-6)))
    yield "layer_norm_two_axes", model(
        [helper.make_node("LayerNormalization", ["xs", "s", "b"], ["y"], axis=-2)], [2, 3, 6],
        {"s": ln2_scale, "b": ln2_bias}, 17), "layer_norm", \
        lambda x: F.layer_norm(x, (3, 6), t(ln2_scale), t(ln2_bias), 1e-5)
    yield "hardsigmoid", model([helper.make_node("HardSigmoid", ["xs"], ["y"], alpha=1.0 / 6)], [2, 3, 4, 5], {},
                               13), "hardsigmoid", lambda x: F.hardsigmoid(x)
    yield "hardsigmoid_onnx_default", model([helper.make_node("HardSigmoid", ["xs"], ["y"])], [2, 3, 4, 5], {},
                                            13), "clip", lambda x: torch.clamp(x * float(np.float32(0.2)) + 0.5, 0, 1)
    yield "hardswish", model([helper.make_node("HardSwish", ["xs"], ["y"])], [2, 3, 4, 5], {}, 14), "hardswish", \
        lambda x: F.hardswish(x)
    yield "hardswish_opset13", model([helper.make_node("HardSigmoid", ["xs"], ["h"], alpha=1.0 / 6),
                                      helper.make_node("Mul", ["xs", "h"], ["y"])], [2, 3, 4, 5], {}, 13), \
        "hardswish", lambda x: F.hardswish(x)
    yield "silu", model([helper.make_node("Sigmoid", ["xs"], ["s"]), helper.make_node("Mul", ["s", "xs"], ["y"])],
                        [2, 3, 4, 5], {}, 13), "silu", F.silu
    yield "gelu", model(gelu_nodes(), [2, 7, 8], {"sqrt2": np.float32(np.sqrt(2)), "one": np.float32(1),
                                                  "half": np.float32(0.5)}, 13), "gelu", F.gelu
    yield "expand", model([helper.make_node("Expand", ["xs", "shape"], ["y"])], [3, 1, 5],
                          {"shape": np.array([2, 3, 4, 5], np.int64)}, 13), "expand", \
        lambda x: x.expand(2, 3, 4, 5)
    yield "resize_up", model([helper.make_node("Resize", ["xs", "", "", "sizes"], ["y"], mode="linear",
                                               coordinate_transformation_mode="pytorch_half_pixel")],
                             [1, 2, 5, 7], {"sizes": np.array([1, 2, 16, 9], np.int64)}, 13), "resize", \
        lambda x: F.interpolate(x, size=(16, 9), mode="bilinear", align_corners=False)
    yield "resize_down", model([helper.make_node("Resize", ["xs", "", "", "sizes"], ["y"], mode="linear")],
                               [1, 2, 9, 8], {"sizes": np.array([1, 2, 4, 3], np.int64)}, 17), "resize", \
        lambda x: F.interpolate(x, size=(4, 3), mode="bilinear", align_corners=False)
    yield "exp", model([helper.make_node("Exp", ["xs"], ["y"])], [2, 3, 4], {}, 13), "exp", torch.exp
    # Swin V2's logit scale, exp(clamp(p, max=log(100))) on a weight: folded at load in double, as
    # PyTorch's float64 run computes it (folded into a float constant at import it was 3e-8 off).
    log_scale = np.log(10 * np.ones((3, 1, 1), np.float32)).astype(np.float32)
    yield "logit_scale", model([helper.make_node("Clip", ["p", "", "mx"], ["c"]), helper.make_node("Exp", ["c"], ["e"]),
                                helper.make_node("Mul", ["xs", "e"], ["y"])], [2, 3, 4, 5],
                               {"p": log_scale, "mx": np.float32(np.log(100.0))}, 13), "exp", \
        lambda x: x * torch.clamp(t(log_scale), max=float(np.float32(np.log(100.0)))).exp()
    i64 = lambda *v: np.array(v, np.int64)
    yield "slice_step", model([helper.make_node("Slice", ["xs", "s", "e", "a", "st"], ["y"])], [1, 2, 6, 5],
                              {"s": i64(1), "e": i64(100), "a": i64(2), "st": i64(2)}, 13), "slice", \
        lambda x: x[:, :, 1::2]
    yield "gather_scalar", model([helper.make_node("Gather", ["xs", "i"], ["y"], axis=1)], [2, 3, 4],
                                 {"i": np.array(-2, np.int64)}, 13), "slice", lambda x: x[:, 1]
    yield "reduce_l2", model([helper.make_node("ReduceL2", ["xs"], ["y"], axes=[-1])], [2, 3, 4], {}, 17), \
        "reduce_mean", lambda x: torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    other = rng_array(2, 3, 5, 4)
    yield "einsum", model([helper.make_node("Einsum", ["xs", "k"], ["y"], equation="b h i d, b h j d -> b h i j")],
                          [2, 3, 6, 4], {"k": other}, 13), "matmul", \
        lambda x: torch.einsum("bhid,bhjd->bhij", x, t(other))
    # A Linear as PyTorch exports it on a batch of sequences (MatMul by the weight, Add of the bias)
    # and as a Gemm on rows (transB, C): each taken into one linear layer on import; a bias that is
    # not one value per column stays an add after the matmul.
    weight, row_bias, plane_bias = rng_array(6, 4), rng_array(4), rng_array(5, 4)
    yield "linear_matmul_add", model([helper.make_node("MatMul", ["xs", "w"], ["m"]),
                                      helper.make_node("Add", ["m", "b"], ["y"])], [2, 5, 6],
                                     {"w": weight, "b": row_bias}, 13), "linear", \
        lambda x: x @ t(weight) + t(row_bias)
    yield "linear_gemm", model([helper.make_node("Gemm", ["xs", "wt", "b"], ["y"], transB=1)], [3, 6],
                               {"wt": weight.T.copy(), "b": row_bias}, 13), "linear", \
        lambda x: x @ t(weight) + t(row_bias)
    yield "matmul_plane_add", model([helper.make_node("MatMul", ["xs", "w"], ["m"]),
                                     helper.make_node("Add", ["m", "b"], ["y"])], [2, 5, 6],
                                    {"w": weight, "b": plane_bias}, 13), "matmul", \
        lambda x: x @ t(weight) + t(plane_bias)
    # Dilation 2 keeps every tap; dilation 6 on a 5x5 map leaves only the centre one.
    for d in (2, 6):
        yield f"conv_dilation_{d}", model([helper.make_node("Conv", ["xs", "w"], ["y"], dilations=[d, d],
                                                            pads=[d, d, d, d])], [1, 3, 5, 6], {"w": kernel}, 13), \
            "conv2d", lambda x, d=d: F.conv2d(x, t(kernel), padding=d, dilation=d)
    # Dilation 50,000: the kernel with zeros between its taps would be 2.4e11 values (the
    # importer built it whole until session 24); only the centre tap meets the input, so
    # the reference is that tap's 1x1 convolution (PyTorch would pad the map to 1e5 x 1e5).
    d = 50000
    yield f"conv_dilation_{d}", model([helper.make_node("Conv", ["xs", "w"], ["y"], dilations=[d, d],
                                                        pads=[d, d, d, d])], [1, 3, 5, 6], {"w": kernel}, 13), \
        "conv2d", lambda x: F.conv2d(x, t(kernel)[:, :, 1:2, 1:2])


def operators(superopt, path):
    check = json.loads(run([superopt, "graph", "check", path, "--json"]))
    return {n["op"] for n in check["nodes"]}


def values(superopt, path, dump):
    run([superopt, "graph", "run", path, "--dump", dump])
    import h5py
    with h5py.File(dump, "r") as f:
        order = [s.decode() if isinstance(s, bytes) else s for s in f["output_order"][()]]
        return np.asarray(f["sources"]["x"]), np.asarray(f["outputs"][order[0]])


def relative(a, b):
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300))


def check_case(superopt, out, name, m, op, reference):
    path = os.path.join(out, f"{name}.onnx")
    onnx.save(m, path)
    ops = operators(superopt, path)
    if op not in ops:
        raise AssertionError(f"imported as {sorted(ops)}, expected {op}")
    if op in ("gelu", "silu", "hardswish") and ops & {"erf", "sigmoid", "hardsigmoid", "ewdiv"}:
        raise AssertionError(f"the pattern was not fused: {sorted(ops)}")
    if op == "linear" and ops & {"matmul", "ewadd"}:
        raise AssertionError(f"the bias was not taken into the linear layer: {sorted(ops)}")
    if name == "matmul_plane_add" and "linear" in ops:
        raise AssertionError(f"a [5,4] bias was taken into a linear layer: {sorted(ops)}")
    x, ours = values(superopt, path, os.path.join(out, f"{name}.h5"))
    with torch.inference_mode():
        theirs = reference(torch.as_tensor(x, dtype=torch.float64) * 4).numpy()
    err = relative(ours, theirs)
    if not err <= BOUND:
        raise AssertionError(f"reference against PyTorch: relative error {err:.3e} > {BOUND:g}")
    require_cpu_check(superopt, path)
    back = os.path.join(out, f"{name}-export.onnx")
    run([superopt, "graph", "export", path, "--out", back])
    onnx.checker.check_model(back)
    _, again = values(superopt, back, os.path.join(out, f"{name}-export.h5"))
    bound = 2.0**-23 if name in ROUND_TRIP_FLOAT32 else BOUND
    if relative(again, ours) > bound:
        raise AssertionError(f"export round trip changed the values by {relative(again, ours):.3e}")
    return err


def main(argv):
    return run_cases("onnx_zoo_ops_test", argv, cases(), check_case, describe=lambda case: f"{case[2]}, ")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
