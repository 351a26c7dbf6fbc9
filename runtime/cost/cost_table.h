// Measured operator costs keyed by op_signature, stored as an HDF5 cost table
// (written by `superopt measure`, read by the table: cost model).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace superopt {

inline constexpr std::string_view kCostTableFormat = "superopt-costs";
inline constexpr int kCostTableFormatVersion = 1;

// File layout (readable by h5dump and h5py):
//   root attributes: format = "superopt-costs", format_version = 1 (spread_ms
//     came later without a new version: version-1 readers ignore it),
//     description, device_kind ("cuda" or "cpu"; absent in older tables: cuda),
//     device (e.g. "NVIDIA H100 80GB HBM3", or the CPU model), driver, cudnn,
//     cublas (GPU library versions as text), onednn (the oneDNN version) and
//     threads (decimal text; CPU tables: the thread count measured with, else 0),
//     analytic_profile (the device profile that answers for signatures the
//     table lacks; default "h100")
//   root datasets, element K of each describing entry K, sorted by signature:
//     signature (strings), cost_ms (float64, the median of the repeats),
//     algorithm (strings: the cuDNN/cuBLAS algorithm chosen, or ""),
//     repeats (int32: timed runs behind the median),
//     spread_ms (float64: the interquartile range of the repeats; -1 where not
//     recorded; absent in older tables, which read as -1)
struct CostEntry {
  double cost_ms = 0;
  std::string algorithm;
  int32_t repeats = 0;
  // The noise of cost_ms: p75 - p25 of the repeats, or kSpreadNotRecorded.
  double spread_ms = kSpreadNotRecorded;
  static constexpr double kSpreadNotRecorded = -1;
  bool spread_recorded() const { return spread_ms >= 0; }
};

struct CostTableInfo {
  std::string device_kind = "cuda";
  std::string device, driver, cudnn, cublas, onednn;
  int32_t threads = 0;
  std::string analytic_profile = "h100";
};

class CostTable {
 public:
  CostTableInfo info;

  // One-line Error for a missing, foreign, damaged or inconsistent file.
  static CostTable read(const std::string& path);
  // Atomically (temporary file, then rename).
  void write(const std::string& path) const;

  const CostEntry* lookup(std::string_view signature) const;
  // Adds or replaces the entry of a signature.
  void insert(const std::string& signature, CostEntry entry) { entries_[signature] = std::move(entry); }
  size_t size() const { return entries_.size(); }
  const std::map<std::string, CostEntry, std::less<>>& entries() const { return entries_; }

 private:
  std::map<std::string, CostEntry, std::less<>> entries_;
};

}  // namespace superopt
