// Graph evaluation in Z3 real terms (SymbolicArith), in its own target so that
// only the verifier links Z3.
#include "runtime/core/arith_z3.h"
#include "runtime/core/evaluator_impl.h"

namespace superopt {

SUPEROPT_INSTANTIATE_EVALUATOR(SymbolicArith)

}  // namespace superopt
