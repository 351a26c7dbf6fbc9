#!/usr/bin/env python3
"""What torch.onnx.export writes at every opset we read (11 to 17) passes the
import's validation (issue 37, item 6: onnx::checker and strict shape inference
run on every model) and imports: a small convolutional network (convolution,
batch norm, ceil-mode pooling, global pooling, linear, layer norm, softmax) and
a transformer encoder layer (LayerNormalization only from opset 17, attention
through Reshape, Transpose, MatMul), also with every tensor in an external file
(Reshape's shapes and Constant values included), and with a dynamic batch given
by --input-shape. A few seconds.

  /usr/bin/python3 tests/onnx_torch_opsets_test.py build/superopt OUT_DIR
"""
import os
import subprocess
import sys
import warnings

import onnx
import torch
import torch.nn as nn

warnings.filterwarnings("ignore")


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2, ceil_mode=True)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 5)
        self.ln = nn.LayerNorm(5)

    def forward(self, x):
        y = self.gap(self.pool(torch.relu(self.bn(self.conv(x))))).flatten(1)
        return torch.softmax(self.ln(self.fc(y)), dim=1)


def check(superopt, path, *flags):
    p = subprocess.run([superopt, "graph", "check", path, *flags], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"onnx_torch_opsets_test: FAIL: {path}: exit {p.returncode}: {p.stderr.strip()}")
        sys.exit(1)


def main():
    superopt, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    models = {"small": (Small().eval(), torch.randn(1, 3, 9, 9)),
              "encoder": (nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True).eval(),
                          torch.randn(1, 4, 16))}
    for opset in range(11, 18):
        for name, (module, x) in models.items():
            path = os.path.join(out, f"{name}-{opset}.onnx")
            torch.onnx.export(module, x, path, opset_version=opset, input_names=["x"],
                              dynamic_axes={"x": {0: "batch"}} if name == "small" else None)
            shape = "x=" + "x".join(str(d) for d in x.shape)
            check(superopt, path, *(["--input-shape", shape] if name == "small" else []))
            if opset in (11, 17):
                folder = os.path.join(out, f"{name}-{opset}-external")
                os.makedirs(folder, exist_ok=True)
                onnx.save_model(onnx.load(path), os.path.join(folder, "model.onnx"), save_as_external_data=True,
                                all_tensors_to_one_file=True, location="data.bin", size_threshold=0,
                                convert_attribute=True)
                check(superopt, os.path.join(folder, "model.onnx"),
                      *(["--input-shape", shape] if name == "small" else []))
            print(f"ok: {name} at opset {opset}")
    print("onnx_torch_opsets_test: ok")


if __name__ == "__main__":
    main()
