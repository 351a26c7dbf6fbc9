// Equality saturation, iteration by iteration (see runner.h).
#include "runtime/egraph/runner.h"

#include <algorithm>
#include <optional>

#include "runtime/core/hashing.h"
#include "runtime/egraph/ematch.h"
#include "runtime/egraph/rewrite_apply.h"

namespace superopt::egraph {
namespace {

uint64_t match_hash(const EGraph& eg, int rule, const EMatch& m) {
  uint64_t h = hash_combine(0x9e3779b97f4a7c15ULL, uint64_t(rule));
  for (NodeIndex n : m.nodes) h = hash_combine(h, uint64_t(int64_t(n)));
  for (ClassId c : m.variables) h = hash_combine(h, uint64_t(int64_t(c < 0 ? c : eg.find(c))));
  return h;
}

// The key rules are filed under by their anchor: operator and parameters.
uint64_t anchor_key(OpType op, const OpParams& params) {
  return params_hash(op, params, uint64_t(op) * 0x100000001b3ULL + 17);
}

}  // namespace

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::saturated:
      return "saturated";
    case StopReason::iteration_limit:
      return "iteration limit";
    case StopReason::node_limit:
      return "node limit";
    case StopReason::time_limit:
      return "time limit";
  }
  return "?";
}

namespace {

std::vector<const Pattern*> sources(const std::vector<DirectedRule>& rules) {
  std::vector<const Pattern*> out;
  out.reserve(rules.size());
  for (const DirectedRule& r : rules) out.push_back(&r.source);
  return out;
}

}  // namespace

Runner::Runner(EGraph& eg, const std::vector<DirectedRule>& rules, RunnerLimits limits)
    : eg_(eg),
      rules_(rules),
      limits_(limits),
      any_params_(kNumOpTypes),
      filter_(sources(rules)),
      refusals_(eg) {
  plans_.reserve(rules_.size());
  for (size_t r = 0; r < rules_.size(); ++r) {
    const Pattern& p = rules_[r].source;
    plans_.push_back(plan_ematch(p, limits_.fast_matching));
    const PatternNode& anchor = p.nodes[p.match_order.front()];
    const Filed filed{int(r), filter_.signature(int(r)), p.outputs.size() > 1};
    if (anchor.kind != PatternKind::op || anchor.op == OpType::transpose)
      any_params_[static_cast<int>(anchor.op)].push_back(filed);
    else
      by_anchor_[anchor_key(anchor.op, anchor.params())].push_back(filed);
  }
  origin_.assign(eg_.num_nodes(), -1);
  backoff_.resize(rules_.size());
}

void Runner::back_off(int iteration, std::vector<std::pair<int, EMatch>>& found, RunnerReport& report) {
  if (limits_.match_limit <= 0) return;
  std::unordered_map<int, int64_t> count;
  for (const auto& f : found) ++count[f.first];
  std::vector<bool> over(rules_.size());
  bool any = false;
  for (const auto& [r, n] : count) {
    Backoff& b = backoff_[r];
    if (n <= (int64_t(limits_.match_limit) << std::min(b.bans, 20))) continue;
    b.banned_until = iteration + 1 + (limits_.ban_iterations << std::min(b.bans, 20));
    ++b.bans;
    ++report.bans;
    over[r] = any = true;
  }
  if (any) std::erase_if(found, [&](const auto& f) { return over[f.first]; });
}

bool Runner::any_banned(int iteration) const {
  return std::any_of(backoff_.begin(), backoff_.end(),
                     [&](const Backoff& b) { return b.banned_until > iteration + 1; });
}

