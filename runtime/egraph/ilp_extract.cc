// The extraction ILP built column by column and handed to CBC's C interface.
#include "runtime/egraph/ilp_extract.h"

#include <Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

namespace superopt::egraph {
namespace {

// The classes reachable from the roots through any e-node, in the order found.
std::vector<ClassId> reachable_classes(const EGraph& eg, const std::vector<ClassId>& roots) {
  std::vector<char> seen(size_t(eg.num_nodes()) + 1, 0);
  std::vector<ClassId> order, stack;
  for (ClassId r : roots) stack.push_back(eg.find(r));
  while (!stack.empty()) {
    ClassId c = stack.back();
    stack.pop_back();
    if (seen[c]) continue;
    seen[c] = 1;
    order.push_back(c);
    for (NodeIndex n : eg.eclass(c).nodes)
      for (ClassId child : eg.node(n).children) stack.push_back(eg.find(child));
  }
  return order;
}

// The classes the outputs reach through a choice.
std::vector<char> chosen_classes(const EGraph& eg, const std::vector<ClassId>& roots,
                                 const std::vector<NodeIndex>& choice) {
  std::vector<char> used(choice.size(), 0);
  std::vector<ClassId> stack;
  for (ClassId r : roots) stack.push_back(eg.find(r));
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (used[c] || choice[c] < 0) continue;
    used[c] = 1;
    for (ClassId child : eg.node(choice[c]).children) stack.push_back(eg.find(child));
  }
  return used;
}

// The strongly connected components of the class graph (an edge from a class
// to each child class of each of its e-nodes), by Tarjan's algorithm without
// recursion: comp[c] is c's component, size[comp] its size. Only e-nodes
// whose class and child share a component can close a cycle, so only those
// need order constraints, and each component its own big M.
struct Components {
  std::vector<int> comp, size;
};

Components class_components(const EGraph& eg, const std::vector<ClassId>& classes) {
  const size_t n = size_t(eg.num_nodes()) + 1;
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<char> on_stack(n, 0);
  Components out;
  out.comp.assign(n, -1);
  std::vector<ClassId> scc_stack;
  int next = 0;
  auto children_of = [&](ClassId c) {
    std::vector<ClassId> ch;
    for (NodeIndex k : eg.eclass(c).nodes)
      for (ClassId h : eg.node(k).children) ch.push_back(eg.find(h));
    return ch;
  };
  struct Frame {
    ClassId c;
    std::vector<ClassId> children;
    size_t next_child = 0;
  };
  for (ClassId root : classes) {
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

struct ModelDeleter {
  void operator()(Cbc_Model* m) const { Cbc_deleteModel(m); }
};

}  // namespace

IlpResult ilp_extract(const EGraph& eg, const std::vector<double>& cost_ms, const std::vector<ClassId>& roots,
                      const Extraction& warm_start, double time_limit_s, int max_nodes) {
  const auto start = std::chrono::steady_clock::now();
  IlpResult result;
  result.extraction = warm_start;
  const std::vector<ClassId> classes = reachable_classes(eg, roots);
  int reachable_nodes = 0;
  for (ClassId c : classes) reachable_nodes += int(eg.eclass(c).nodes.size());
  if (reachable_nodes > max_nodes) {
    result.status = "too large: greedy kept";
    result.variables = reachable_nodes + int(classes.size());
    result.objective_ms = result.bound_ms = warm_start.cost_ms;
    return result;
  }
  const Components components = class_components(eg, classes);
  std::vector<int> node_col(size_t(eg.num_nodes()), -1), class_col(size_t(eg.num_nodes()) + 1, -1);
  std::unique_ptr<Cbc_Model, ModelDeleter> model(Cbc_newModel());
  Cbc_Model* m = model.get();
  Cbc_setLogLevel(m, getenv("SUPEROPT_CBC_LOG") ? 1 : 0);
  int cols = 0;
  // The e-nodes' binaries first, then the classes' orders: CBC 2.10's MIP
  // start is read by position from column 0, whatever the indices passed.
  for (ClassId c : classes) {
    for (NodeIndex n : eg.eclass(c).nodes) {
      const bool usable = std::isfinite(cost_ms[n]);
      Cbc_addCol(m, "", 0, usable ? 1 : 0, usable ? cost_ms[n] : 0, 1, 0, nullptr, nullptr);
      node_col[n] = cols++;
    }
  }
  for (ClassId c : classes) {
    const int scc_size = components.size[components.comp[c]];
    if (scc_size == 1) continue;                                    // on no cycle: needs no place in an order
    Cbc_addCol(m, "", 0, scc_size - 1, 0, 0, 0, nullptr, nullptr);  // its place in its component's order
    class_col[c] = cols++;
  }
  int rows = 0;
  for (ClassId r : roots) {  // each output computed
    std::vector<int> idx;
    for (NodeIndex n : eg.eclass(r).nodes) idx.push_back(node_col[n]);
    std::vector<double> ones(idx.size(), 1.0);
    Cbc_addRow(m, "", int(idx.size()), idx.data(), ones.data(), 'G', 1.0);
    ++rows;
  }
  for (ClassId c : classes) {
    for (NodeIndex n : eg.eclass(c).nodes) {
      std::vector<ClassId> children;
      for (ClassId child : eg.node(n).children) children.push_back(eg.find(child));
      std::sort(children.begin(), children.end());
      children.erase(std::unique(children.begin(), children.end()), children.end());
      for (ClassId h : children) {
        // A chosen e-node's child class has a chosen e-node: sum(x_h) - x_n >= 0.
        std::vector<int> idx{node_col[n]};
        std::vector<double> val{-1.0};
        for (NodeIndex k : eg.eclass(h).nodes) idx.push_back(node_col[k]), val.push_back(1.0);
        Cbc_addRow(m, "", int(idx.size()), idx.data(), val.data(), 'G', 0.0);
        if (h == c) {
          int one[1] = {node_col[n]};
          double v[1] = {1.0};
          Cbc_addRow(m, "", 1, one, v, 'L', 0.0);  // an e-node reading its own class
          ++rows;
        } else if (components.comp[h] == components.comp[c]) {
          // Acyclic: t_c - t_h - M x_n >= 1 - M (t_c > t_h where n is chosen),
          // M the component's size (|t_c - t_h| < M).
          const double big_m = components.size[components.comp[c]];
          int oidx[3] = {class_col[c], class_col[h], node_col[n]};
          double oval[3] = {1.0, -1.0, -big_m};
          Cbc_addRow(m, "", 3, oidx, oval, 'G', 1.0 - big_m);
          ++rows;
        }
        ++rows;
      }
    }
  }
  result.variables = cols;
  result.constraints = rows;
  // The warm start is the greedy graph: the choices the outputs reach (a class
  // it does not reach may have a cyclic greedy choice, which is infeasible).
  const std::vector<char> used = chosen_classes(eg, roots, warm_start.choice);
  std::vector<int> start_cols;
  std::vector<double> start_vals;
  // Only the binaries, in column order: CBC finds the orders by an LP with them fixed.
  for (ClassId c : classes) {
    for (NodeIndex n : eg.eclass(c).nodes) {
      start_cols.push_back(node_col[n]);
      start_vals.push_back(used[c] && warm_start.choice[c] == n ? 1.0 : 0.0);
    }
  }
  Cbc_setMIPStartI(m, int(start_cols.size()), start_cols.data(), start_vals.data());
  Cbc_setMaximumSeconds(m, std::max(0.05, time_limit_s));
  Cbc_setParameter(m, "timeMode", "elapsed");  // the wall clock, as the search's time limit
  Cbc_setParameter(m, "preprocess", "off");
  Cbc_solve(m);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.optimal = Cbc_isProvenOptimal(m);
  const double* x = Cbc_numberSavedSolutions(m) > 0 || result.optimal ? Cbc_getColSolution(m) : nullptr;
  if (!x) {
    result.status = "no solution: greedy kept";
    result.objective_ms = result.bound_ms = warm_start.cost_ms;
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
  for (ClassId c : classes)
    for (NodeIndex n : eg.eclass(c).nodes)
      if (out.choice[c] < 0 && x[node_col[n]] > 0.5) out.choice[c] = n;
  out.cost_ms = choice_cost_ms(eg, cost_ms, roots, out.choice);
  return result;
}

}  // namespace superopt::egraph
