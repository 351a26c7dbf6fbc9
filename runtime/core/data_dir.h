// Where the files shipped with superopt are found at run time: one lookup for
// every stage, so an installed or copied binary is pointed at them the same way.
#pragma once

#include <string>
#include <string_view>

namespace superopt {

// The folder of the shipped data (data/: device profiles, operator sets, rule
// databases): $SUPEROPT_DATA_DIR, else data/ of the source tree at build time.
std::string data_dir();

// data_dir() + "/" + relative, e.g. data_path("opsets/taso.json").
std::string data_path(std::string_view relative);

// The folder of the shipped axiom files (verify/axioms/): $SUPEROPT_AXIOM_DIR,
// else where the source tree was at build time. Axioms are the verifier's
// source, not data, so they keep their own folder and variable.
std::string axiom_dir();

}  // namespace superopt
