// The rule generator's public face: `superopt enumerate`, as one process or
// under mpirun/srun, from an operator set to a rule database.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace superopt {

struct EnumerateOptions {
  std::string opset_path;
  int max_ops = 0;
  uint64_t seed = 1;
  std::string out_path = "rules.h5";
  bool force = false;          // overwrite an existing database
  std::string checkpoint_dir;  // empty: no checkpoints
  // Bytes each rank may hold of graph records (buffers, sort index, messages
  // in flight); 0: unbounded. Over it, sorted runs go to scratch_dir.
  int64_t memory_per_rank_bytes = 0;
  std::string scratch_dir;            // empty: "<out>.scratch"
  double sample_fraction = 1.0;       // in (0, 1]: the share of work units run, chosen by `seed`
  bool representatives_only = false;  // extend only class representatives (Quartz's RepGen)
  // Enumerate twice: first count class keys in a filter, then keep only the
  // records of classes that may have two members (most graphs are alone).
  bool two_pass = false;
  std::string arguments;  // the command line, recorded in the database
};

struct EnumerateSummary {
  int ranks = 1;
  int64_t units = 0;          // work units of the whole enumeration
  int64_t units_sampled = 0;  // of those, the ones this run's sample holds (all without --sample-units)
  uint64_t graphs = 0;
  uint64_t representative_level_graphs = 0;  // graphs the levels below max-ops made to find representatives
  uint64_t resumed_graphs = 0;        // of those, made by an earlier attempt and read from the checkpoint
  uint64_t records = 0;               // graphs sent to their owners: graphs, plus extra structures
                                      // of functions with a symmetry the graph lacks (GeneratedGraph)
  uint64_t renamings = 0;             // renamed evaluations made to find class keys (this attempt)
  uint64_t classes = 0;               // distinct class keys (fingerprints up to renaming)
  uint64_t record_bytes = 0;          // bytes of the stored (fingerprint, code) records
  uint64_t records_filtered_out = 0;  // --two-pass: records of lone classes the owners dropped
  int64_t failed_second_test = 0;     // graphs that left their class on the second modular evaluation
  int64_t failed_float_test = 0;
  std::vector<std::pair<std::string, int64_t>> stages;  // candidates, after each pruning stage
  double seconds = 0;
  int64_t peak_rss_bytes = 0;  // the largest over ranks
  // The peak so far, the largest over ranks, at the end of enumeration (records
  // sent, kept and spilled) and of pairing (classes paired, rank 0's gather
  // included); peak_rss_bytes above that is rank 0's pruning and writing.
  int64_t peak_rss_enumerate_bytes = 0, peak_rss_pair_bytes = 0;
  // Scaling figures: records and messages sent between ranks, the most graphs
  // one rank made (against graphs / ranks), spilled runs and their bytes.
  uint64_t bytes_sent = 0, messages_sent = 0, max_messages_sent = 0;
  uint64_t max_rank_graphs = 0, max_rank_record_bytes = 0;  // the most one rank made, and owned
  uint64_t spilled_runs = 0, spilled_bytes = 0, max_spilled_bytes = 0;
};

// Runs the whole generation on every rank of MPI_COMM_WORLD (MPI must be
// initialised); rank 0 writes the database and gets the summary. Throws
// Error on bad options or files, on every rank alike.
EnumerateSummary enumerate_rules(const EnumerateOptions& options);

// `superopt enumerate --max-ops N [--opset FILE] [--out FILE] [--checkpoint DIR] [--seed S] [--force]
// [--memory-per-rank BYTES] [--scratch DIR] [--sample-units FRACTION] [--json]`.
int enumerate_command(const std::vector<std::string>& args);

}  // namespace superopt
