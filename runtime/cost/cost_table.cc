// Reading and writing HDF5 cost tables (layout in cost_table.h).
#include "runtime/cost/cost_table.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "runtime/db/hdf5_io.h"

namespace superopt {

namespace {

constexpr double kMaxCostMs = 86400e3;

std::string shortest(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The entries as columns, in signature order.
struct CostColumns {
  std::vector<std::string> signature, algorithm;
  std::vector<double> cost_ms, spread_ms;
  std::vector<int32_t> repeats;
};

void write_table(const hdf5::Writer& w, const CostTableInfo& info, const CostColumns& c) {
  hid_t root = w.file();
  w.format_header(kCostTableFormat, kCostTableFormatVersion,
                  "superopt operator costs: entry K is element K of every root dataset; signature is "
                  "op|params|input shapes|layout; cost_ms is the median of repeats timed runs");
  w.attribute(root, "device_kind", info.device_kind);
  w.attribute(root, "device", info.device);
  w.attribute(root, "driver", info.driver);
  w.attribute(root, "cudnn", info.cudnn);
  w.attribute(root, "cublas", info.cublas);
  w.attribute(root, "onednn", info.onednn);
  w.attribute(root, "threads", std::to_string(info.threads));
  w.attribute(root, "analytic_profile", info.analytic_profile);
  size_t n = c.signature.size();
  w.column(root, "signature", c.signature, "operator signature (type|params|input shapes|layout)");
  w.column(root, "cost_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, c.cost_ms.data(),
           "median milliseconds of one run");
  w.column(root, "algorithm", c.algorithm, "algorithm the library chose, or empty");
  w.column(root, "repeats", H5T_STD_I32LE, H5T_NATIVE_INT32, n, c.repeats.data(), "timed runs");
  w.column(root, "spread_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, c.spread_ms.data(),
           "interquartile range of the timed runs in milliseconds (-1: not recorded)");
}

CostTableInfo read_info(const hdf5::Reader& r) {
  r.check_format(kCostTableFormat, "cost table", kCostTableFormatVersion);
  CostTableInfo info;
  info.device = r.string("device");
  info.driver = r.string("driver");
  info.cudnn = r.string("cudnn");
  info.cublas = r.string("cublas");
  if (r.has_attribute("device_kind")) info.device_kind = r.string("device_kind");
  if (r.has_attribute("onednn")) info.onednn = r.string("onednn");
  if (r.has_attribute("threads")) {
    // The whole text, as written by write_info: stoi took "12abc" as 12.
    const std::string threads = r.string("threads");
    const char* end = threads.data() + threads.size();
    auto [stop, error] = std::from_chars(threads.data(), end, info.threads);
    if (error != std::errc() || stop != end || info.threads < 0)
      r.fail("attribute threads '" + threads + "' is not a thread count (a whole number, 0 or more)");
  }
  if (r.has_attribute("analytic_profile")) info.analytic_profile = r.string("analytic_profile");
  return info;
}

CostColumns read_columns(const hdf5::Reader& r) {
  auto item = [&](const char* name) { return r.dataset(r.file(), "", name); };
  hdf5::Item signature = item("signature"), cost = item("cost_ms"), algorithm = item("algorithm"),
             repeats = item("repeats");
  CostColumns c;
  c.signature = r.strings(signature);
  size_t n = c.signature.size();
  c.cost_ms = r.numbers<double>(cost, H5T_NATIVE_DOUBLE, false);
  r.expect_length(cost, c.cost_ms.size(), signature.name, n);
  c.algorithm = r.strings(algorithm);
  r.expect_length(algorithm, c.algorithm.size(), signature.name, n);
  c.repeats = r.numbers<int32_t>(repeats, H5T_NATIVE_INT32, true);
  r.expect_length(repeats, c.repeats.size(), signature.name, n);
  c.spread_ms.assign(n, CostEntry::kSpreadNotRecorded);  // tables written before the column
  if (H5Lexists(r.file(), "spread_ms", H5P_DEFAULT) > 0) {
    hdf5::Item spread = item("spread_ms");
    c.spread_ms = r.numbers<double>(spread, H5T_NATIVE_DOUBLE, false);
    r.expect_length(spread, c.spread_ms.size(), signature.name, n);
  }
  return c;
}

}  // namespace

CostTable CostTable::read(const std::string& path) {
  hdf5::Reader r(path);
  r.open();
  CostTable table;
  table.info = read_info(r);
  CostColumns c = read_columns(r);
  for (size_t k = 0; k < c.signature.size(); ++k) {
    std::string where = "entry " + std::to_string(k) + " ('" + c.signature[k] + "'): ";
    // Bounded by a day, so that no sum over a graph overflows to inf (1e308
    // per operator made "speedup: -nanx" with exit 0).
    if (!std::isfinite(c.cost_ms[k]) || c.cost_ms[k] < 0 || c.cost_ms[k] > kMaxCostMs)
      r.fail(where + "cost_ms " + shortest(c.cost_ms[k]) + " is not a time (0 to " + shortest(kMaxCostMs) +
             " ms, a day)");
    if (table.lookup(c.signature[k])) r.fail(where + "signature listed twice");
    if (!std::isfinite(c.spread_ms[k]) ||
        (c.spread_ms[k] < 0 && c.spread_ms[k] != CostEntry::kSpreadNotRecorded))
      r.fail(where + "spread_ms " + std::to_string(c.spread_ms[k]) + " is not a spread (0 or more, or -1)");
    table.insert(c.signature[k], {c.cost_ms[k], c.algorithm[k], c.repeats[k], c.spread_ms[k]});
  }
  return table;
}

void CostTable::write(const std::string& path) const {
  CostColumns c;
  for (const auto& [signature, entry] : entries_) {
    c.signature.push_back(signature);
    c.cost_ms.push_back(entry.cost_ms);
    c.algorithm.push_back(entry.algorithm);
    c.repeats.push_back(entry.repeats);
    c.spread_ms.push_back(entry.spread_ms);
  }
  hdf5::write_atomically(path, [&](const hdf5::Writer& w) { write_table(w, info, c); });
}

const CostEntry* CostTable::lookup(std::string_view signature) const {
  auto it = entries_.find(signature);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace superopt
