// superopt.optimize's compiled half: the search of search/search.h run as
// `superopt optimize` runs it (the rules' operator set checked against the
// model, the cost model by its spec, the time limit counted from the call),
// reporting what `optimize --json` prints.
//
// Ctrl-C: the search runs on a thread of its own while the caller's thread,
// without the GIL, looks at Python's signals every 50 ms. On Ctrl-C it sets
// the search's stop flag (SearchOptions::stop_requested, looked at where the
// deadline is), joins the thread and raises KeyboardInterrupt: no search is
// left running.
//
// The rule database's usable rules are compiled once (RulesHandle::compiled)
// and reused by every later call with the same database and rule options.
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "python/src/bindings.h"
#include "runtime/core/error.h"
#include "runtime/exec/cost_models.h"
#include "search/end_to_end.h"
#include "search/optimize_report.h"
#include "search/search.h"

namespace superopt::python {
namespace {

namespace py = pybind11;
using Clock = std::chrono::steady_clock;

// What the search thread reads and writes.
struct SearchJob {
  std::shared_ptr<GraphHandle> model;
  std::shared_ptr<RulesHandle> rules;
  std::unique_ptr<CostModel> cost;
  std::atomic<bool> stop{false};  // set on Ctrl-C: SearchOptions::stop_requested
  SearchOptions options;
  int e2e_rounds = 0;  // end-to-end timing of the result, as `optimize` does (0: off)
  std::optional<int> e2e_threads;
  OptimizeResult result;
  std::optional<EndToEndDecision> e2e;
  std::exception_ptr error;
};

// The database's usable rules for these options, compiled on first use;
// `compile_seconds` is what compiling took (0 when they were there).
std::shared_ptr<const UsableRules> compiled_rules(RulesHandle& rules, const SearchOptions& options,
                                                  double& compile_seconds) {
  std::lock_guard<std::mutex> lock(rules.compiled_mutex);
  auto& slot = rules.compiled[{options.allow_unverified, options.minimal_rules}];
  const auto start = Clock::now();
  if (!slot) slot = compile_usable_rules(rules.db->rules, options);
  compile_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return slot;
}

// The search (and the end-to-end timing of its result), on the worker thread.
void run_job(SearchJob& job) {
  double compile_seconds = 0;
  job.options.compiled_rules = compiled_rules(*job.rules, job.options, compile_seconds);
  job.result = optimize(job.model->graph, job.rules->db->rules, *job.cost, job.options);
  job.result.phase_seconds.preprocess += compile_seconds;
  if (job.e2e_rounds > 0 && job.result.check.passed && !job.stop) {  // only what passed the check is timed
    EndToEndOptions e2e_options;
    e2e_options.rounds = job.e2e_rounds;
    e2e_options.threads = *job.e2e_threads;
    job.e2e = accept_end_to_end(job.model->graph, job.result, job.options, e2e_options);
  }
}

// Runs the job on its own thread; true when it finished, false when Python's
// signal handlers raised (Ctrl-C): then the search was stopped and joined,
// and the Python error is set.
bool run_interruptibly(const std::shared_ptr<SearchJob>& job) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread worker([job, done = std::move(done)]() mutable {
    try {
      run_job(*job);
    } catch (...) {
      job->error = std::current_exception();
    }
    done.set_value();
  });
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    while (finished.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        break;
      }
    }
    if (interrupted) job->stop = true;  // the search stops at its next look at the deadline
    worker.join();
  }
  return !interrupted;
}

struct OptimizeArgs {
  std::string cost = "analytic:h100", search = "backtracking";
  double time_limit_s = 60, alpha = 1.05;
  int64_t budget = 1000;
  int split_threshold = 30, max_suspects = 3;
  uint64_t seed = 1;
  bool minimal_rules = false, allow_unverified = false;
  int e2e_rounds = -1;  // -1: as `optimize` without --e2e-rounds (on with a CPU cost model)
};

py::tuple optimize_graph(const std::shared_ptr<GraphHandle>& model, const std::shared_ptr<RulesHandle>& rules,
                         const OptimizeArgs& a) {
  auto job = std::make_shared<SearchJob>();
  SearchOptions& o = job->options;
  o.started = Clock::now();  // the time limit counts from the call, as the command's from its start
  o.stop_requested = &job->stop;
  o.search = parse_search_kind(a.search);
  if (!(a.time_limit_s >= 0.001 && a.time_limit_s <= 1e7))
    throw Error("time_limit: expected a number of seconds from 0.001 to 1e7, got " +
                std::to_string(a.time_limit_s));
  if (!(a.alpha >= 1 && a.alpha <= 1000))
    throw Error("alpha: expected a number from 1 to 1000, got " + std::to_string(a.alpha));
  if (a.budget < 1) throw Error("budget: expected a positive number, got " + std::to_string(a.budget));
  if (a.split_threshold < 0 || a.max_suspects < 0)
    throw Error("split_threshold and max_suspects: expected numbers >= 0");
  o.time_limit_s = a.time_limit_s;
  o.alpha = a.alpha;
  o.budget = a.budget;
  o.split_threshold = a.split_threshold;
  o.max_suspects = a.max_suspects;
  o.seed = a.seed;
  o.minimal_rules = a.minimal_rules;
  o.allow_unverified = a.allow_unverified;
  job->model = model;
  job->rules = rules;
  check_rules_fit_model(*rules->db, model->graph, rules->path);
  job->cost = make_cost_model(a.cost);
  if (a.e2e_rounds < -1)
    throw Error("e2e_rounds: expected a number >= 0, got " + std::to_string(a.e2e_rounds));
  job->e2e_threads = end_to_end_threads(a.cost);
  job->e2e_rounds = end_to_end_rounds(a.e2e_rounds, job->e2e_threads, a.cost);
  const double load_seconds = std::chrono::duration<double>(Clock::now() - o.started).count();
  if (!run_interruptibly(job)) throw py::error_already_set();
  if (job->error) std::rethrow_exception(job->error);
  job->result.phase_seconds.load = load_seconds;
  OptimizeRequest request{model->source, "", o, model->graph.num_operators(), false};
  std::string report =
      optimize_result_json(request, job->result, *job->cost, job->e2e ? &*job->e2e : nullptr).dump();
  auto optimized = std::make_shared<GraphHandle>(GraphHandle{
      model->name, std::move(job->result.graph), model->output_names, model->source + " (optimized)"});
  return py::make_tuple(optimized, report);
}

}  // namespace

void bind_optimize(py::module_& m) {
  m.def(
      "optimize",
      [](const std::shared_ptr<GraphHandle>& model, const std::shared_ptr<RulesHandle>& rules,
         const std::string& cost, const std::string& search, double time_limit_s, bool minimal_rules,
         double alpha, int64_t budget, int split_threshold, int max_suspects, uint64_t seed,
         bool allow_unverified, int e2e_rounds) {
        OptimizeArgs a{cost,          search,           time_limit_s, alpha,
                       budget,        split_threshold,  max_suspects, seed,
                       minimal_rules, allow_unverified, e2e_rounds};
        return optimize_graph(model, rules, a);
      },
      py::arg("model"), py::arg("rules"), py::arg("cost"), py::arg("search"), py::arg("time_limit"),
      py::arg("minimal_rules"), py::arg("alpha"), py::arg("budget"), py::arg("split_threshold"),
      py::arg("max_suspects"), py::arg("seed"), py::arg("allow_unverified"), py::arg("e2e_rounds"));
}

}  // namespace superopt::python
