// derive_by_outputs() (see derive.h): a multi-output rule proved output by
// output. A rule holds exactly when each output does, so each output's
// single-output rule (runtime/rewrite/output_rule.h) derived on its own is a
// proof; it gets past what the whole-rule search cannot: outputs that share a
// subexpression (the matcher refuses a match whose intermediate tensor is read
// elsewhere) and sides that compute a shared part once on one side and once
// per use on the other.
#include "runtime/core/graph_hash.h"
#include "runtime/rewrite/output_rule.h"
#include "verify/derive.h"

namespace superopt::verify {

std::optional<Derivation> derive_by_outputs(const Rule& rule, const ProvenRules& proven,
                                            const DeriveOptions& o, int first_n) {
  const int outputs = int(rule.source.outputs().size());
  if (outputs < 2) return std::nullopt;
  Derivation steps;
  for (int i = 0; i < outputs; ++i) {
    const Rule one = output_rule(rule, i);
    // An output both sides compute alike needs no steps.
    if (structurally_equal(one.source, one.target)) continue;
    std::optional<FoundDerivation> d = derive_rule(one, proven, o, first_n);
    if (!d) return std::nullopt;
    for (DerivationStep& s : d->steps) {
      s.output = i;
      steps.push_back(std::move(s));
    }
  }
  // Every output alike on both sides (the sides differ only in what they
  // share): no step to store, and a derivation needs one; Z3 decides it.
  if (steps.empty()) return std::nullopt;
  return steps;
}

}  // namespace superopt::verify
