// The extraction ILP over the reduced problem (ilp_problem.h), built column by
// column and handed to CBC's C interface with a complete warm start.
#include "runtime/egraph/ilp_extract.h"

#include <Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>

#include "runtime/egraph/ilp_needs.h"
#include "runtime/egraph/ilp_problem.h"

namespace superopt::egraph {
namespace {

// The strongly connected components of the problem's class graph (an edge
// from a class to each child class of each of its e-nodes left), by Tarjan's
// algorithm without recursion: comp[c] is c's component, size[comp] its size.
// Only e-nodes whose class and child share a component can close a cycle, so
// only those need order constraints, and each component its own big M.
struct Components {
  std::vector<int> comp, size;
};

Components class_components(const IlpProblem& p) {
  const size_t n = p.index.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<char> on_stack(n, 0);
  Components out;
  out.comp.assign(n, -1);
  std::vector<ClassId> scc_stack;
  int next = 0;
  auto children_of = [&](ClassId c) {
    std::vector<ClassId> ch;
    for (NodeIndex k : p.nodes[size_t(p.index[c])])
      for (ClassId h : p.children[k]) ch.push_back(h);
    return ch;
  };
  struct Frame {
    ClassId c;
    std::vector<ClassId> children;
    size_t next_child = 0;
  };
  for (ClassId root : p.classes) {
    if (index[root] >= 0) continue;
    std::vector<Frame> frames{{root, children_of(root)}};
    index[root] = low[root] = next++;
    scc_stack.push_back(root), on_stack[root] = 1;
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.next_child < f.children.size()) {
        const ClassId h = f.children[f.next_child++];
        if (index[h] < 0) {
          index[h] = low[h] = next++;
          scc_stack.push_back(h), on_stack[h] = 1;
          frames.push_back({h, children_of(h)});
        } else if (on_stack[h]) {
          low[f.c] = std::min(low[f.c], index[h]);
        }
        continue;
      }
      const ClassId c = f.c;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().c] = std::min(low[frames.back().c], low[c]);
      if (low[c] != index[c]) continue;
      const int id = int(out.size.size());
      out.size.push_back(0);
      for (ClassId k = -1; k != c;) {
        k = scc_stack.back();
        scc_stack.pop_back(), on_stack[k] = 0;
        out.comp[k] = id, ++out.size[id];
      }
    }
  }
  return out;
}

// Each chosen class's place in its component's order: children before
// parents (a post-order of the choice from the roots), counted per component.
std::vector<int> chosen_order(const EGraph& eg, const IlpProblem& p, const Components& comps,
                              const std::vector<ClassId>& roots, const std::vector<NodeIndex>& choice) {
  std::vector<int> place(p.index.size(), 0), next_in(comps.size.size(), 0);
  std::vector<char> seen(p.index.size(), 0);
  struct Frame {
    ClassId c;
    size_t next;
  };
  for (ClassId r : roots) {
    const ClassId root = eg.find(r);
    if (seen[root] || p.index[root] < 0) continue;
    seen[root] = 1;
    std::vector<Frame> frames{{root, 0}};
    while (!frames.empty()) {
      Frame& f = frames.back();
      const std::vector<ClassId>& ch = p.children[choice[f.c]];
      if (f.next == ch.size()) {
        const int comp = comps.comp[f.c];
        place[f.c] = next_in[comp]++;
        frames.pop_back();
        continue;
      }
      const ClassId h = ch[f.next++];
      if (seen[h]) continue;
      seen[h] = 1;
      frames.push_back({h, 0});
    }
  }
  return place;
}

struct ModelDeleter {
  void operator()(Cbc_Model* m) const { Cbc_deleteModel(m); }
};

}  // namespace

