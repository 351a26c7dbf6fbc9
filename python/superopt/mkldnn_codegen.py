"""forward() in oneDNN's blocked layout (float32 on the CPU), as torch.jit.freeze with
optimize_for_inference runs a frozen convolutional network: the input goes into the layout once,
convolutions run on weights reordered once, when the module is made, into the layout oneDNN wants
(torch._C._nn.mkldnn_reorder_conv2d_weight), and relu, adds of equal shapes and pooling stay in
it; any other operator reads its inputs back in the dense layout. Without this every eager
F.conv2d reorders its input, weight and output, and that is most of what the frozen form saves.

graph_module.GraphModule(layout="mkldnn") writes its forward with MkldnnCodegen.
"""
from superopt.graph_module import Codegen, activated, padding_args, paddings


class MkldnnCodegen(Codegen):
    def __init__(self, graph, shapes, fixed=frozenset()):
        super().__init__(graph, shapes, fixed)
        self.blocked = set()  # the variables held in the blocked layout
        self.converted = {}  # (variable, "mkldnn" | "dense") -> the variable converted
        self.prepacked = []  # (attribute, weight attribute, padding, stride, groups): made once

    def convert(self, var, to):
        if (var in self.blocked) == (to == "mkldnn"):
            return var
        if (var, to) not in self.converted:
            name = self.temporary()
            self.lines.append(f"{name} = {var}.{'to_mkldnn' if to == 'mkldnn' else 'to_dense'}()")
            self.converted[(var, to)] = name
            if to == "mkldnn":
                self.blocked.add(name)
        return self.converted[(var, to)]

    def output_ref(self, r):
        return self.convert(self.ref(r), "dense")

    def expression(self, op, params, node, ins, out):
        if self.in_fixed:  # computed once, when the module is made: dense
            return super().expression(op, params, node, ins, out)
        expr = self.blocked_expression(op, params, node, ins)
        if expr is not None:
            self.blocked.add(out)
            return expr
        return super().expression(op, params, node, [self.convert(i, "dense") for i in ins], out)

    def blocked_expression(self, op, params, node, ins):
        """The operator in the blocked layout, or None where it has no such form here."""
        shapes = [self.shape_of(r) for r in node.get("inputs", [])]
        if op == "conv2d":
            return self.blocked_conv(params, node, ins, shapes)
        if op == "relu" and ins[0] in self.blocked:
            return self.in_place(op, node, ins) or f"torch.relu({ins[0]})"
        if op == "ewadd" and all(i in self.blocked for i in ins) and shapes[0] == shapes[1]:
            return self.in_place(op, node, ins) or f"{ins[0]} + {ins[1]}"
        if op in ("pool_max", "pool_avg") and ins[0] in self.blocked:
            kernel, stride = tuple(params["kernel"]), tuple(params.get("stride", [1, 1]))
            pads = paddings(shapes[0], kernel, stride, params.get("padding", "same"), params.get("pads"))
            fill = "float('-inf')" if op == "pool_max" else "0.0"
            pad, arg = padding_args(pads, kernel, fill, shapes[0] if op == "pool_max" else None, stride)
            if pad is not None:
                return None
            if op == "pool_max":
                return f"F.max_pool2d({ins[0]}, {kernel}, {stride}, {arg})"
            return f"F.avg_pool2d({ins[0]}, {kernel}, {stride}, {arg}, False, True)"
        return None

    def blocked_conv(self, params, node, ins, shapes):
        x_shape, w_shape = shapes[0], shapes[1]
        if len(x_shape) != 4 or not ins[1].startswith("self."):  # a weight computed in forward: dense
            return None
        if params.get("activation", "none") not in ("none", "relu"):  # others: not on MKLDNN tensors
            return None
        stride = tuple(params.get("stride", [1, 1]))
        pads = paddings(x_shape, w_shape[2:], stride, params.get("padding", "same"), params.get("pads"))
        pad, arg = padding_args(pads, w_shape[2:], "0", x_shape, stride)
        if pad is not None:  # an asymmetric padding: F.pad in the dense layout first
            return None
        padding = tuple(int(v) for v in arg.strip("()").split(","))
        groups = x_shape[1] // w_shape[1]
        attr = f"p{len(self.prepacked)}"
        self.prepacked.append((attr, ins[1][len("self."):], padding, stride, groups))
        bias = ins[2] if len(ins) > 2 else None
        expr = (f"torch.mkldnn_convolution({self.convert(ins[0], 'mkldnn')}, self.{attr}, {bias}, {padding}, "
                f"{stride}, (1, 1), {groups})")
        return activated(expr, params)
