// Where the files shipped with superopt are found at run time: one lookup for
// every stage, so an installed or copied binary is pointed at them the same way.
//
// Each folder is looked up in this order (the first that applies wins):
//   1. the environment variable ($SUPEROPT_DATA_DIR, $SUPEROPT_AXIOM_DIR),
//      used as given;
//   2. the install layout next to the running binary (/proc/self/exe):
//      BIN/../share/superopt/data and BIN/../share/superopt/axioms, what
//      `cmake --install` writes;
//   3. the source tree the binary was built from (data/, verify/axioms/),
//      only while the running binary lies inside the build tree it was built
//      in: a copied or installed binary never reads a source tree that may
//      belong to another version.
// When none applies, Error("no data folder: tried ...") names every path tried.
#pragma once

#include <string>
#include <string_view>

namespace superopt {

// The folder of the shipped data (data/: device profiles, operator sets, rule
// databases, cost tables).
std::string data_dir();

// data_dir() + "/" + relative, e.g. data_path("opsets/taso.json").
std::string data_path(std::string_view relative);

// The folder of the shipped axiom files (verify/axioms/). Axioms are the
// verifier's source, not data, so they keep their own folder and variable.
std::string axiom_dir();

}  // namespace superopt
