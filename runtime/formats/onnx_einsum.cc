// ONNX Einsum when it is a batched matrix product (MaxViT's attention:
// "BGHID,BGHJD->BGHIJ", "BGHIJ,BGHJD->BGHID"): each operand transposed to
// [batch..., rows, inner] and [batch..., inner, columns] where needed, one
// matmul, and the result transposed to the output's order where needed.
#include <algorithm>
#include <string>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_importer.h"

namespace superopt::onnx_import {
namespace {

using onnx::NodeProto;

bool has(const std::string& s, char c) {
  return s.find(c) != std::string::npos;
}

// x with its dimensions in the order `want` names them (x's are named by `have`).
TensorRef permuted(Importer& im, TensorRef x, const std::string& have, const std::string& want) {
  if (have == want) return x;
  OpParams p;
  for (size_t k = 0; k < want.size(); ++k) p.perm[k] = static_cast<int8_t>(have.find(want[k]));
  return im.emit(OpType::transpose, {x}, p);
}

void map_einsum(Importer& im, const NodeProto& n) {
  std::string eq = attr_string(n, "equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const auto unsupported = [&] {
    return Error("einsum '" + eq + "' is not supported (a batched matrix product of two operands is)");
  };
  const size_t arrow = eq.find("->"), comma = eq.find(',');
  if (n.input_size() != 2 || arrow == std::string::npos || comma == std::string::npos || comma > arrow ||
      has(eq, '.'))
    throw unsupported();
  const std::string a = eq.substr(0, comma), b = eq.substr(comma + 1, arrow - comma - 1),
                    o = eq.substr(arrow + 2);
  std::string batch, rows, columns, inner;
  for (char c : o) (has(a, c) && has(b, c) ? batch : has(a, c) ? rows : columns) += c;
  for (char c : a)
    if (has(b, c) && !has(o, c)) inner += c;
  const auto once = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [&](char c) { return std::count(s.begin(), s.end(), c) == 1; });
  };
  if (rows.size() != 1 || columns.size() != 1 || inner.size() != 1 || !once(a) || !once(b) || !once(o) ||
      a.size() != batch.size() + 2 || b.size() != batch.size() + 2 || int(a.size()) != im.input_rank(n, 0) ||
      int(b.size()) != im.input_rank(n, 1) || batch.size() + 2 > size_t(kMaxRank))
    throw unsupported();
  const std::vector<int64_t> da = im.input_dims(n, 0), db = im.input_dims(n, 1);
  for (char c : batch)
    if (da[a.find(c)] != db[b.find(c)]) throw Error("einsum '" + eq + "': batch dimensions differ");
  TensorRef x = permuted(im, im.tensor_input(n, 0), a, batch + rows + inner);
  TensorRef y = permuted(im, im.tensor_input(n, 1), b, batch + inner + columns);
  const std::string product = batch + rows + columns;
  TensorRef z = im.emit(OpType::matmul, {x, y}, {}, product == o ? n.output(0) : "");
  im.set_output(n, 0, permuted(im, z, product, o));
}

}  // namespace

void add_einsum_mapper(MapperTable& t) {
  t["Einsum"] = map_einsum;
}

}  // namespace superopt::onnx_import
