#!/usr/bin/env python3
"""Issue 36's transformer models as ONNX files, for cpu.sh and onnx_torch.py: a BERT-base
encoder layer (nn.TransformerEncoderLayer: d_model 768, 12 heads, feed-forward 3072, GELU,
batch_first) and a GPT-style decoder block (pre-norm, causal self-attention with a -inf mask,
a 4x GELU MLP, residuals), both on a 1x128x768 sequence, random weights (seed 0), eval mode,
opset 17 (LayerNormalization), exported by torch.onnx.

  /usr/bin/python3 scripts/bench/export_transformers.py [--out DIR] [--seq 128]
  scripts/bench/cpu.sh --threads 1 --models "DIR/bert_layer.onnx DIR/gpt_block.onnx"
"""
import argparse
import os
import warnings

import torch

D_MODEL, HEADS = 768, 12


class GptBlock(torch.nn.Module):
    """x + attn(ln1(x)) with a causal mask, then + mlp(ln2(.)), as GPT-2's block."""

    def __init__(self, seq):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(D_MODEL), torch.nn.LayerNorm(D_MODEL)
        self.attn = torch.nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)
        self.fc, self.proj = torch.nn.Linear(D_MODEL, 4 * D_MODEL), torch.nn.Linear(4 * D_MODEL, D_MODEL)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x):
        y = self.ln1(x)
        x = x + self.attn(y, y, y, attn_mask=self.mask, need_weights=False)[0]
        return x + self.proj(torch.nn.functional.gelu(self.fc(self.ln2(x))))


def models(seq):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, 4 * D_MODEL, dropout=0.0, activation="gelu",
                                             batch_first=True)
    return {"bert_layer": torch.nn.TransformerEncoder(layer, 1).eval(), "gpt_block": GptBlock(seq).eval()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="scripts/bench/out/transformers")
    p.add_argument("--seq", type=int, default=128)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    x = torch.randn(1, a.seq, D_MODEL)
    for name, module in models(a.seq).items():
        path = os.path.join(a.out, f"{name}.onnx")
        # not under no_grad: there the encoder layer takes PyTorch's fused fast path, which has no ONNX form
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's notes on the fast attention path
            torch.onnx.export(module, (x,), path, opset_version=17, input_names=["x"])
        print(path)


if __name__ == "__main__":
    main()
