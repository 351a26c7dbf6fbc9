"""A superopt graph as a torch.nn.Module: one PyTorch operator a graph node, written as one
straight-line forward() (so eager mode pays no interpreter overhead and torch.compile or
torch.jit.trace see plain torch calls), with the graph's weights and TASO's constants as buffers.

superopt.torch builds the module an optimized graph runs as from this; scripts/bench/
torch_models.py builds PyTorch versions of superopt's graphs with it. It needs only torch: a graph
arrives as a dict in superopt's graph JSON layout and each node's output shapes.
"""
import math
import re

import torch
import torch.nn.functional as F


# An element-wise activation, the operator or a convolution's fused one (its "activation"
# parameter), as PyTorch writes it.
ACTIVATIONS = {"none": "{0}", "relu": "torch.relu({0})", "sigmoid": "torch.sigmoid({0})", "silu": "F.silu({0})",
               "hardswish": "F.hardswish({0})", "gelu": "F.gelu({0})", "relu6": "F.relu6({0})"}


# The same, applied in place: for an expression whose value is a new tensor that nothing else
# holds (a convolution's output), this saves a tensor and a pass over memory (what the frozen
# TorchScript form does with its relu_). gelu has no in-place form.
IN_PLACE_ACTIVATIONS = {**ACTIVATIONS, "relu": "torch.relu_({0})", "sigmoid": "torch.sigmoid_({0})",
                        "silu": "F.silu({0}, True)", "hardswish": "F.hardswish({0}, True)",
                        "relu6": "F.relu6({0}, True)"}


def activated(expr, params):
    """expr, a new tensor (an operator's output), through the node's activation parameter, in place."""
    return IN_PLACE_ACTIVATIONS[params.get("activation", "none")].format(expr)


class GraphModuleError(ValueError):
    """A graph the module cannot represent (an operator without a PyTorch version)."""


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
    raise GraphModuleError(f"{op} is not a constant")


# ---------------------------------------------------------------- padding as our registry defines it

def same_padding(size, kernel, stride):
    """TensorFlow SAME: out = ceil(in / stride); the odd extra padding goes after."""
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def paddings(in_shape, kernel, stride, padding, pads=None):
    """((top, bottom), (left, right)): explicit pads [top, bottom, left, right] (module_folds), else
    the padding kind's."""
    if pads is not None:
        return (pads[0], pads[1]), (pads[2], pads[3])
    if padding == "valid":
        return (0, 0), (0, 0)
    return same_padding(in_shape[2], kernel[0], stride[0]), same_padding(in_shape[3], kernel[1], stride[1])


def symmetric(size, kernel, stride, before, after):
    """A padding of `before` on both sides giving the same windows as (before, after), or None:
    the windows start at the same places, and with as many of them none reads past the end."""
    count = (size + before + after - kernel) // stride + 1
    if after <= before and (size + 2 * before - kernel) // stride + 1 == count:
        return before
    return None


