"""A PyTorch module in, an optimized PyTorch module out: superopt.torch.optimize.

The module is exported to ONNX in memory, loaded, optimized with superopt's proven rules, and
the optimized graph comes back as a torch.nn.Module (superopt.graph_module) whose forward runs it
with PyTorch operators, on the device and in the precision of the original's parameters.
"""
import copy
import io
import json
import warnings

import torch

import superopt
from superopt.graph_module import GraphModule, GraphModuleError
from superopt.module_folds import fold_counted

__all__ = ["optimize", "export_onnx", "OptimizedModule"]


class OptimizedModule(GraphModule):
    """The optimized graph as a module: forward(*inputs) returns what the original returned (one
    tensor, or a tuple for several outputs). Attributes: result (the OptimizeResult), source (the
    generated forward()), input_names, folds ({peephole: how many times it fired}, module_folds.py:
    e.g. linear, layer_norm, attention_projections, attention_scale)."""

    def __init__(self, graph, shapes, dtype, weights, device, result, single_output, layout="dense"):
        graph, shapes, folds = fold_counted(graph, shapes)  # what torch.jit.freeze folds
        super().__init__(graph, shapes, dtype, weights=weights, precompute=True, device=device, layout=layout)
        self.folds = folds
        self.layout = layout
        self.result = result
        self._single_output = single_output

    def forward(self, *inputs):
        outputs = self._forward(self, *inputs)
        return outputs[0] if self._single_output else outputs


def _as_tuple(example_inputs):
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    inputs = tuple(example_inputs)
    if not inputs or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise TypeError("superopt.torch.optimize: example_inputs must be a tensor or a tuple of tensors")
    return inputs


def export_onnx(module, example_inputs, dtype=torch.float32):
    """The module as ONNX bytes (opset 13, on the CPU, in dtype: float32, or float64 to keep
    float64 constants exact), as optimize() exports it: the module in eval mode, batch norms kept
    as operators (TrainingMode.PRESERVE, so that no weight is computed at export), inputs named
    input0, input1, ..."""
    inputs = _as_tuple(example_inputs)
    exported = copy.deepcopy(module).to(dtype).cpu().eval()
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*constant folding.*")  # PRESERVE in eval mode folds nothing learnable
        torch.onnx.export(exported, tuple(t.detach().to(dtype).cpu() for t in inputs), buffer, opset_version=13,
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=True,
                          input_names=[f"input{i}" for i in range(len(inputs))])
    return buffer.getvalue()


