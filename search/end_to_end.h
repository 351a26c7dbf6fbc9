// End-to-end acceptance (issue 34): per-operator costs measured alone do not
// add up to what the executor runs, so after a search with CPU costs the input
// and the best few distinct graphs found are timed whole on the CPU executor,
// interleaved, and `optimize` returns the fastest, never a graph measured
// slower than its input: a graph replaces the input only when it is faster by
// more than the spread of the timings.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/exec/timing_stats.h"
#include "search/search.h"

namespace superopt {

struct EndToEndOptions {
  int rounds = 5;            // interleaved rounds; each graph's time is the median of its round medians
  int repeats = 3;           // timed runs per graph and round (after one untimed run)
  int threads = 0;           // CPU threads (0: every core), as the cost model measured with
  int max_alternatives = 3;  // graphs timed beside the input and the search's best
};

// One graph as timed: which it is, its cost under the search's model, the
// spread of its round medians, and the numerical check of an alternative.
struct TimedGraph {
  std::string name;  // "input", "best" (the search's), "alternative K"
  double cost_ms = 0;
  TimingSpread timing;
  std::string check;      // "" (not needed or not run), "passed", or why it failed
  int rounds_faster = 0;  // rounds in which it ran faster than the input (the input: 0)
};

struct EndToEndDecision {
  int rounds = 0, repeats = 0, threads = 0;  // threads: those timed with (0: not timed, every core)
  std::vector<TimedGraph> timed;             // the input first
  int chosen = 0;                            // index into timed: 0 = the input
  std::string reason;                        // one line saying why
};

// The CPU threads to time with when `cost_spec` (as given to --cost) measures
// this CPU: "cpu" and "cpu@TABLE" every core (0), "cpu:N[@TABLE]" N, a
// "table:FILE" measured on this CPU model and oneDNN its threads (another
// thread count than every core is said on stderr when the table is read);
// nullopt for any other model (analytic, a GPU's or another machine's table).
std::optional<int> end_to_end_threads(const std::string& cost_spec);

// Times `input` and the result's graph and alternatives (those distinct from
// each other and from the input) and makes `result` the fastest that beats
// the input beyond the noise (max of the two timings' IQRs) and passes the
// numerical check against the input (the search's best has passed it
// already), or the input itself. Throws Error when the CPU executor cannot be
// made (a bad thread count).
EndToEndDecision accept_end_to_end(const Graph& input, OptimizeResult& result, const SearchOptions& search,
                                   const EndToEndOptions& options);

// `optimize --json`'s "end_to_end" object: rounds, repeats, threads, each
// graph's median, IQR, min and max over the rounds, the chosen one and why.
nlohmann::ordered_json end_to_end_json(const EndToEndDecision& d);

// The lines `optimize` prints: one per graph timed, then the decision.
std::string end_to_end_text(const EndToEndDecision& d);

// How `optimize` decides whether to time end to end: `rounds_flag` is
// --e2e-rounds (-1: not given). Returns the rounds (0: off), on by default
// with a cost model measured on this CPU; throws Error for rounds asked of
// any other cost model.
int end_to_end_rounds(int rounds_flag, const std::optional<int>& cpu_threads, const std::string& cost_spec);

}  // namespace superopt
