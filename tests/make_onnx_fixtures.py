#!/usr/bin/env python3
"""Writes the small ONNX files the import tests read: tests/data/onnx/tiny.onnx
(a valid model exercising the mapping: explicit pads, bias, ceil-mode and
count_include_pad=0 pooling, a folded Shape->Gather->Concat->Reshape chain,
Gemm with transB, nodes out of order) and tests/data/malformed/*.onnx (one
problem each). Deterministic; run with /usr/bin/python3 (python3-onnx) to
regenerate: python3 tests/make_onnx_fixtures.py"""
import os
import random

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
VALID = os.path.join(HERE, "data", "onnx")
BAD = os.path.join(HERE, "data", "malformed")


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def tiny_model():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    fc = rng.standard_normal((5, 16)).astype(np.float32)
    fc_b = rng.standard_normal(5).astype(np.float32)
    nodes = [
        # Listed last-first: the importer must sort them.
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
        helper.make_node("Gemm", ["flat", "fc", "fc_b"], ["logits"], transB=1, alpha=0.5),
        helper.make_node("Reshape", ["pooled", "new_shape"], ["flat"]),
        helper.make_node("Concat", ["batch", "minus_one"], ["new_shape"], axis=0),
        helper.make_node("Unsqueeze", ["batch0", "zero"], ["batch"]),
        helper.make_node("Gather", ["shape", "zero_scalar"], ["batch0"], axis=0),
        helper.make_node("Shape", ["pooled"], ["shape"]),
        helper.make_node("AveragePool", ["maxed"], ["pooled"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], count_include_pad=0),
        helper.make_node("MaxPool", ["relu"], ["maxed"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        helper.make_node("Relu", ["conv"], ["relu"]),
        helper.make_node("Conv", ["x", "w_alias", "b"], ["conv"], pads=[2, 1, 0, 1], strides=[1, 1]),
        helper.make_node("Identity", ["w"], ["w_alias"]),
    ]
    inits = [tensor("w", w), tensor("b", b), tensor("fc", fc), tensor("fc_b", fc_b),
             tensor("zero", np.array([0], np.int64)), tensor("zero_scalar", np.array(0, np.int64)),
             tensor("minus_one", np.array([-1], np.int64))]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 9, 8])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 5])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def relu_model(opset=13, dims=(1, 3), nodes=None, inits=()):
    nodes = nodes or [helper.make_node("Relu", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def save(model, folder, name):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(model.SerializeToString())


def main():
    os.makedirs(VALID, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    tiny = tiny_model()
    in_order = onnx.ModelProto()
    in_order.CopyFrom(tiny)
    in_order.graph.ClearField("node")
    in_order.graph.node.extend(reversed(tiny.graph.node))
    onnx.checker.check_model(in_order)  # the checker wants sorted nodes; ours sorts them
    save(tiny, VALID, "tiny.onnx")
    data = tiny.SerializeToString()
    with open(os.path.join(BAD, "onnx_truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    random.seed(14)
    with open(os.path.join(BAD, "onnx_random_bytes.onnx"), "wb") as f:
        f.write(bytes(random.randrange(256) for _ in range(512)))
    save(relu_model(nodes=[helper.make_node("Relu", ["x", ], ["a"]), helper.make_node("Add", ["a", "c"], ["b"]),
                           helper.make_node("Relu", ["b"], ["c"]), helper.make_node("Relu", ["c"], ["y"])]),
         BAD, "onnx_cycle.onnx")
    save(relu_model(nodes=[helper.make_node("Hardmax", ["x"], ["y"], name="hm")]), BAD, "onnx_unsupported_op.onnx")
    save(relu_model(dims=("batch", 3)), BAD, "onnx_dynamic_input.onnx")
    short = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.zeros(9, np.float32).tobytes(), raw=True)
    short.raw_data = np.zeros(5, np.float32).tobytes()  # 5 values for a 3x3 shape
    save(relu_model(nodes=[helper.make_node("MatMul", ["x", "w"], ["y"])], inits=[short]), BAD,
         "onnx_initializer_size.onnx")
    external = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.zeros(9, np.float32).tobytes(), raw=True)
    external.ClearField("raw_data")
    external.data_location = TensorProto.EXTERNAL
    entry = external.external_data.add()
    entry.key, entry.value = "location", "onnx_missing_weights.bin"
    save(relu_model(nodes=[helper.make_node("MatMul", ["x", "w"], ["y"])], inits=[external]), BAD,
         "onnx_missing_external_data.onnx")
    # A shape of 4 TB over a 36-byte file: refused from the file's size, not
    # allocated first (it ended in std::bad_alloc, or took the machine's memory).
    huge = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.zeros(9, np.float32).tobytes(), raw=True)
    huge.ClearField("raw_data")
    huge.ClearField("dims")
    huge.dims.extend([1000000, 1000000])
    huge.data_location = TensorProto.EXTERNAL
    entry = huge.external_data.add()
    entry.key, entry.value = "location", "onnx_huge_weights.bin"
    with open(os.path.join(BAD, "onnx_huge_weights.bin"), "wb") as f:
        f.write(np.zeros(9, np.float32).tobytes())
    save(relu_model(dims=(1, 1000000), nodes=[helper.make_node("MatMul", ["x", "w"], ["y"])], inits=[huge]), BAD,
         "onnx_huge_external_data.onnx")
    save(relu_model(opset=10), BAD, "onnx_opset10.onnx")
    invalid_models()
    out_of_range_models()


def invalid_models():
    """What ONNX calls invalid and the import accepted (issue 37, item 6)."""
    w = np.ones((3, 3), np.float32)
    save(relu_model(nodes=[helper.make_node("Relu", ["x"], ["y"], name="relu"),
                           helper.make_node("Sigmoid", ["x"], ["y"], name="sig")]), BAD, "onnx_duplicate_output.onnx")
    save(relu_model(nodes=[helper.make_node("MatMul", ["x", "w"], ["y"])], inits=[tensor("w", w), tensor("w", -w)]),
         BAD, "onnx_duplicate_initializer.onnx")
    twice = relu_model()
    twice.graph.input.extend([twice.graph.input[0]])
    save(twice, BAD, "onnx_duplicate_input.onnx")
    save(relu_model(inits=[tensor("x", np.ones((1, 4), np.float32))]), BAD, "onnx_shadowed_input.onnx")
    for name, elem, dims in [("shape", TensorProto.FLOAT, [1, 4]), ("type", TensorProto.INT64, [1, 3])]:
        model = relu_model()
        model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", elem, dims))
        save(model, BAD, "onnx_output_%s.onnx" % name)
    # An intermediate value declared with another shape than its node gives:
    # strict shape inference.
    model = relu_model(nodes=[helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["a"], ["y"])])
    model.graph.value_info.extend([helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 4])])
    save(model, BAD, "onnx_value_info_shape.onnx")
    # A rank-3 input to a Conv with a rank-4 kernel: libonnx 1.12's shape
    # inference crashes on it (convPoolShapeInference), so it runs only after
    # our import, which refuses this (found by onnx_fuzz).
    x3 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 10])
    graph = helper.make_graph([helper.make_node("Conv", ["x", "k"], ["y"])], "conv_rank", [x3],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [tensor("k", np.ones((4, 1, 3, 3), np.float32))])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), BAD, "onnx_conv_rank_mismatch.onnx")
    # An attribute Relu does not have: onnx::checker.
    save(relu_model(nodes=[helper.make_node("Relu", ["x"], ["y"], alpha=0.5)]), BAD, "onnx_unknown_attribute.onnx")
    # An external data location with a NUL after a real file's name: the system
    # reads the name up to the NUL (the weights file is read), the message must
    # show all of it on one line.
    nul = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], w.tobytes(), raw=True)
    nul.ClearField("raw_data")
    nul.data_location = TensorProto.EXTERNAL
    entry = nul.external_data.add()
    entry.key, entry.value = "location", "onnx_huge_weights.bin\0\x1b[31mred"
    save(relu_model(nodes=[helper.make_node("MatMul", ["x", "w"], ["y"])], inits=[nul]), BAD,
         "onnx_external_nul.onnx")