IlpResult ilp_extract(const EGraph& eg, const std::vector<double>& cost_ms, const std::vector<ClassId>& roots,
                      const Extraction& warm_start, double time_limit_s, int max_nodes, bool filter) {
  const auto start = std::chrono::steady_clock::now();
  IlpResult result;
  result.extraction = warm_start;
  result.objective_ms = result.bound_ms = warm_start.cost_ms;
  const IlpProblem p = reduce_extraction(eg, cost_ms, roots, warm_start.choice, filter);
  result.reachable_nodes = p.reachable_nodes;
  result.nodes = p.nodes_left;
  result.classes = int(p.classes.size());
  const std::vector<NodeIndex> start_choice = carry_choice(eg, p, roots, warm_start.choice);
  if (!p.feasible) {
    result.status = "no solution: greedy kept";
    return result;
  }
  if (p.nodes_left > max_nodes) {
    result.status = "too large: greedy kept";
    result.variables = p.nodes_left + int(p.classes.size());
    return result;
  }
  const Components components = class_components(p);
  // The model as a column-major matrix, loaded at once (adding 26,000 rows
  // one by one took CBC 10 s on nasrnn): the e-nodes' binaries first, then
  // the classes' orders.
  std::vector<int> node_col(size_t(eg.num_nodes()), -1), class_col(p.index.size(), -1);
  std::vector<double> col_lb, col_ub, obj;
  for (size_t i = 0; i < p.classes.size(); ++i)
    for (NodeIndex n : p.nodes[i]) {
      node_col[n] = int(obj.size());
      col_lb.push_back(0), col_ub.push_back(1), obj.push_back(cost_ms[n]);
    }
  const int binaries = int(obj.size());
  for (ClassId c : p.classes) {
    const int scc_size = components.size[components.comp[c]];
    if (scc_size == 1) continue;  // on no cycle: needs no place in an order
    class_col[c] = int(obj.size());
    col_lb.push_back(0), col_ub.push_back(scc_size - 1),
        obj.push_back(0);  // its place in its component's order
  }
  const int cols = int(obj.size());
  struct Entry {
    int col, row;
    double value;
  };
  std::vector<Entry> entries;
  std::vector<double> row_lb, row_ub;
  constexpr double kInf = std::numeric_limits<double>::max();  // COIN's infinity
  auto new_row = [&](double lb, double ub) {
    row_lb.push_back(lb), row_ub.push_back(ub);
    return int(row_lb.size()) - 1;
  };
  std::vector<char> root_done(p.index.size(), 0);
  for (ClassId r : roots) {  // each output computed (constants always are)
    const ClassId c = eg.find(r);
    if (p.index[c] < 0 || root_done[c]) continue;
    root_done[c] = 1;
    const int row = new_row(1.0, kInf);
    for (NodeIndex n : p.nodes[size_t(p.index[c])]) entries.push_back({node_col[n], row, 1.0});
  }
  // A class has at most one chosen e-node (a second is never needed), and
  // the e-nodes of class c reading class h, together, need h chosen:
  // sum(x_n, n in c reading h) - sum(x_k, k in h) <= 0. That implies
  // Tensat's row per e-node and child (x_n <= sum x_h) in fewer rows; on
  // bert the LP bound is the same (0.065 ms): what tightens it is ilp_needs.h.
  std::vector<std::vector<NodeIndex>> readers(p.index.size());
  std::vector<ClassId> read;
  for (size_t i = 0; i < p.classes.size(); ++i) {
    const ClassId c = p.classes[i];
    if (p.nodes[i].size() > 1) {
      const int row = new_row(-kInf, 1.0);
      for (NodeIndex n : p.nodes[i]) entries.push_back({node_col[n], row, 1.0});
    }
    read.clear();
    for (NodeIndex n : p.nodes[i])
      for (ClassId h : p.children[n]) {
        if (readers[h].empty()) read.push_back(h);
        readers[h].push_back(n);
      }
    for (ClassId h : read) {
      const int row = new_row(-kInf, 0.0);
      for (NodeIndex n : readers[h]) entries.push_back({node_col[n], row, 1.0});
      for (NodeIndex k : p.nodes[size_t(p.index[h])]) entries.push_back({node_col[k], row, -1.0});
      if (components.comp[h] == components.comp[c]) {
        // Acyclic: t_c - t_h - M x_n >= 1 - M (t_c > t_h where n is chosen),
        // M the component's size (|t_c - t_h| < M).
        const double big_m = components.size[components.comp[c]];
        for (NodeIndex n : readers[h]) {
          const int order_row = new_row(1.0 - big_m, kInf);
          entries.push_back({class_col[c], order_row, 1.0});
          entries.push_back({class_col[h], order_row, -1.0});
          entries.push_back({node_col[n], order_row, -big_m});
        }
      }
      readers[h].clear();
    }
  }
  // What every choice of a class needs (ilp_needs.h): the LP bound.
  const std::vector<NeedRow> needs = implied_needs(p);
  for (const NeedRow& nr : needs) {
    const int row = new_row(-kInf, 0.0);
    for (NodeIndex n : p.nodes[size_t(p.index[nr.cls])]) entries.push_back({node_col[n], row, 1.0});
    for (NodeIndex k : p.nodes[size_t(p.index[nr.needed])]) entries.push_back({node_col[k], row, -1.0});
  }
  const int rows = int(row_lb.size());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.col < b.col; });
  std::vector<CoinBigIndex> starts(size_t(cols) + 1, 0);
  std::vector<int> row_index;
  std::vector<double> values;
  for (const Entry& e : entries)
    ++starts[size_t(e.col) + 1], row_index.push_back(e.row), values.push_back(e.value);
  for (int k = 0; k < cols; ++k) starts[size_t(k) + 1] += starts[size_t(k)];
  std::unique_ptr<Cbc_Model, ModelDeleter> model(Cbc_newModel());
  Cbc_Model* m = model.get();
  Cbc_setLogLevel(m, getenv("SUPEROPT_CBC_LOG") ? 1 : 0);
  Cbc_loadProblem(m, cols, rows, starts.data(), row_index.data(), values.data(), col_lb.data(), col_ub.data(),
                  obj.data(), row_lb.data(), row_ub.data());
  // Every column named, and uniquely: CBC 2.10 matches a MIP start to the
  // columns by name (Cbc_setMIPStartI looks the names up), and with every
  // name "" it read each value into one column and rejected the start
  // ("mipstart values could not be used").
  char name[32];
  for (int k = 0; k < cols; ++k) {
    snprintf(name, sizeof name, "%c%d", k < binaries ? 'x' : 't', k);
    Cbc_setColName(m, k, name);
    if (k < binaries) Cbc_setInteger(m, k);
  }
  result.variables = cols;
  result.constraints = rows;
  // The warm start, every column given (binaries and orders), so that CBC
  // need not complete it.
  if (!start_choice.empty()) {
    const std::vector<int> place = chosen_order(eg, p, components, roots, start_choice);
    std::vector<int> start_cols(static_cast<size_t>(cols));
    std::vector<double> start_vals(static_cast<size_t>(cols), 0.0);
    for (int k = 0; k < cols; ++k) start_cols[size_t(k)] = k;
    for (size_t i = 0; i < p.classes.size(); ++i) {
      const ClassId c = p.classes[i];
      if (start_choice[c] >= 0) start_vals[size_t(node_col[start_choice[c]])] = 1.0;
      if (class_col[c] >= 0) start_vals[size_t(class_col[c])] = start_choice[c] >= 0 ? place[c] : 0;
    }
    Cbc_setMIPStartI(m, cols, start_cols.data(), start_vals.data());
  }
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Cbc_setMaximumSeconds(m, std::max(0.05, time_limit_s - build_s));
  Cbc_setParameter(m, "timeMode", "elapsed");  // the wall clock, as the search's time limit
  Cbc_setParameter(m, "preprocess", "off");    // on: no better bound on bert, and slower
  // CLP 1.17's LP presolve crashed (SIGSEGV in ClpPresolve under
  // Idiot::crossOver, from CbcModel::initialSolve) on alexnet, squeezenet,
  // resnet18, resnet34 and resnext50's problems; "idiotCrash 0" alone did not
  // avoid it, "presolve off" does (our reductions did the presolving).
  Cbc_setParameter(m, "idiotCrash", "0");
  Cbc_setParameter(m, "presolve", "off");
  Cbc_solve(m);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.optimal = Cbc_isProvenOptimal(m);
  const double* x = Cbc_numberSavedSolutions(m) > 0 || result.optimal ? Cbc_getColSolution(m) : nullptr;
  if (!x) {
    result.status = "no solution: greedy kept";
    return result;
  }
  result.solved = true;
  result.objective_ms = Cbc_getObjValue(m);
  result.bound_ms = result.optimal ? result.objective_ms : Cbc_getBestPossibleObjValue(m);
  result.gap = result.objective_ms > 0
                   ? std::max(0.0, (result.objective_ms - result.bound_ms) / result.objective_ms)
                   : 0;
  result.status = result.optimal ? "optimal" : "time limit";
  Extraction& out = result.extraction;
  out.choice.assign(warm_start.choice.size(), -1);
  for (ClassId c = 0; c < ClassId(out.choice.size()); ++c)
    if (p.constant[c] >= 0) out.choice[c] = p.constant[c];
  for (size_t i = 0; i < p.classes.size(); ++i)
    for (NodeIndex n : p.nodes[i])
      if (out.choice[p.classes[i]] < 0 && x[node_col[n]] > 0.5) out.choice[p.classes[i]] = n;
  out.cost_ms = choice_cost_ms(eg, cost_ms, roots, out.choice);
  return result;
}

}  // namespace superopt::egraph