def padding_args(pads, kernel, fill, in_shape=None, stride=None):
    """A symmetric padding the op can take itself (pooling only up to half the window; an
    asymmetric one that gives the same windows counts, given the input's shape and the stride),
    or an explicit F.pad; returns (F.pad's arguments or None, the op's padding argument)."""
    (top, bottom), (left, right) = pads
    if in_shape is not None:
        h = symmetric(in_shape[2], kernel[0], stride[0], top, bottom)
        w = symmetric(in_shape[3], kernel[1], stride[1], left, right)
        if h is not None and w is not None:
            bottom, right = h, w
    if top == bottom and left == right and (fill == "0" or (top <= kernel[0] // 2 and left <= kernel[1] // 2)):
        return None, f"({top}, {left})"
    return f"({left}, {right}, {top}, {bottom}), value={fill}", "0"


def epsilon(params):
    """A batch norm's epsilon as ONNX holds it (float32)."""
    return float(torch.tensor(params.get("epsilon", 1e-5), dtype=torch.float32))


# ---------------------------------------------------------------- code generation

class Codegen:
    """Writes the graph as one straight-line forward(), so that eager mode pays no interpreter
    overhead and torch.compile sees plain torch calls."""

    def __init__(self, graph, shapes, fixed=frozenset()):
        self.graph, self.shapes = graph, shapes
        self.lines, self.var, self.buffers = [], {}, []  # buffers: (attribute, kind, name, op, shape)
        self.temporaries = 0
        # Weight-only operators (fixed): written into precompute() instead, run once when the
        # module is made; what forward() reads of them becomes a buffer (computed: var -> attribute).
        self.fixed, self.pre_lines, self.computed, self.in_fixed = fixed, [], {}, False
        self.scalars = []  # (attribute, buffer): layer_norm's eps
        self.uses, self.made_by = {}, {n["name"]: n["op"] for n in graph.get("nodes", [])}
        self.inputs_of = {n["name"]: n.get("inputs", []) for n in graph.get("nodes", [])}
        for r in [r for n in graph.get("nodes", []) for r in n.get("inputs", [])] + list(graph["outputs"]):
            self.uses[split_ref(r)] = self.uses.get(split_ref(r), 0) + 1

    # Operators whose output is a new tensor (not a view of an input): what only one operator
    # reads can be overwritten in place, as eager PyTorch's relu(inplace=True) and += do.
    FRESH = frozenset({"conv2d", "ewadd", "ewmul", "ewsub", "ewdiv", "matmul", "batchnorm", "pool_max",
                       "pool_avg", "concat", "relu", "sigmoid", "tanh", "silu", "hardswish", "gelu", "relu6", "linear",
                       "layer_norm"})

    def overwritable(self, r):
        name, port = split_ref(r)
        if self.in_fixed or name in self.fixed or self.uses.get((name, port)) != 1:
            return False
        if self.made_by.get(name) == "reshape":  # a view (or copy) of a tensor only it reads: a residual add's
            return self.overwritable(self.inputs_of[name][0])
        return self.made_by.get(name) in self.FRESH

    def in_place(self, op, node, ins):
        """relu or an add written in place on an input nobody else reads, else None."""
        refs = node.get("inputs", [])
        if op == "relu" and self.overwritable(refs[0]):
            return f"torch.relu_({ins[0]})"
        if op == "ewadd":
            out_shape = tuple(self.shapes[node["name"]][0])
            for i in (0, 1):
                if self.overwritable(refs[i]) and tuple(self.shape_of(refs[i])) == out_shape:
                    return f"{ins[i]}.add_({ins[1 - i]})"
        return None

    def ref(self, r):
        name, port = split_ref(r)
        v = self.var[(name, port)]
        if self.in_fixed or name not in self.fixed:
            return v
        if v not in self.computed:
            self.computed[v] = f"c{len(self.computed)}"
        return f"self.{self.computed[v]}"

    def scalar(self, ref):
        """An attribute holding a one-element weight's value as a Python float (set when the module is made)."""
        if not ref.startswith("self."):
            raise GraphModuleError(f"{ref}: a scalar computed in forward()")
        attr = f"s{len(self.scalars)}"
        self.scalars.append((attr, ref[len("self."):]))
        return f"self.{attr}"

    def output_ref(self, r):
        """What forward() returns for a graph output."""
        return self.ref(r)

    def shape_of(self, r):
        name, port = split_ref(r)
        return self.shapes[name][port]

    def emit(self, node):
        name, op, params = node["name"], node["op"], node.get("params", {})
        self.in_fixed = name in self.fixed
        forward_lines = self.lines
        if self.in_fixed:
            self.lines = self.pre_lines
        ins = [self.ref(r) for r in node.get("inputs", [])]
        out = f"v{len(self.var)}"
        self.var[(name, 0)] = out
        expr = self.expression(op, params, node, ins, out)
        if expr is not None:
            self.lines.append(f"{out} = {expr}  # {name}: {op}")
        self.lines, self.in_fixed = forward_lines, False

    def expression(self, op, params, node, ins, out):
        simple = {"ewadd": "{0} + {1}", "ewmul": "{0} * {1}", "smul": "{0} * {1}.reshape(())",
                  "matmul": "torch.matmul({0}, {1})", "tanh": "torch.tanh({0})",
                  **{a: text for a, text in ACTIVATIONS.items() if a != "none"}}
        if op == "matmul" and self.batched(node):  # torch.matmul would expand and reshape both first
            return f"torch.bmm({ins[0]}, {ins[1]})"
        if op in simple:
            return self.in_place(op, node, ins) or simple[op].format(*ins)
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
            return f"F.batch_norm({x}, {mean}, {var}, {scale}, {bias}, False, 0.0, {epsilon(params)!r})"
        if op == "layer_norm":
            # superopt's operator (an opset-17 import): x, scale, bias, normalized from `axis` on, its
            # epsilon a parameter; module_folds' (the spelled-out opset-13 form): eps a one-element
            # weight, read once as a float when the module is made, over the last dimension
            x, gamma, beta = ins[:3]
            in_shape = [int(d) for d in self.shape_of(node["inputs"][0])]
            axis = params.get("axis", -1) % len(in_shape) if len(ins) == 3 else len(in_shape) - 1
            normalized = tuple(in_shape[axis:])
            gamma, beta = (v if tuple(self.shape_of(r)) == normalized else f"{v}.reshape({normalized})"
                           for v, r in zip((gamma, beta), node["inputs"][1:3]))
            eps = self.scalar(ins[3]) if len(ins) == 4 else repr(epsilon(params))
            return f"F.layer_norm({x}, {normalized}, {gamma}, {beta}, {eps})"
        folded = self.folded_op(op, params, ins)
        if folded is not None:
            return folded
        if op == "enlarge":
            kh, kw = self.shape_of(node["inputs"][0])[2:]
            big_h, big_w = params["kernel"]
            top, left = (big_h - kh) // 2, (big_w - kw) // 2
            return f"F.pad({ins[0]}, ({left}, {big_w - kw - left}, {top}, {big_h - kh - top}))"
        if op == "conv2d":
            return self.conv2d(node, params, ins)
        if op == "linear":
            return self.linear(node, ins)
        imported = self.imported_op(op, params, ins)
        if imported is not None:
            return imported
        if op in ("pool_avg", "pool_max"):
            return self.pool(op, node, params, ins)
        raise GraphModuleError(f"node {node['name']}: operator {op} has no PyTorch version")

    @staticmethod
    def folded_op(op, params, ins):
        """module_folds' weight-only operators (computed once, when the module is made)."""
        if op == "fold_bn_weight":  # the convolution's weight times the batch norm's scale
            w, scale, var = ins
            return f"{w} * ({scale} / torch.sqrt({var} + {epsilon(params)!r})).reshape(-1, 1, 1, 1)"
        if op == "fold_bn_bias":  # shift + (bias - mean) * the scale
            scale, shift, mean, var = ins[:4]
            centred = f"({ins[4]} - {mean})" if len(ins) > 4 else f"(-{mean})"
            return f"{shift} + {centred} * ({scale} / torch.sqrt({var} + {epsilon(params)!r}))"
        if op == "channel_bias":  # a per-channel add, plus the bias already there
            return " + ".join(f"{r}.reshape(-1)" for r in ins)
        if op == "scale_slice":  # attention_folds: a range of a weight times (or divided by) a scalar
            axis, begin, end = params["axis"], params["begin"], params["end"]
            part = f"{ins[0]}.narrow({axis}, {begin}, {end - begin}) {'/' if params['divide'] else '*'} " \
                   f"{ins[1]}.reshape(())"
            return (f"torch.cat([{ins[0]}.narrow({axis}, 0, {begin}), {part}, {ins[0]}.narrow({axis}, {end}, "
                    f"{ins[0]}.shape[{axis}] - {end})], dim={axis})")
        return None

    def batched(self, node):
        """A matmul of two 3-d operands with the same batch: torch.bmm's case."""
        a, b = (self.shape_of(r) for r in node["inputs"])
        return len(a) == 3 and len(b) == 3 and a[0] == b[0]

    def linear(self, node, ins):
        """A linear layer, superopt's or module_folds' (x, the weight as the matmul read it, [in, out],
        the bias, and superopt's activation parameter): one
        torch.addmm on x's rows. The [in, out] weight is the plain (NN) GEMM, measured faster with
        MKL than F.linear's [out, in] (NT) one: 64x256 by 256x1024, float32, 1 thread, 625 -> 568 us.
        One row (a classifier at batch 1) is a matrix-vector product: torch.addmv on the weight's
        transpose, 2.5-3x faster than the GEMM with its one row (512 by 512x1000, float32, 1 thread,
        OpenBLAS, weight not in cache: 157 -> 55 us; resnet18's classifier)."""
        x_shape, out_shape = self.shape_of(node["inputs"][0]), tuple(self.shapes[node["name"]][0])
        bias_shape = self.shape_of(node["inputs"][2])
        if math.prod(x_shape[:-1]) == 1 and math.prod(bias_shape) == out_shape[-1]:
            bias = ins[2] if len(bias_shape) == 1 else f"{ins[2]}.view(-1)"
            expr = f"torch.addmv({bias}, {ins[1]}.t(), {ins[0]}.view(-1)).view({out_shape})"
        elif len(x_shape) == 2:
            expr = f"torch.addmm({ins[2]}, {ins[0]}, {ins[1]})"
        else:
            expr = f"torch.addmm({ins[2]}, {ins[0]}.reshape(-1, {x_shape[-1]}), {ins[1]}).view({out_shape})"
        return activated(expr, node.get("params", {}))  # superopt's linear layer fuses its activation

    @staticmethod
    def imported_op(op, params, ins):
        """The operators only imported (ONNX) models use; None for any other."""
        def bound(v):
            return None if v in ("inf", "-inf") else float(v)
        if op in ("ewsub", "ewdiv"):
            return f"{ins[0]} {'-' if op == 'ewsub' else '/'} {ins[1]}"
        if op in ("sqrt", "erf", "exp"):
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

    def padded(self, x, pads, kernel, fill, in_shape=None, stride=None):
        pad, arg = padding_args(pads, kernel, fill, in_shape, stride)
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
        pads = paddings(x_shape, w_shape[2:], stride, params.get("padding", "same"), params.get("pads"))
        # A convolution pads with zeros; an asymmetric padding that gives other windows than a
        # symmetric one goes through F.pad.
        x, pad = self.padded(ins[0], pads, w_shape[2:], "0", x_shape, stride)
        bias = ins[2] if len(ins) > 2 else None  # module_folds: a folded bias
        expr = f"F.conv2d({x}, {ins[1]}, {bias}, {stride}, {pad}, 1, {groups})"
        return activated(expr, params)

    def pool(self, op, node, params, ins):
        x_shape = self.shape_of(node["inputs"][0])
        kernel, stride = tuple(params["kernel"]), tuple(params.get("stride", [1, 1]))
        pads = paddings(x_shape, kernel, stride, params.get("padding", "same"), params.get("pads"))
        if op == "pool_avg":  # zeros count and the divisor is the whole window (cuDNN's INCLUDE_PADDING)
            x, pad = self.padded(ins[0], pads, kernel, "0.0")
            return f"F.avg_pool2d({x}, {kernel}, {stride}, {pad}, False, True)"
        x, pad = self.padded(ins[0], pads, kernel, "float('-inf')", x_shape, stride)  # padded positions never win
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


def weight_only(graph):
    """The operators computed from weights and constants alone (TASO's load-time work)."""
    sources, fixed = {w["name"] for w in graph.get("weights", [])}, set()
    for node in topological(graph.get("nodes", [])):
        ins = [split_ref(r)[0] for r in node.get("inputs", [])]
        if not ins:
            sources.add(node["name"])  # a constant
        elif all(i in sources or i in fixed for i in ins):
            fixed.add(node["name"])
    return fixed


# forward()'s local variables: v0, v1, ... (node outputs) and t1, t2, ... (temporaries); not x0
# (an input, which the caller holds) nor an attribute (self.b0).
LOCAL = re.compile(r"(?<![\w.])([vt]\d+)\b")


def free_after_last_use(lines, returned):
    """The lines with `del` after each local's last reader (its definition when nothing reads it),
    except what forward() returns. A straight-line forward() otherwise keeps every intermediate
    alive until it returns (its peak memory is the sum of them all), and each operator writes into
    memory not touched for a whole forward, out of cache, where eager PyTorch and TorchScript reuse
    what was freed a moment ago. Measured beside the same module without them (1 thread, CPU time,
    interleaved rounds, loaded 2-core machine): resnet18 and the transformer encoder within noise
    (0.98-1.05x); interleaved with eager and TorchScript runs of the model, the module keeping
    everything alive took page faults and squeezenet1_1 ran 1.79x slower (scripts/bench/README.md)."""
    last = {}
    for i, line in enumerate(lines):
        code = line.split("  # ")[0]  # the comment names graph nodes, which may look like locals
        for name in LOCAL.findall(code):
            last[name] = i
    keep = set(LOCAL.findall(returned))
    frees = {}
    for name, i in last.items():
        if name not in keep:
            frees.setdefault(i, []).append(name)
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i in frees:
            out.append("del " + ", ".join(sorted(frees[i], key=lambda n: (n[0], int(n[1:])))))
    return out


def generate(graph, shapes, precompute=False, codegen=Codegen):
    """forward()'s source and the buffers it reads; with precompute, also precompute()'s source,
    which returns the weight-only values forward() reads as buffers ({attribute: value}), and the
    code generator (its prepacked weights, for the mkldnn layout)."""
    gen = codegen(graph, shapes, weight_only(graph) if precompute else frozenset())
    for i, source in enumerate(graph.get("inputs", [])):
        gen.var[(source["name"], 0)] = f"x{i}"
    for w in graph.get("weights", []):
        gen.var[(w["name"], 0)] = gen.buffer("weight", w["name"], "weight", tuple(w["shape"]))
    for node in topological(graph.get("nodes", [])):
        gen.emit(node)
    args = ", ".join(f"x{i}" for i in range(len(graph.get("inputs", []))))
    outputs = ", ".join(gen.output_ref(r) for r in graph["outputs"])
    body = "\n".join("    " + line for line in free_after_last_use(gen.lines, outputs))
    source = f"def forward(self, {args}):\n{body}\n    return ({outputs},)\n"
    if not precompute:
        return source, gen.buffers
    pre_body = "\n".join("    " + line for line in gen.pre_lines + ["pass"])
    values = ", ".join(f"{attr!r}: {var}" for var, attr in gen.computed.items())
    return source, gen.buffers, f"def precompute(self):\n{pre_body}\n    return {{{values}}}\n", gen


# ---------------------------------------------------------------- the module

class GraphModule(torch.nn.Module):
    """The graph's weights and constants as buffers, its nodes as generated straight-line code."""

    def __init__(self, graph, shapes, dtype, weights=None, seed=1, precompute=False, device=None, layout="dense"):
        """weights: {name: values} for weights (else their data, else seeded random values);
        precompute: compute the weight-only operators once here, not in every forward();
        layout: "dense", or "mkldnn" (float32 on the CPU, with precompute: mkldnn_codegen.py)."""
        super().__init__()
        codegen = Codegen
        if layout == "mkldnn":
            from superopt.mkldnn_codegen import MkldnnCodegen
            codegen = MkldnnCodegen
        generated = generate(graph, shapes, precompute, codegen)
        self.source, buffers = generated[0], generated[1]
        self.input_names = [s["name"] for s in graph.get("inputs", [])]
        self.input_shapes = [tuple(s["shape"]) for s in graph.get("inputs", [])]
        self.weight_attrs = {name: attr for attr, kind, name, _, _ in buffers if kind == "weight"}  # for ONNX
        data = {w["name"]: w.get("data") for w in graph.get("weights", [])}
        generator = torch.Generator().manual_seed(seed)
        for attr, kind, name, op, shape in buffers:
            if kind == "constant":
                value = make_constant(op, shape, dtype)
            elif weights is not None and name in weights:  # contiguous: a transposed parameter (a matmul's
                # weight as ONNX holds it) would make torch.addmm run MKL's slower transposed GEMM
                value = torch.as_tensor(weights[name], dtype=dtype).reshape(shape).contiguous()
            elif data.get(name) is not None:  # a graph file writes infinities as "inf" and "-inf"
                value = torch.tensor([float(v) for v in data[name]], dtype=dtype).reshape(shape)
            else:  # uniform in [-1, 1] like our evaluator, scaled so that deep models stay finite
                fan_in = max(1, math.prod(shape[1:]) if len(shape) > 1 else 1)
                value = (torch.rand(shape, generator=generator, dtype=dtype) * 2 - 1) / math.sqrt(fan_in)
            self.register_buffer(attr, value.to(device) if device is not None else value)
        namespace = {"torch": torch, "F": F}
        exec(compile(self.source, f"<graph {graph.get('name', '')}>", "exec"), namespace)
        self._forward = namespace["forward"]
        if precompute:
            exec(compile(generated[2], f"<graph {graph.get('name', '')} at load time>", "exec"), namespace)
            with torch.no_grad():
                for attr, value in namespace["precompute"](self).items():
                    self.register_buffer(attr, value.contiguous())
                for attr, weight in generated[3].scalars:
                    setattr(self, attr, float(getattr(self, weight).reshape(())))
        self._prepacked = list(getattr(generated[3], "prepacked", [])) if precompute else []
        self._pack()

    def _pack(self):
        """The blocked layout's convolution weights, reordered from their dense buffers: plain
        attributes, not buffers (oneDNN's tensors have no storage to save or copy), made again when
        the module is copied or unpickled."""
        with torch.no_grad():
            for attr, weight, padding, stride, groups in self._prepacked:
                packed = torch._C._nn.mkldnn_reorder_conv2d_weight(getattr(self, weight).to_mkldnn(), list(padding),
                                                                  list(stride), [1, 1], groups)
                object.__setattr__(self, attr, packed)

    def __getstate__(self):
        state = dict(self.__dict__)
        for attr, *_ in self._prepacked:
            state.pop(attr, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._pack()

    def forward(self, *inputs):
        return self._forward(self, *inputs)

    def random_inputs(self, dtype, device, seed=2):
        generator = torch.Generator().manual_seed(seed)
        return [(torch.rand(s, generator=generator, dtype=dtype) * 2 - 1).to(device) for s in self.input_shapes]
