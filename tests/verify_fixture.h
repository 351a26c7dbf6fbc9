// The shipped axioms, read once, for the verifier's tests.
#pragma once

#include "verify/axiom_set.h"

namespace superopt::test {

inline const verify::AxiomSet& taso_axioms() {
  static const verify::AxiomSet axioms =
      verify::read_axiom_file(SUPEROPT_SOURCE_DIR "/verify/axioms/taso.ax");
  return axioms;
}

}  // namespace superopt::test