def out_of_range_models():
    """64-bit values read into 32-bit fields (issue 37, item 5): refused, not cut."""
    kernel = tensor("k", np.ones((4, 1, 3, 3), np.float32))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    cases = [("conv_pads_2p40", "Conv", dict(pads=[2 ** 40] * 4)),
             ("conv_pads_2p32", "Conv", dict(pads=[2 ** 32 + 1] * 4)),
             ("conv_strides_2p32", "Conv", dict(strides=[2 ** 32 + 1] * 2)),
             ("conv_dilations_2p32", "Conv", dict(dilations=[2 ** 32 + 1] * 2)),
             ("pool_kernel_2p32", "MaxPool", dict(kernel_shape=[2 ** 32 + 2] * 2))]
    for name, op, attrs in cases:
        inputs = ["x", "k"] if op == "Conv" else ["x"]
        graph = helper.make_graph([helper.make_node(op, inputs, ["y"], **attrs)], name, [x], [y],
                                  [kernel] if op == "Conv" else [])
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), BAD, "onnx_%s.onnx" % name)
    save(relu_model(dims=(1, 2 ** 32 + 4)), BAD, "onnx_input_dim_2p32.onnx")
    pads = tensor("pads", np.array([0, 0, 2 ** 32 + 1, 0, 0, 0, 0, 0], np.int64))  # Pad's input: read as 1
    graph = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"])], "pad", [x], [y], [pads])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), BAD, "onnx_pad_2p32.onnx")
    # Range folded at import: 2^40 values were allocated one by one; a NaN limit
    # converted to an integer count (undefined behaviour).
    for name, dtype, limit in [("range_2p40", np.int64, 2 ** 40), ("range_nan", np.float32, np.nan)]:
        inits = [tensor("start", np.array(0, dtype)), tensor("limit", np.array(limit, dtype)),
                 tensor("delta", np.array(1, dtype))]
        nodes = [helper.make_node("Range", ["start", "limit", "delta"], ["r"]), helper.make_node("Relu", ["x"], ["y"])]
        save(relu_model(nodes=nodes, inits=inits), BAD, "onnx_%s.onnx" % name)


if __name__ == "__main__":
    main()
