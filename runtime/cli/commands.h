// The subcommands runtime/ provides to the superopt executable.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"

namespace superopt {

// `superopt graph check|run|export MODEL`: validate, execute or write a graph file or builtin model.
int graph_command(const std::vector<std::string>& args);

// A check a derived rule must pass beyond its derivation replaying: why it
// fails, or nullopt. The executable passes verify/'s concrete checks over the
// rule's shape family (a derivation proves a rule at its own shapes only);
// runtime/ cannot call verify/ itself.
using DerivedRuleCheck = std::function<std::optional<std::string>(const Rule&)>;

// A db subcommand the executable provides from a stage runtime/ may not call
// (`db audit`, from verify/).
using DbSubcommand = std::function<int(const std::vector<std::string>&)>;

// `superopt db info|show|check-proofs|audit FILE`: inspect a rule database.
int db_command(const std::vector<std::string>& args, const DerivedRuleCheck& check = {},
               const DbSubcommand& audit = {});
// `superopt db check-proofs FILE`: replay every derivation and run `check` on
// every derived rule (exit 1 on an invalid one).
int db_check_proofs_command(const std::vector<std::string>& args, const DerivedRuleCheck& check = {});

// `superopt version`: versions of superopt and its libraries, and the CUDA devices.
int version_command(const std::vector<std::string>& args);

// `superopt measure MODEL...`: time every operator signature on the GPU into a cost table.
int measure_command(const std::vector<std::string>& args);

// `superopt run MODEL --gpu`: whole-graph GPU latency, with --check against the CPU reference.
int run_command(const std::vector<std::string>& args);

}  // namespace superopt
