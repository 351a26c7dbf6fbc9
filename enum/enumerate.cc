// The distributed generation pipeline: enumerate work units, shard records by
// fingerprint, pair classes on their owners (from memory or from spilled
// sorted runs), prune and write on rank 0.
#include "enum/enumerate.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unordered_set>

#include "enum/candidates.h"
#include "enum/checkpoint.h"
#include "enum/generator.h"
#include "enum/opset.h"
#include "enum/owner_pairing.h"
#include "enum/pair_filter.h"
#include "enum/progress.h"
#include "enum/record_store.h"
#include "enum/representatives.h"
#include "enum/shard_exchange.h"
#include "runtime/core/error.h"
#include "runtime/core/hashing.h"
#include "runtime/core/writer_lock.h"
#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"

namespace superopt::enumeration {
namespace {

constexpr const char* kGeneratorVersion = "superopt-enum 2";  // 2: classes up to renaming
constexpr int kPollEvery = 256;                               // graphs between looks at the message queue
constexpr size_t kMaxBatchBytes = size_t{1} << 20;            // records per message, at most
constexpr size_t kMinBatchBytes = size_t{16} << 10;  // below this, messages cost more than they carry

int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// Every rank checks the same things, so every rank fails alike.
void check_output(const EnumerateOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(o.out_path, ec) && !o.force) throw Error(o.out_path + " exists (use --force to replace it)");
  fs::path dir = fs::path(o.out_path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw Error("cannot write " + o.out_path + ": no directory " + dir.string());
  if (access(dir.c_str(), W_OK) != 0) throw Error("cannot write " + o.out_path + ": " + std::strerror(errno));
}

// How a rank splits --memory-per-rank: half for owned records and their sort
// index, an eighth for the outboxes (one batch per other rank), a quarter for
// sends in flight (two batches per rank) and an eighth for a received batch.
// With --two-pass the first pass's filter takes half of the records' share.
struct MemoryPlan {
  size_t batch_bytes = kMaxBatchBytes;
  size_t max_pending_sends = 64;
  int64_t store_bytes = 0;                   // 0: unbounded
  int64_t filter_bytes = int64_t{64} << 20;  // --two-pass without a bound: 2^28 slots
};

MemoryPlan plan_memory(int64_t memory_per_rank_bytes, int ranks, bool two_pass) {
  MemoryPlan plan;
  if (memory_per_rank_bytes <= 0) return plan;
  int64_t least = static_cast<int64_t>(8 * kMinBatchBytes) * ranks;
  if (memory_per_rank_bytes < least)
    throw Error("--memory-per-rank " + std::to_string(memory_per_rank_bytes) +
                " is below what one batch of records needs on " + std::to_string(ranks) + " rank" +
                (ranks == 1 ? "" : "s") + " (at least " + std::to_string(least) + " bytes)");
  plan.batch_bytes = std::min<size_t>(kMaxBatchBytes, memory_per_rank_bytes / (8 * ranks));
  plan.max_pending_sends = 2 * static_cast<size_t>(ranks);
  plan.store_bytes = memory_per_rank_bytes / (two_pass ? 4 : 2);
  plan.filter_bytes = memory_per_rank_bytes / 4;
  return plan;
}

// What identifies a run for its checkpoints: the same opset, limits, seed and
// sample (the memory bound changes where records wait, not which).
std::string run_description(const Opset& opset, const EnumerateOptions& o) {
  std::string text =
      "opset " + opset.name + ", max-ops " + std::to_string(o.max_ops) + ", seed " + std::to_string(o.seed);
  if (o.sample_fraction < 1) text += ", sample-units " + std::to_string(o.sample_fraction);
  if (o.representatives_only) text += ", representatives-only";
  if (o.two_pass) text += ", two-pass";
  return text;
}
uint64_t run_key(const Opset& opset, const EnumerateOptions& o) {
  uint64_t h = hash_string(opset.text, 0x7a5c);
  h = hash_combine(hash_combine(h, static_cast<uint64_t>(o.max_ops)), o.seed);
  if (o.sample_fraction < 1) h = hash_string(std::to_string(o.sample_fraction), h);
  if (o.representatives_only) h = hash_combine(h, 0x4e9);
  if (o.two_pass) h = hash_combine(h, 0x2a55);
  return hash_string(kGeneratorVersion, h);
}

// Whether unit `u` is in the sample: a hash of the unit and the seed alone,
// so every rank, on any rank count, picks the same units.
bool in_sample(int64_t u, double fraction, uint64_t seed) {
  if (fraction >= 1) return true;
  double draw = static_cast<double>(hash_combine(hash_combine(0x5a3b1e, seed), static_cast<uint64_t>(u)));
  return draw < fraction * 18446744073709551616.0;  // 2^64
}

// The sampled work units no earlier attempt finished (the same list on every rank).
std::vector<int64_t> units_to_do(const std::vector<int64_t>& sample, const CheckpointLog* log,
                                 const MpiWorld& world) {
  std::unordered_set<int64_t> done;
  if (log)
    for (int64_t u : world.all_gather(log->done_units())) done.insert(u);
  std::vector<int64_t> todo;
  for (int64_t u : sample)
    if (!done.count(u)) todo.push_back(u);
  return todo;
}

// Test hooks: SUPEROPT_TEST_EXIT_AFTER_UNITS=N makes rank 0 die abruptly
// after logging N units, as a killed job would; _AFTER_CLASSES=N after
// pairing N classes (with spilled runs: in the middle of their merge).
int64_t test_exit_after(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoll(v) : -1;
}

void append_u64(std::string& out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}

// A unit's checkpoint entry: its graph count (8 bytes), then its records; a
// graph may send more than one record (GeneratedGraph::aligned).
std::string checkpoint_entry(uint64_t graphs, const std::string& records) {
  std::string entry;
  append_u64(entry, graphs);
  return entry + records;
}

// Runs the work units this rank is given, sending each graph's aligned codes
// to the owner of its class key and logging each finished unit; with
// `keys_only` (the first of two passes) the codes are left out.
void generate(Generator& generator, const std::vector<GraphCode>& units, int depth, ShardExchange& exchange,
              CheckpointLog* log, int64_t exit_after, bool keys_only = false) {
  std::string bytes, unit_records;
  uint64_t visited = 0;
  int64_t logged = 0;
  for (int64_t u; (u = exchange.next_unit(generator.counts().graphs)) >= 0;) {
    unit_records.clear();
    uint64_t graphs_before = generator.counts().graphs;
    generator.run_unit(units[u], depth, [&](const GeneratedGraph& g) {
      for (const GraphCode& aligned : g.aligned) {
        bytes.clear();
        if (!keys_only) aligned.append_bytes(bytes);
        exchange.send(g.class_key, bytes);
        if (log) append_record(unit_records, g.class_key, bytes);
      }
      if (++visited % kPollEvery == 0) exchange.poll(generator.counts().graphs);
    });
    if (log) log->append(u, checkpoint_entry(generator.counts().graphs - graphs_before, unit_records));
    if (++logged == exit_after) std::_Exit(137);
  }
  exchange.finish();
}

bool rule_less(const CandidateRule& a, const CandidateRule& b) {
  if (a.fingerprint != b.fingerprint) return a.fingerprint < b.fingerprint;
  if (!(a.target == b.target)) return code_less(a.target, b.target);
  return code_less(a.source, b.source);
}

RuleSetInfo rule_set_info(const Opset& opset, const EnumerateOptions& o, const EnumerateSummary& summary) {
  RuleSetInfo info;
  info.generator_version = kGeneratorVersion;
  info.opset_name = opset.name;
  info.opset_json = opset.text;
  info.max_ops = o.max_ops;
  info.seed = o.seed;
  info.arguments = o.arguments;
  info.stage_counts = summary.stages;
  return info;
}

// The rules stay codes until the writer asks for each: as Graphs, every rule
// at once took gigabytes at 4 operators (the run's peak).
void write_database(const std::vector<CandidateRule>& rules, const Opset& opset, const EnumerateOptions& o,
                    const EnumerateSummary& summary) {
  PhaseProgress progress("write", "rules", true);
  // A database replaced (--force) waits for a verify or derive writing it.
  std::unique_ptr<WriterLock> lock = lock_existing(o.out_path);
  write_rule_database(
      o.out_path, rule_set_info(opset, o, summary), rules.size(),
      [&](size_t k, Rule& rule) {
        const CandidateRule& r = rules[k];
        rule.source = code_to_graph(r.source, opset, &r.source_outputs);
        rule.target = code_to_graph(r.target, opset, &r.target_outputs);
        rule.fingerprint = r.fingerprint;
      },
      [&](size_t done) { progress(done, rules.size()); });
}

// The number of distinct renaming keys among `keys` (8 bytes each), which it empties.
int64_t distinct_keys(std::string& keys) {
  std::vector<uint64_t> sorted(keys.size() / 8);
  std::memcpy(sorted.data(), keys.data(), sorted.size() * 8);
  std::string().swap(keys);
  std::sort(sorted.begin(), sorted.end());
  return std::unique(sorted.begin(), sorted.end()) - sorted.begin();
}

// Rank 0: counts the stages, keeps the first rule of each renaming key in
// canonical order, and writes the database. Takes `all` apart as it goes.
void write_rules(OwnedRules& all, const Opset& opset, const EnumerateOptions& o, EnumerateSummary& s) {
  PhaseProgress("prune", "", true)
      .say("renaming stage over " + std::to_string(all.keys.size() / 8) + " candidates and " +
           std::to_string(all.survivors.size()) + " bytes of surviving rules");
  int64_t candidates = static_cast<int64_t>(all.keys.size() / 8);
  int64_t distinct = distinct_keys(all.keys);
  std::vector<KeyedRule> kept = read_rules(all.survivors, opset);
  std::string().swap(all.survivors);
  std::sort(kept.begin(), kept.end(),
            [](const KeyedRule& a, const KeyedRule& b) { return rule_less(a.rule, b.rule); });
  std::vector<CandidateRule> rules;
  std::unordered_set<uint64_t> seen;
  for (KeyedRule& k : kept)
    if (seen.insert(k.key).second) rules.push_back(std::move(k.rule));
  std::vector<KeyedRule>().swap(kept);
  s.stages = {{"candidates", candidates},
              {"after_input_renaming", distinct},
              {"after_common_subgraphs", static_cast<int64_t>(rules.size())}};
  write_database(rules, opset, o, s);
}

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / 1048576.0);
  return text;
}

