#!/usr/bin/env python3
# PyTorch versions of superopt's graphs: one torch op per graph node, built from the same graph
# JSON our runtime reads, timed in eager mode and under torch.compile, or checked against a dump.
"""PyTorch versions of superopt's graphs.

  torch_models.py MODEL [--device cuda|cpu] [--mode eager|compile|script|both] [--repeat N] [--warmup N] [--json]
  torch_models.py MODEL --check-against DUMP.h5     (DUMP from `superopt graph run MODEL --dump DUMP.h5`)

MODEL is builtin:NAME or a graph file. The superopt binary ($SUPEROPT, --superopt, build/superopt
or `superopt` on PATH) exports the graph and gives every tensor's shape (split's part sizes
come from TASO's split trees, which only it tracks). FP32 without TF32, batch as in the graph,
under torch.inference_mode(); GPU times from CUDA events, CPU times from perf_counter.
--mode script is TorchScript: torch.jit.trace, then torch.jit.freeze and
torch.jit.optimize_for_inference (PyTorch 1.13's inference path on the CPU: it folds
batch norms into convolutions and runs convolutions through oneDNN in its formats).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_blas  # noqa: E402
import torch.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit 2."""


# ---------------------------------------------------------------- the graph

def find_superopt(explicit):
    for candidate in (explicit, os.environ.get("SUPEROPT"), os.path.join(REPO, "build", "superopt"),
                      shutil.which("superopt")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("cannot find the superopt binary (give --superopt BIN, set $SUPEROPT, or build build/superopt)")


def superopt_output(binary, args):
    result = subprocess.run([binary] + args, capture_output=True, text=True)
    if result.returncode != 0:
        raise UsageError(f"superopt {' '.join(args)} failed: {result.stderr.strip() or result.stdout.strip()}")
    return result.stdout


def load_graph(model, binary):
    """The graph as `superopt graph export` writes it (every parameter explicit, every node named),
    and each node's output shapes from `superopt graph check --json`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        superopt_output(binary, ["graph", "export", model, "--out", path])
        with open(path) as f:
            graph = json.load(f)
        report = json.loads(superopt_output(binary, ["graph", "check", path, "--json"]))
    shapes = {n["name"]: [tuple(s) for s in n["outputs"]] for n in report["nodes"]}
    return graph, shapes


def split_ref(ref):
    name, _, port = ref.partition(":")
    return name, int(port or 0)


# ---------------------------------------------------------------- constants (TASO Table 1)

def make_constant(op, shape, dtype):
    if op == "C_pool":
        return torch.full(shape, 1.0 / (shape[2] * shape[3]), dtype=dtype)
    if op == "I_ewmul":
        return torch.ones(shape, dtype=dtype)
    if op == "I_matmul":
        n = shape[-1]
        return torch.eye(n, dtype=dtype).expand(shape).contiguous()
    if op == "I_conv":
        outs, per_group, kh, kw = shape
        t = torch.zeros(shape, dtype=dtype)
        for o in range(outs):
            t[o, o % per_group, kh // 2, kw // 2] = 1
        return t
    raise UsageError(f"{op} is not a constant")


# ---------------------------------------------------------------- padding as our registry defines it

def same_padding(size, kernel, stride):
    """TensorFlow SAME: out = ceil(in / stride); the odd extra padding goes after."""
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def paddings(in_shape, kernel, stride, padding):
    if padding == "valid":
        return (0, 0), (0, 0)
    return same_padding(in_shape[2], kernel[0], stride[0]), same_padding(in_shape[3], kernel[1], stride[1])


def padding_args(pads, kernel, fill):
    """A symmetric padding the op can take itself (pooling only up to half the window),
    or an explicit F.pad; returns (F.pad's arguments or None, the op's padding argument)."""
    (top, bottom), (left, right) = pads
    if top == bottom and left == right and top <= kernel[0] // 2 and left <= kernel[1] // 2:
        return None, f"({top}, {left})"
    return f"({left}, {right}, {top}, {bottom}), value={fill}", "0"


# ---------------------------------------------------------------- code generation

class Codegen:
    """Writes the graph as one straight-line forward(), so that eager mode pays no interpreter
    overhead and torch.compile sees plain torch calls."""

    def __init__(self, graph, shapes):
        self.graph, self.shapes = graph, shapes
        self.lines, self.var, self.buffers = [], {}, []  # buffers: (attribute, kind, name, op, shape)
        self.temporaries = 0

    def ref(self, r):
        name, port = split_ref(r)
        return self.var[(name, port)]

    def shape_of(self, r):
        name, port = split_ref(r)
        return self.shapes[name][port]

    def emit(self, node):
        name, op, params = node["name"], node["op"], node.get("params", {})
        ins = [self.ref(r) for r in node.get("inputs", [])]
        out = f"v{len(self.var)}"
        self.var[(name, 0)] = out
        expr = self.expression(op, params, node, ins, out)
        if expr is not None:
            self.lines.append(f"{out} = {expr}  # {name}: {op}")

    def expression(self, op, params, node, ins, out):
        simple = {"ewadd": "{0} + {1}", "ewmul": "{0} * {1}", "smul": "{0} * {1}.reshape(())",
                  "matmul": "torch.matmul({0}, {1})", "relu": "torch.relu({0})",
                  "sigmoid": "torch.sigmoid({0})", "tanh": "torch.tanh({0})"}
        if op in simple:
            return simple[op].format(*ins)
        if op in ("C_pool", "I_conv", "I_matmul", "I_ewmul"):
            return self.buffer("constant", node["name"], op, tuple(params["shape"]))
        if op == "transpose":
            rank = len(self.shape_of(node["inputs"][0]))
            perm = params.get("perm", list(range(rank - 1, -1, -1)))
            return f"{ins[0]}.permute({', '.join(map(str, perm))})"
        if op == "reshape":
            return f"{ins[0]}.reshape({tuple(params['shape'])})"
        if op == "softmax":
            return f"torch.softmax({ins[0]}, dim={params.get('axis', -1)})"
        if op == "concat":
            return f"torch.cat([{', '.join(ins)}], dim={params['axis']})"
        if op == "split":
            name, sizes = node["name"], [s[params["axis"]] for s in self.shapes[node["name"]]]
            self.var[(name, 1)] = f"v{len(self.var)}"
            self.lines.append(f"{out}, {self.var[(name, 1)]} = torch.split({ins[0]}, {sizes}, "
                              f"dim={params['axis']})  # {name}: split")
            return None
        if op == "batchnorm":
            x, scale, bias, mean, var = ins
            eps = float(torch.tensor(params.get("epsilon", 1e-5), dtype=torch.float32))
            return f"F.batch_norm({x}, {mean}, {var}, {scale}, {bias}, False, 0.0, {eps!r})"
        if op == "enlarge":
            kh, kw = self.shape_of(node["inputs"][0])[2:]
            big_h, big_w = params["kernel"]
            top, left = (big_h - kh) // 2, (big_w - kw) // 2
            return f"F.pad({ins[0]}, ({left}, {big_w - kw - left}, {top}, {big_h - kh - top}))"
        if op == "conv2d":
            return self.conv2d(node, params, ins)
        imported = self.imported_op(op, params, ins)
        if imported is not None:
            return imported
        if op in ("pool_avg", "pool_max"):
            return self.pool(op, node, params, ins)
        raise UsageError(f"node {node['name']}: operator {op} has no PyTorch version")

    @staticmethod
    def imported_op(op, params, ins):
        """The operators only imported (ONNX) models use; None for any other."""
        def bound(v):
            return None if v in ("inf", "-inf") else float(v)
        if op in ("ewsub", "ewdiv"):
            return f"{ins[0]} {'-' if op == 'ewsub' else '/'} {ins[1]}"
        if op in ("sqrt", "erf"):
            return f"torch.{op}({ins[0]})"
        if op == "clip":
            lo, hi = params.get("limits", ["-inf", "inf"])
            return f"torch.clamp({ins[0]}, min={bound(lo)!r}, max={bound(hi)!r})"
        if op == "pad":
            top, bottom, left, right = params.get("pads", [0, 0, 0, 0])
            value = params.get("value", 0)
            value = f"float('{value}')" if isinstance(value, str) else repr(float(value))
            return f"F.pad({ins[0]}, ({left}, {right}, {top}, {bottom}), value={value})"
        if op == "slice":
            begin, end = params["range"]
            return f"{ins[0]}.narrow({params['axis']}, {begin}, {end - begin})"
        if op == "reduce_mean":
            return f"{ins[0]}.mean(dim={tuple(params['axes'])}, keepdim=True)"
        return None

    def buffer(self, kind, name, op, shape):
        attr = f"b{len(self.buffers)}"
        self.buffers.append((attr, kind, name, op, shape))
        return f"self.{attr}"

    def padded(self, x, pads, kernel, fill):
        pad, arg = padding_args(pads, kernel, fill)
        if pad is None:
            return x, arg
        padded = self.temporary()
        self.lines.append(f"{padded} = F.pad({x}, {pad})")
        return padded, arg

    def temporary(self):
        self.temporaries += 1
        return f"t{self.temporaries}"

    def conv2d(self, node, params, ins):
        x_shape, w_shape = self.shape_of(node["inputs"][0]), self.shape_of(node["inputs"][1])
        stride = tuple(params.get("stride", [1, 1]))
        groups = x_shape[1] // w_shape[1]
        pads = paddings(x_shape, w_shape[2:], stride, params.get("padding", "same"))
        # A convolution pads with zeros; an asymmetric SAME padding goes through F.pad.
        (top, bottom), (left, right) = pads
        x, pad = ins[0], f"({top}, {left})"
        if top != bottom or left != right:
            x, pad = self.temporary(), "0"
            self.lines.append(f"{x} = F.pad({ins[0]}, ({left}, {right}, {top}, {bottom}))")
        expr = f"F.conv2d({x}, {ins[1]}, None, {stride}, {pad}, 1, {groups})"
        return f"torch.relu({expr})" if params.get("activation") == "relu" else expr

    def pool(self, op, node, params, ins):
        x_shape = self.shape_of(node["inputs"][0])
        kernel, stride = tuple(params["kernel"]), tuple(params.get("stride", [1, 1]))
        pads = paddings(x_shape, kernel, stride, params.get("padding", "same"))
        if op == "pool_avg":  # zeros count and the divisor is the whole window (cuDNN's INCLUDE_PADDING)
            x, pad = self.padded(ins[0], pads, kernel, "0.0")
            return f"F.avg_pool2d({x}, {kernel}, {stride}, {pad}, False, True)"
        x, pad = self.padded(ins[0], pads, kernel, "float('-inf')")  # padded positions never win
        return f"F.max_pool2d({x}, {kernel}, {stride}, {pad})"


def topological(nodes):
    by_name = {n["name"]: n for n in nodes}
    done, order = set(), []

    def visit(name):
        stack = [(name, False)]
        while stack:
            current, expanded = stack.pop()
            if current in done or current not in by_name:
                continue
            if expanded:
                done.add(current)
                order.append(by_name[current])
                continue
            stack.append((current, True))
            for r in by_name[current].get("inputs", []):
                stack.append((split_ref(r)[0], False))

    for n in nodes:
        visit(n["name"])
    return order


def generate(graph, shapes):
    gen = Codegen(graph, shapes)
    for i, source in enumerate(graph.get("inputs", [])):
        gen.var[(source["name"], 0)] = f"x{i}"
    for w in graph.get("weights", []):
        gen.var[(w["name"], 0)] = gen.buffer("weight", w["name"], "weight", tuple(w["shape"]))
    for node in topological(graph.get("nodes", [])):
        gen.emit(node)
    args = ", ".join(f"x{i}" for i in range(len(graph.get("inputs", []))))
    outputs = ", ".join(gen.ref(r) for r in graph["outputs"])
    body = "\n".join("    " + line for line in gen.lines)
    source = f"def forward(self, {args}):\n{body}\n    return ({outputs},)\n"
    return source, gen.buffers


# ---------------------------------------------------------------- the module

class GraphModule(torch.nn.Module):
    """The graph's weights and constants as buffers, its nodes as generated straight-line code."""

    def __init__(self, graph, shapes, dtype, weights=None, seed=1):
        super().__init__()
        self.source, buffers = generate(graph, shapes)
        self.input_names = [s["name"] for s in graph.get("inputs", [])]
        self.input_shapes = [tuple(s["shape"]) for s in graph.get("inputs", [])]
        self.weight_attrs = {name: attr for attr, kind, name, _, _ in buffers if kind == "weight"}  # for ONNX
        data = {w["name"]: w.get("data") for w in graph.get("weights", [])}
        generator = torch.Generator().manual_seed(seed)
        for attr, kind, name, op, shape in buffers:
            if kind == "constant":
                value = make_constant(op, shape, dtype)
            elif weights is not None:
                value = torch.as_tensor(weights[name], dtype=dtype).reshape(shape)
            elif data.get(name) is not None:
                value = torch.tensor(data[name], dtype=dtype).reshape(shape)
            else:  # uniform in [-1, 1] like our evaluator, scaled so that deep models stay finite
                fan_in = max(1, math.prod(shape[1:]) if len(shape) > 1 else 1)
                value = (torch.rand(shape, generator=generator, dtype=dtype) * 2 - 1) / math.sqrt(fan_in)
            self.register_buffer(attr, value)
        namespace = {"torch": torch, "F": F}
        exec(compile(self.source, f"<graph {graph.get('name', '')}>", "exec"), namespace)
        self._forward = namespace["forward"]

    def forward(self, *inputs):
        return self._forward(self, *inputs)

    def random_inputs(self, dtype, device, seed=2):
        generator = torch.Generator().manual_seed(seed)
        return [(torch.rand(s, generator=generator, dtype=dtype) * 2 - 1).to(device) for s in self.input_shapes]


# ---------------------------------------------------------------- check against superopt's reference

def check_against(graph, shapes, dump_path):
    """Runs the module in float64 on the CPU with the dump's inputs and weights; returns
    (rows, worst): per output its shape and max |torch - ours| / max |ours|."""
    import h5py
    import numpy as np

    with h5py.File(dump_path, "r") as f:
        if f.attrs.get("format") != "superopt-graph-dump":
            raise UsageError(f"{dump_path}: not a superopt graph dump (superopt graph run MODEL --dump FILE)")
        sources = {name: np.asarray(f["sources"][name]) for name in f["sources"]}
        order = [s.decode() if isinstance(s, bytes) else s for s in f["output_order"][()]]
        expected = [np.asarray(f["outputs"][name]) for name in order]
    missing = [s["name"] for s in graph.get("inputs", []) + graph.get("weights", []) if s["name"] not in sources]
    if missing:
        raise UsageError(f"{dump_path}: no values for {', '.join(missing[:5])} (a dump of another model?)")
    module = GraphModule(graph, shapes, torch.float64, weights=sources)
    inputs = [torch.as_tensor(sources[name], dtype=torch.float64) for name in module.input_names]
    with torch.inference_mode():
        got = module(*inputs)
    if len(got) != len(expected):
        raise UsageError(f"{dump_path}: {len(expected)} outputs, the graph has {len(got)}")
    rows, worst = [], 0.0
    for name, ours, theirs in zip(order, expected, got):
        theirs = theirs.numpy()
        if theirs.shape != ours.shape:
            rows.append((name, ours.shape, math.inf))
            worst = math.inf
            continue
        scale = float(np.max(np.abs(ours))) if ours.size else 0.0
        diff = float(np.max(np.abs(theirs - ours))) if ours.size else 0.0
        error = diff / scale if scale > 0 else diff
        if not math.isfinite(diff):
            error = math.inf
        rows.append((name, ours.shape, error))
        worst = max(worst, error)
    return rows, worst


# ---------------------------------------------------------------- timing

def percentile(sorted_values, q):
    position = (len(sorted_values) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def time_runs(fn, inputs, device, warmup, repeat):
    """Per-run milliseconds: CUDA events around each run on a GPU, perf_counter on the CPU."""
    for _ in range(warmup):
        fn(*inputs)
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(repeat)]
        for start, end in events:
            start.record()
            fn(*inputs)
            end.record()
        torch.cuda.synchronize()
        times = [start.elapsed_time(end) for start, end in events]
    else:
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(*inputs)
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return {"median_ms": percentile(times, 0.5), "p10_ms": percentile(times, 0.1),
            "p90_ms": percentile(times, 0.9), "repeat": repeat, "warmup": warmup}


def configure_fp32(device):
    """FP32 throughout: TF32 off for matmuls and convolutions (PyTorch 2.9's fp32_precision
    settings where they exist: it deprecates allow_tf32 and warns against mixing the two); cuDNN
    picks its fastest algorithms. Returns how TF32 was turned off."""
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    if hasattr(torch.backends, "fp32_precision"):
        torch.backends.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        return "fp32_precision = 'ieee' (matmul, cuDNN conv)"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    return "allow_tf32 = False (cuda.matmul, cudnn)"


def benchmark(graph, shapes, args):
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device visible to PyTorch (use --device cpu)")
    tf32_setting = configure_fp32(device)
    module = GraphModule(graph, shapes, torch.float32).to(device).eval()
    inputs = module.random_inputs(torch.float32, device)
    results, skipped = [], None
    modes = ["eager", "compile"] if args.mode == "both" else [args.mode]
    no_compile = f"PyTorch {torch.__version__} has no torch.compile"
    if "compile" in modes and not hasattr(torch, "compile"):
        if args.mode == "compile":
            raise UsageError(f"--mode compile: {no_compile}")
        modes.remove("compile")  # --mode both on PyTorch 1: eager only, and say why
        skipped = {"model": graph.get("name", ""), "mode": "compile", "unavailable": no_compile}
    with torch.inference_mode():
        for mode in modes:
            fn, compile_s = module, None
            if mode == "script":
                t0 = time.perf_counter()
                traced = torch.jit.trace(module, tuple(inputs), check_trace=False)
                fn = torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
                fn(*inputs)  # the first calls specialise the graph
                compile_s = time.perf_counter() - t0
            if mode == "compile":
                torch._dynamo.reset()
                fn = torch.compile(module)
                t0 = time.perf_counter()
                fn(*inputs)  # the first call compiles
                if device.type == "cuda":
                    torch.cuda.synchronize()
                compile_s = time.perf_counter() - t0
            r = time_runs(fn, inputs, device, args.warmup, args.repeat)
            r.update({"model": graph.get("name", ""), "mode": mode, "compile_s": compile_s, "tf32_off": tf32_setting})
            results.append(r)
    return results + ([skipped] if skipped else [])


def machine(device):
    info = {"torch": torch.__version__, "device": str(device), "dtype": "float32", "tf32": False,
            "cudnn_benchmark": device.type == "cuda", "threads": torch.get_num_threads()}
    info.update(torch_blas.blas_info(torch))
    if device.type == "cuda" and torch.cuda.is_available():
        info["device_name"] = torch.cuda.get_device_name(device)
        info["cuda"] = torch.version.cuda
        info["cudnn"] = torch.backends.cudnn.version()
    return info


# ---------------------------------------------------------------- command line

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="builtin:NAME or a graph file (JSON)")
    p.add_argument("--superopt", help="the superopt binary (default: $SUPEROPT, build/superopt, PATH)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", help="cuda or cpu")
    p.add_argument("--mode", default="both", choices=["eager", "compile", "script", "both"])
    p.add_argument("--repeat", type=int, default=100, help="timed runs (default 100)")
    p.add_argument("--warmup", type=int, default=10, help="untimed runs first (default 10)")
    p.add_argument("--threads", type=int, help="CPU threads for PyTorch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--check-against", metavar="DUMP.h5",
                   help="compare every output with `superopt graph run MODEL --dump DUMP.h5` (float64, CPU)")
    p.add_argument("--tolerance", type=float, default=1e-9, help="largest relative error for --check-against")
    p.add_argument("--print-code", action="store_true", help="print the generated forward() and stop")
    args = p.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        raise UsageError("--repeat must be at least 1 and --warmup at least 0")
    return args


