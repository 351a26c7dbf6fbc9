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
  std::string arguments;       // the command line, recorded in the database
};

struct EnumerateSummary {
  int ranks = 1;
  uint64_t graphs = 0;
  uint64_t resumed_graphs = 0;     // of those, made by an earlier attempt and read from the checkpoint
  uint64_t records = 0;            // graphs sent to their owners: graphs, plus extra structures
                                   // of functions with a symmetry the graph lacks (GeneratedGraph)
  uint64_t renamings = 0;          // renamed evaluations made to find class keys (this attempt)
  uint64_t classes = 0;            // distinct class keys (fingerprints up to renaming)
  uint64_t record_bytes = 0;       // bytes of the stored (fingerprint, code) records
  int64_t failed_second_test = 0;  // graphs that left their class on the second modular evaluation
  int64_t failed_float_test = 0;
  std::vector<std::pair<std::string, int64_t>> stages;  // candidates, after each pruning stage
  double seconds = 0;
  int64_t peak_rss_bytes = 0;  // the largest over ranks
};

// Runs the whole generation on every rank of MPI_COMM_WORLD (MPI must be
// initialised); rank 0 writes the database and gets the summary. Throws
// Error on bad options or files, on every rank alike.
EnumerateSummary enumerate_rules(const EnumerateOptions& options);

// `superopt enumerate --max-ops N [--opset FILE] [--out FILE] [--checkpoint DIR] [--seed S] [--force]
// [--json]`.
int enumerate_command(const std::vector<std::string>& args);

}  // namespace superopt