// The first of two passes: every sampled unit (also those an earlier attempt
// finished: the filter is not checkpointed) sends its class keys, one per
// aligned code as the second pass sends records, and owners count them.
void count_class_keys(Generator& generator, const std::vector<GraphCode>& units, int depth,
                      const std::vector<int64_t>& sample, const MemoryPlan& plan, PairFilter& filter,
                      int rank) {
  PhaseProgress("pass 1 of 2", "", rank == 0).say("counting class keys");
  ShardExchange exchange(
      sample, EnumerationProgress(static_cast<int64_t>(sample.size()), rank == 0),
      [&](std::string_view records) {
        for_each_record(records, [&](const GraphRecord& r) { filter.add(r.fingerprint); });
      },
      plan.batch_bytes, plan.max_pending_sends);
  generate(generator, units, depth, exchange, nullptr, -1, /*keys_only=*/true);
  PhaseProgress("pass 2 of 2", "", rank == 0).say("enumerating again, keeping the classes seen twice");
}

// This rank's pairing, with rank 0's progress lines and the kill hook.
OwnedRules pair_store(RecordStore& store, const Opset& opset, uint64_t seed, int rank, int ranks) {
  bool merging = store.runs() > 0;
  PhaseProgress progress(merging ? "merge and pair (rank 0's share)" : "pair (rank 0's share)",
                         "record bytes", rank == 0);
  progress.say(merging ? "merging " + std::to_string(store.runs()) + " sorted runs, " +
                             mib(store.spilled_bytes()) + " spilled"
                       : mib(store.record_bytes()) + " of records in memory");
  int64_t exit_after = rank == 0 ? test_exit_after("SUPEROPT_TEST_EXIT_AFTER_CLASSES") : -1;
  int64_t classes = 0;
  OwnedRules owned = pair_owned_classes(store, opset, seed, progress, [&] {
    if (++classes == exit_after) std::_Exit(137);
  });
  progress.say(ranks > 1 ? "done on rank 0; waiting for the other ranks" : "done");
  return owned;
}

}  // namespace
}  // namespace superopt::enumeration
namespace superopt {

EnumerateSummary enumerate_rules(const EnumerateOptions& o) {
  using namespace enumeration;
  Clock::time_point start = Clock::now();
  const MpiWorld world;  // MPI is already running: the command started it
  const int rank = world.rank(), ranks = world.size();
  Opset opset;
  MemoryPlan plan;
  std::unique_ptr<Generator> made;
  std::unique_ptr<CheckpointLog> log;
  std::unique_ptr<RecordStore> store;
  world.on_all_ranks([&] {
    opset = read_opset_file(o.opset_path);
    check_output(o);
    plan = plan_memory(o.memory_per_rank_bytes, ranks, o.two_pass);
    store = std::make_unique<RecordStore>(
        plan.store_bytes, o.scratch_dir.empty() ? o.out_path + ".scratch" : o.scratch_dir, rank);
    made = std::make_unique<Generator>(opset, o.max_ops, o.seed);
    if (!o.checkpoint_dir.empty())
      log = std::make_unique<CheckpointLog>(o.checkpoint_dir, rank, ranks, run_key(opset, o),
                                            run_description(opset, o));
  });
  Generator& generator = *made;
  if (rank == 0)
    store->on_spill([](uint64_t runs, uint64_t bytes, double seconds) {
      std::fprintf(stderr, "spill (rank 0): run %llu sorted and written in %.1f s, %s spilled so far\n",
                   static_cast<unsigned long long>(runs), seconds, mib(bytes).c_str());
    });
  EnumerateSummary s;
  std::shared_ptr<Representatives> representatives;
  if (o.representatives_only) {
    representatives = std::make_shared<Representatives>(opset, o.max_ops, o.seed, world);
    representatives->install(generator);
    s.representative_level_graphs = representatives->graphs();
  }
  int depth = std::min(2, o.max_ops);
  std::vector<GraphCode> units = generator.prefixes(depth);
  units.insert(units.begin(), GraphCode{});  // graphs smaller than the units
  std::vector<int64_t> sample;
  for (int64_t u = 0; u < static_cast<int64_t>(units.size()); ++u)
    if (in_sample(u, o.sample_fraction, o.seed)) sample.push_back(u);
  std::vector<int64_t> todo = units_to_do(sample, log.get(), world);

  s.units = static_cast<int64_t>(units.size());
  s.units_sampled = static_cast<int64_t>(sample.size());
  std::unique_ptr<PairFilter> filter;
  if (o.two_pass) {
    filter = std::make_unique<PairFilter>(plan.filter_bytes);
    Generator first(opset, o.max_ops, o.seed);  // its own counts: the summary counts the second pass
    if (representatives) representatives->install(first);
    count_class_keys(first, units, depth, sample, plan, *filter, rank);
  }
  uint64_t replayed_graphs = 0, replayed_records = 0;  // made by an earlier attempt
  uint64_t filtered_out = 0;
  std::string pairable;
  auto keep = [&](std::string_view records) {
    if (!filter) return store->add(records);
    pairable.clear();
    filtered_out += filter->keep_pairable(records, pairable);
    store->add(pairable);
  };
  ShardExchange exchange(todo, EnumerationProgress(static_cast<int64_t>(todo.size()), rank == 0), keep,
                         plan.batch_bytes, plan.max_pending_sends);
  try {
    if (log)  // records of units finished before a restart go to their owners again
      log->replay([&](std::string_view entry) {
        uint64_t graphs = 0;
        if (entry.size() >= 8) std::memcpy(&graphs, entry.data(), 8);
        replayed_graphs += graphs;
        for_each_record(entry.substr(std::min<size_t>(8, entry.size())), [&](const GraphRecord& r) {
          exchange.send(r.fingerprint, r.code);
          ++replayed_records;
        });
      });
    generate(generator, units, depth, exchange, log.get(),
             rank == 0 ? test_exit_after("SUPEROPT_TEST_EXIT_AFTER_UNITS") : -1);
  } catch (const Error& e) {
    if (ranks == 1) throw;
    // The other ranks wait on this one's messages: only an abort ends them.
    store.reset();
    world.abort("superopt enumerate: " + std::string(e.what()), 2);
  }
  filter.reset();
  int64_t peak_enumerated_bytes = peak_rss_bytes();
  OwnedRules owned;
  world.on_all_ranks([&] { owned = pair_store(*store, opset, o.seed, rank, ranks); });
  OwnedRules all;
  all.keys = world.gather_to_root(owned.keys);
  all.survivors = world.gather_to_root(owned.survivors);
  std::string().swap(owned.keys);  // rank 0 holds them now
  std::string().swap(owned.survivors);
  int64_t peak_paired_bytes = peak_rss_bytes();

  uint64_t my_graphs = generator.counts().graphs + replayed_graphs;
  s.ranks = ranks;
  s.graphs = world.sum_to_root(my_graphs);
  s.max_rank_graphs = world.max_to_root(static_cast<int64_t>(my_graphs));
  s.resumed_graphs = world.sum_to_root(replayed_graphs);
  s.records = world.sum_to_root(generator.counts().aligned + replayed_records);
  s.record_bytes = world.sum_to_root(store->record_bytes());
  s.records_filtered_out = world.sum_to_root(filtered_out);
  s.max_rank_record_bytes = world.max_to_root(static_cast<int64_t>(store->record_bytes()));
  s.renamings = world.sum_to_root(generator.counts().renamings);
  s.classes = world.sum_to_root(owned.classes);
  s.failed_second_test = static_cast<int64_t>(world.sum_to_root(owned.counts.split_by_second_eval));
  s.failed_float_test = static_cast<int64_t>(world.sum_to_root(owned.counts.failed_float_test));
  s.bytes_sent = world.sum_to_root(exchange.bytes_sent());
  s.messages_sent = world.sum_to_root(exchange.messages_sent());
  s.max_messages_sent = world.max_to_root(static_cast<int64_t>(exchange.messages_sent()));
  s.spilled_runs = world.sum_to_root(store->runs_written());
  s.spilled_bytes = world.sum_to_root(store->spilled_bytes());
  s.max_spilled_bytes = world.max_to_root(static_cast<int64_t>(store->spilled_bytes()));
  s.peak_rss_enumerate_bytes = world.max_to_root(peak_enumerated_bytes);
  s.peak_rss_pair_bytes = world.max_to_root(peak_paired_bytes);
  s.peak_rss_bytes = world.max_to_root(peak_rss_bytes());  // the last collective: rank 0 may fail after it
  store.reset();                                           // its scratch folder goes
  if (rank == 0) {
    write_rules(all, opset, o, s);
    s.peak_rss_bytes = std::max(s.peak_rss_bytes, peak_rss_bytes());
  }
  s.seconds = seconds_since(start);
  return s;
}

}  // namespace superopt
