// The verifier's public face: the `verify` and `verify-axioms` commands.
#pragma once

#include <string>
#include <vector>

namespace superopt {

// `superopt verify rules.h5 [--axioms FILE] [--timeout-ms T] [--json]`: decides
// every undecided rule (verified, refuted or unknown) and updates the database.
int verify_command(const std::vector<std::string>& args);

// `superopt verify-axioms [--axioms FILE] [--max-dim N] [--json]`: validates
// the axioms on small symbolic tensors and checks them for redundancy.
int verify_axioms_command(const std::vector<std::string>& args);

}  // namespace superopt
