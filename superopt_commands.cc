// The subcommands of the superopt executable, one per stage of the pipeline.
#include "superopt_commands.h"

#include "enum/enumerate.h"
#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "search/search.h"
#include "verify/audit.h"
#include "verify/derive.h"
#include "verify/rule_validation.h"
#include "verify/verify.h"

namespace superopt {

int superopt_main(const std::vector<std::string>& args) {
  const cli::Subcommand subcommands[] = {
      {"enumerate", "generate candidate rules into a rule database (MPI-sharded)", enumerate_command},
      {"verify", "prove the rules of a database with Z3 and small-tensor validation (MPI pool)",
       verify_command},
      {"derive", "prove rules by rewriting them with the proven rules before them; the minimal set",
       verify::derive_command},
      {"verify-axioms", "validate the operator axioms on small symbolic tensors; check them for redundancy",
       verify_axioms_command},
      {"optimize", "optimize a model with a rule database (cost-based backtracking search)",
       optimize_command},
      {"graph", "check, run or export a graph file (JSON) or builtin model", graph_command},
      {"measure", "measure operator costs on the GPU into a cost table (HDF5)", measure_command},
      {"run", "time a model on the GPU (--gpu), optionally checked against the CPU reference", run_command},
      {"db", "inspect a rule database (info, show, check-proofs, audit)",
       [](const std::vector<std::string>& a) {
         return db_command(a, verify::family_difference, verify::audit_command);
       }},
      {"version", "versions of superopt, its libraries and the CUDA devices", version_command},
  };
  return cli::run_main("superopt", [&] { return cli::dispatch("superopt", subcommands, args); });
}

}  // namespace superopt