// Matches are found on a copy of the e-graph as it stood when the iteration
// began, so applying one (new e-nodes, merges) cannot change what the next
// e-match sees: the applications and their order are those of finding every
// match first and applying them after. Without a match limit each match is
// applied as soon as it is found, and the iteration stops finding matches once
// the node or time limit stops it: at a node limit most matches of the last
// iteration were never applied (alexnet, taso-3: 5.9 million found, 0.33
// million tried before the limit), and finding them was most of the saturation's time.
bool Runner::iterate(int iteration, RunnerReport& report) {
  // The scheduler counts every match first.
  const bool stream = limits_.fast_matching && limits_.match_limit <= 0;
  std::optional<EGraph> copy;
  if (stream) copy = eg_;
  const EGraph& snapshot = stream ? *copy : eg_;
  std::vector<std::pair<int, EMatch>> found;
  std::vector<uint64_t> fresh;
  bool changed = false;
  int64_t seen = 0;
  auto apply = [&](int r, const EMatch& m) {
    if (stopped_) return;
    const uint64_t h = match_hash(eg_, r, m);
    if (seen++ % 64 == 0 && out_of_time()) {
      stopped_ = true, stop_ = StopReason::time_limit;
      return;
    }
    if (std::binary_search(applied_.begin(), applied_.end(), h)) return;
    fresh.push_back(h);
    std::vector<NodeIndex> added;
    const ApplyOutcome outcome =
        apply_at(eg_, rules_[r], m, &added, limits_.fast_matching ? &refusals_ : nullptr);
    origin_.resize(eg_.num_nodes(), -1);
    for (NodeIndex n : added) origin_[n] = r;
    report.not_confirmed += outcome == ApplyOutcome::not_confirmed;
    report.refused_merges += outcome == ApplyOutcome::refused_merge;
    if (outcome == ApplyOutcome::changed) ++report.applications, changed = true;
    if (eg_.num_nodes() >= limits_.max_nodes) stopped_ = true, stop_ = StopReason::node_limit;
  };
  auto try_rules = [&](const std::vector<Filed>& list, NodeIndex a) {
    for (const Filed& f : list) {
      if (stopped_) return;
      const int r = f.rule;
      if ((f.multi && iteration >= limits_.multi_pattern_iterations) || banned(r, iteration) ||
          (limits_.fast_matching && !filter_.accepts(f.signature)))
        continue;
      const DirectedRule& rule = rules_[r];
      ematch_at(snapshot, plans_[r], rule.source, a, [&](const EMatch& m) {
        ++report.matches;
        if (stream)
          apply(r, m);
        else
          found.emplace_back(r, m);
      });
    }
  };
  for (int op = 0; op < kNumOpTypes && !stopped_; ++op) {
    const std::vector<NodeIndex>& anchors = snapshot.nodes_of(OpType(op));  // the distinct e-nodes
    for (size_t i = 0; i < anchors.size() && !stopped_; ++i) {
      const ENode& e = snapshot.node(anchors[i]);
      if (e.is_projection()) continue;
      filter_.reset(snapshot, anchors[i]);
      try_rules(any_params_[op], anchors[i]);
      if (auto it = by_anchor_.find(anchor_key(e.op, e.params)); it != by_anchor_.end())
        try_rules(it->second, anchors[i]);
      if (i % 256 == 0 && out_of_time()) stopped_ = true, stop_ = StopReason::time_limit;
    }
  }
  if (!stream) {
    back_off(iteration, found, report);
    for (const auto& [r, m] : found) apply(r, m);
  }
  applied_.insert(applied_.end(), fresh.begin(), fresh.end());
  std::sort(applied_.begin(), applied_.end());
  changed |= eg_.rebuild() > 0;
  return changed;
}

RunnerReport Runner::run() {
  const auto start = std::chrono::steady_clock::now();
  RunnerReport report;
  eg_.rebuild();
  for (int iteration = 0; !stopped_; ++iteration) {
    if (iteration >= limits_.max_iterations) {
      stop_ = StopReason::iteration_limit;
      break;
    }
    if (out_of_time()) {
      stop_ = StopReason::time_limit;
      break;
    }
    const bool changed = iterate(iteration, report);
    report.iterations = iteration + 1;
    if (!changed && !stopped_) {
      // Saturated but for banned rules: as egg does, let them match again at once.
      if (any_banned(iteration)) {
        for (Backoff& b : backoff_) b.banned_until = std::min(b.banned_until, iteration + 1);
        continue;
      }
      stop_ = StopReason::saturated;
      break;
    }
  }
  report.stop = stop_;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace superopt::egraph