def main(argv):
    args = parse_args(argv)
    limiter = torch_blas.limit_threads(torch, args.threads) if args.threads else None  # noqa: F841 - kept alive
    graph, shapes = load_graph(args.model, find_superopt(args.superopt))
    if args.print_code:
        print(generate(graph, shapes)[0])
        return 0
    if args.check_against:
        rows, worst = check_against(graph, shapes, args.check_against)
        passed = worst <= args.tolerance
        if args.json:
            print(json.dumps({"model": graph.get("name", ""), "passed": passed, "worst_relative_error": worst,
                              "outputs": [{"name": n, "shape": list(s), "relative_error": e} for n, s, e in rows]}))
        else:
            for name, shape, error in rows:
                print(f"{name:30s} {'x'.join(map(str, shape)) or 'scalar':>16s}  relative error {error:.3e}")
            print(f"{graph.get('name', '')}: {len(rows)} outputs, worst relative error {worst:.3e} "
                  f"(tolerance {args.tolerance:g}): {'PASS' if passed else 'FAIL'}")
        return 0 if passed else 1
    results = benchmark(graph, shapes, args)
    info = machine(torch.device(args.device))
    if args.json:
        print(json.dumps({"machine": info, "results": results}))
        return 0
    print(f"PyTorch {info['torch']} on {info.get('device_name', info['device'])}, FP32, TF32 off, "
          f"batch as in the graph, inference_mode")
    print(torch_blas.blas_text(info))
    for r in results:
        if "unavailable" in r:
            print(f"{r['model']:16s} {r['mode']:8s} unavailable: {r['unavailable']}")
            continue
        compile_note = f", compiled in {r['compile_s']:.1f} s" if r["compile_s"] is not None else ""
        print(f"{r['model']:16s} {r['mode']:8s} median {r['median_ms']:9.3f} ms  p10 {r['p10_ms']:9.3f}  "
              f"p90 {r['p90_ms']:9.3f}  ({r['repeat']} runs{compile_note})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"torch_models.py: {e}", file=sys.stderr)
        sys.exit(2)
