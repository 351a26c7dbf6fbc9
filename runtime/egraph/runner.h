// The Runner (egg's): equality saturation of an e-graph with directed rules,
// iteration by iteration (find every match, apply them, rebuild), within
// Tensat's safeguards: an iteration limit, a node limit, a time limit, and
// multi-output rules only in the first iterations.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/egraph/anchor_filter.h"
#include "runtime/egraph/egraph.h"
#include "runtime/egraph/ematch.h"
#include "runtime/egraph/refusal_cache.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt::egraph {

struct RunnerLimits {
  int max_iterations = 8;
  int max_nodes = 40000;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Rules with more than one output grow an e-graph fastest (Tensat's k_multi):
  // applied in this many first iterations only.
  int multi_pattern_iterations = 2;
  // egg's BackoffScheduler: a rule that finds more than match_limit << bans
  // matches in one iteration applies none of them and sits out ban_iterations
  // << bans iterations (bans: how often it was banned before), so that a few
  // rules that match everywhere (commutativity, identities) do not fill the
  // node limit before the others apply once. 0: no limit.
  int match_limit = 0;
  int ban_iterations = 5;
  // Applying each match as it is found (on a copy of the e-graph as the
  // iteration began), remembering refused occurrences (refusal_cache.h),
  // testing anchors once per signature (anchor_filter.h) and matching in the
  // selective order (ematch_plan.h): the same applications in the same order
  // as finding every match first, anchor by anchor and rule by rule in the
  // pattern's own order, and confirming each one anew, which `false` does
  // (tests compare the two).
  bool fast_matching = true;
};

enum class StopReason { saturated, iteration_limit, node_limit, time_limit };
const char* stop_reason_name(StopReason reason);

struct RunnerReport {
  int iterations = 0;
  StopReason stop = StopReason::saturated;
  int64_t matches = 0;         // e-matches found, over all iterations
  int64_t applications = 0;    // applications that changed the e-graph
  int64_t not_confirmed = 0;   // e-matches the graph matcher refused (shape facts, size families)
  int64_t refused_merges = 0;  // applications whose sides' descriptors differed
  int64_t bans = 0;            // times a rule was banned for matching too often (RunnerLimits::match_limit)
  double seconds = 0;
};

class Runner {
 public:
  Runner(EGraph& eg, const std::vector<DirectedRule>& rules, RunnerLimits limits);
  RunnerReport run();
  // The rule (index into the rules given) whose application added e-node n, or -1 (the seed).
  int origin(NodeIndex n) const { return n < NodeIndex(origin_.size()) ? origin_[n] : -1; }

 private:
  bool out_of_time() const { return std::chrono::steady_clock::now() >= limits_.deadline; }
  // One iteration; false when nothing changed.
  bool iterate(int iteration, RunnerReport& report);

  EGraph& eg_;
  const std::vector<DirectedRule>& rules_;
  RunnerLimits limits_;
  // A rule as filed under its anchor: read for every anchor e-node, so kept
  // compact (the rule itself is not touched unless its signature accepts).
  struct Filed {
    int rule;
    int signature;  // AnchorFilter's
    bool multi;     // more than one output (Tensat's k_multi applies)
  };
  // Rules per anchor: by operator and parameters (params_hash), and per
  // operator those whose anchor's parameters the matcher compares otherwise
  // (transposes, by permutation; constants, not at all).
  std::unordered_map<uint64_t, std::vector<Filed>> by_anchor_;
  std::vector<std::vector<Filed>> any_params_;
  AnchorFilter filter_;            // the anchor test, once per signature and anchor e-node
  std::vector<EMatchPlan> plans_;  // per rule: the order its source is matched in
  // The scheduler's state per rule: bans so far, and the first iteration it may match again.
  struct Backoff {
    int bans = 0;
    int banned_until = 0;
  };
  std::vector<Backoff> backoff_;
  bool banned(int rule, int iteration) const { return backoff_[rule].banned_until > iteration; }
  // Drops the matches of rules over their limit this iteration, banning those rules.
  void back_off(int iteration, std::vector<std::pair<int, EMatch>>& found, RunnerReport& report);
  // Whether any rule sits out an iteration after this one.
  bool any_banned(int iteration) const;
  std::vector<int> origin_;
  RefusalCache refusals_;          // occurrences the graph matcher refused, by their scratch graph
  std::vector<uint64_t> applied_;  // sorted hashes of (rule, match) applied already
  bool stopped_ = false;
  StopReason stop_ = StopReason::saturated;
};

}  // namespace superopt::egraph
