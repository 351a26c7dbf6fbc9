// Which operators a rule database is about: those its rules use, and those its
// operator set lists (so that search/ and verify/ need not parse the opset).
#include <nlohmann/json.hpp>

#include "runtime/core/error.h"
#include "runtime/db/rule_database.h"

namespace superopt {

std::set<OpType> RuleDatabase::operators_used() const {
  std::set<OpType> ops;
  for (const Rule& r : rules)
    for (const Graph* g : {&r.source, &r.target})
      for (const Node& n : g->nodes()) ops.insert(n.op);
  return ops;
}

std::optional<std::set<OpType>> RuleDatabase::opset_operators() const {
  nlohmann::json opset = nlohmann::json::parse(info.opset_json, nullptr, false);
  if (opset.is_discarded() || !opset.is_object() || !opset.contains("operators") ||
      !opset["operators"].is_array())
    return std::nullopt;
  std::set<OpType> ops;
  for (const auto& entry : opset["operators"]) {
    std::string name = entry.is_object() ? entry.value("op", "") : "";
    std::optional<OpType> op = op_from_name(name);
    if (!op) throw Error("'" + info.opset_name + "' has operator '" + name + "', unknown to this superopt");
    ops.insert(*op);
  }
  return ops;
}

}  // namespace superopt