def _exact_values(module, onnx_bytes):
    """{(shape, float32 bytes): tensor}: every value the module's parameters and buffers and the ONNX
    model's initializers and Constant nodes hold, in their own precision (the module's first), also
    transposed when a matrix (the importer transposes a constant matrix operand): what a weight of
    the imported graph, which holds float32, was rounded from."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load_from_string(onnx_bytes)
    tensors = [t.detach() for t in module.state_dict().values() if t.is_floating_point()]
    tensors += [torch.from_numpy(numpy_helper.to_array(t).copy()) for t in model.graph.initializer]
    for node in model.graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            tensors.append(torch.from_numpy(numpy_helper.to_array(node.attribute[0].t).copy()))
    index = {}
    for t in tensors:
        if not t.is_floating_point():
            continue
        for c in [t] + ([t.t()] if t.dim() == 2 else []):
            index.setdefault((tuple(c.shape), c.float().cpu().contiguous().numpy().tobytes()), c)
    return index


def _weight_values(module, onnx_bytes, graph):
    """Every weight of the imported graph by name: the value its float32 data was rounded from
    (_exact_values; a scalar's shape may differ), else its float32 data."""
    exact = _exact_values(module, onnx_bytes)
    spec, _, data = graph._handle.module_spec()
    values = {}
    for w in json.loads(spec)["weights"]:
        if w["name"] not in data:
            continue
        held = torch.from_numpy(data[w["name"]])
        key = held.contiguous().numpy().tobytes()
        found = exact.get((tuple(w["shape"]), key))
        if found is None and held.numel() == 1:
            found = next((v.reshape(held.shape) for (shape, k), v in exact.items() if k == key), None)
        values[w["label"]] = found if found is not None else held
    return values


def _blocked_layout_possible(dtype, device):
    return dtype == torch.float32 and torch.device(device).type == "cpu" and torch.backends.mkldnn.is_available()


def _fastest(candidates, inputs, rounds=5):
    """The candidate module with the lowest median time on the inputs, timed interleaved."""
    import statistics
    import time

    times = [[] for _ in candidates]
    with torch.inference_mode():
        for m in candidates:
            m(*inputs)  # the first call allocates
        for _ in range(rounds):
            for t, m in zip(times, candidates):
                start = time.perf_counter()
                m(*inputs)
                t.append(time.perf_counter() - start)
    medians = [statistics.median(t) for t in times]
    return candidates[medians.index(min(medians))]


def optimize(module, example_inputs, rules=None, cost="analytic:h100", time_limit=60.0, layout="auto", **options):
    """Optimizes a torch.nn.Module for inference; returns an OptimizedModule computing the same function.

    module: in eval mode (batch norms use their running statistics); example_inputs: a tensor or
    a tuple of tensors of the shapes the returned module will take (shapes are fixed). rules,
    cost, time_limit and the other keyword options are superopt.optimize's (help(superopt.optimize));
    rules defaults to superopt.cnn_rules(), TASO's and those over biased convolutions (an exported
    convolution carries its bias, which TASO's rules do not know).

    The module is exported to ONNX in memory (export_onnx), loaded, and optimized with its weights
    left symbolic, so that operators on weights alone stay operators: the returned module computes
    them once, when it is made, from the original parameters in their own dtype (float64 stays
    float64) on their device. Its forward runs the optimized graph with PyTorch operators
    (its source: module.source), weights as buffers; module.result is the OptimizeResult (costs,
    rules applied, the numerical check). When the check does not pass, the graph is the input's
    and a warning says so.

    Before forward() is written, the module builder folds what torch.jit.freeze folds (batch
    norms and per-channel adds into their convolution, pads into the op's padding). layout:
    "dense" (PyTorch's default layout), "mkldnn" (float32 on the CPU: convolutions, relu, adds and
    pooling in oneDNN's blocked layout on weights reordered once, as the frozen TorchScript form
    runs them), or "auto" (the default: for a float32 module on the CPU with convolutions both are
    built and timed on example_inputs, and the faster is returned; else dense). module.layout says
    which; module.folds how many times each of the builder's peepholes fired.

    Raises superopt.Error (a ValueError) for what superopt cannot represent (an ONNX operator it
    does not import, names it in one line) and GraphModuleError for an operator without a
    PyTorch version.
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"superopt.torch.optimize: expected a torch.nn.Module, got {type(module).__name__}")
    if module.training:
        raise ValueError("superopt.torch.optimize: the module is in training mode; call module.eval() first "
                         "(the optimized module is for inference)")
    inputs = _as_tuple(example_inputs)
    parameters = list(module.parameters()) + list(module.buffers())
    reference = parameters[0] if parameters else inputs[0]
    dtype = reference.dtype if reference.is_floating_point() else torch.float32
    if layout not in ("auto", "dense", "mkldnn"):
        raise ValueError(f"superopt.torch.optimize: layout must be 'auto', 'dense' or 'mkldnn', got {layout!r}")
    blocked = _blocked_layout_possible(dtype, reference.device)
    if layout == "mkldnn" and not blocked:
        raise ValueError(f"superopt.torch.optimize: layout 'mkldnn' needs a float32 module on the CPU with "
                         f"oneDNN (got {dtype} on {reference.device})")
    onnx_bytes = export_onnx(module, inputs, torch.float64 if dtype == torch.float64 else torch.float32)
    graph = superopt.load(onnx_bytes)
    symbolic = superopt.Graph(graph._handle.without_weight_data())
    result = superopt.optimize(symbolic, rules=rules if rules is not None else superopt.cnn_rules(), cost=cost,
                               time_limit=time_limit, **options)
    if not result.check["passed"]:
        warnings.warn(f"superopt.torch.optimize: the numerical check did not pass ({result.check['how']}; "
                      f"cut short: {result.check['cut_short']}): the module runs the input graph", stacklevel=2)
    spec, shapes, _ = (json.loads(t) if isinstance(t, str) else t for t in result.graph._handle.module_spec())
    values = _weight_values(module, onnx_bytes, graph)
    missing = [w["label"] for w in spec["weights"] if w["label"] not in values]
    if missing:
        raise GraphModuleError(f"weight '{missing[0]}' of the optimized graph has no values")
    weights = {w["name"]: values[w["label"]] for w in spec["weights"]}
    # "auto" times the blocked layout only where it has convolutions to run: without them both forms
    # are the same code, and the timing would pick one by noise (and report it as the layout)
    convolutions = any(n["op"] == "conv2d" for n in spec.get("nodes", []))
    layouts = (["dense", "mkldnn"] if layout == "auto" and blocked and convolutions
               else ["mkldnn" if layout == "mkldnn" else "dense"])
    single = _single_output(module, inputs)
    shapes = {k: [tuple(s) for s in v] for k, v in shapes.items()}
    candidates = [OptimizedModule(spec, shapes, dtype, weights, reference.device, result, single, form).eval()
                  for form in layouts]
    return candidates[0] if len(candidates) == 1 else _fastest(candidates, inputs)


def _single_output(module, inputs):
    with torch.no_grad():
        out = module(*inputs)
    return isinstance(out, torch.Tensor)
