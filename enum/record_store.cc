// RecordStore: the in-memory buffer, sorted runs on scratch and their k-way merge.
#include "enum/record_store.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <queue>

#include "enum/shard_exchange.h"
#include "runtime/core/error.h"
#include "runtime/core/memory_budget.h"

namespace superopt::enumeration {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kProgressEveryBytes = 1 << 20;
constexpr size_t kMinReadBuffer = 4096, kMaxReadBuffer = 1 << 20;

bool record_less(const GraphRecord& a, const GraphRecord& b) {
  // Code bytes start with the operator count, so byte order is code_less.
  return a.fingerprint != b.fingerprint ? a.fingerprint < b.fingerprint : a.code < b.code;
}

uint64_t count_records(std::string_view records) {
  uint64_t n = 0;
  for (size_t at = 0; at + 9 <= records.size(); at += 9 + static_cast<uint8_t>(records[at + 8])) ++n;
  return n;
}

// Reserved to the record count: grown by doubling, the index took up to three
// times its budget (kIndexBytesPerRecord) while it moved.
std::vector<GraphRecord> sorted_index(std::string_view records) {
  std::vector<GraphRecord> index;
  index.reserve(count_records(records));
  for_each_record(records, [&](const GraphRecord& r) { index.push_back(r); });
  std::sort(index.begin(), index.end(), record_less);
  return index;
}

// Checks that a folder can be made and written, by writing a probe file.
void check_writable(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot use scratch folder " + dir.parent_path().string() + ": " + ec.message());
  fs::path probe = dir / "probe";
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  bool ok = f && std::fputs("probe", f) >= 0;
  if (f) ok = std::fclose(f) == 0 && ok;
  int why = errno;
  fs::remove(probe, ec);
  if (!ok)
    throw Error("cannot write scratch folder " + dir.parent_path().string() + ": " + std::strerror(why));
}

// One spilled run being read back, record by record.
struct RunReader {
  std::FILE* file = nullptr;
  std::unique_ptr<char[]> buffer;
  std::string path;
  uint64_t fingerprint = 0;
  std::string code;
  bool valid = false;

  RunReader(const std::string& run_path, size_t buffer_bytes)
      : buffer(new char[buffer_bytes]), path(run_path) {
    file = std::fopen(path.c_str(), "rb");
    if (!file) throw Error("cannot read back spilled run " + path + ": " + std::strerror(errno));
    std::setvbuf(file, buffer.get(), _IOFBF, buffer_bytes);
  }
  ~RunReader() {
    if (file) std::fclose(file);
  }
  // Reads the next record; false at the end. Returns the bytes read.
  size_t next() {
    unsigned char head[9];
    size_t got = std::fread(head, 1, 9, file);
    if (got == 0 && std::feof(file)) return valid = false, 0;
    if (got != 9) throw Error("spilled run " + path + " is cut short");
    std::memcpy(&fingerprint, head, 8);
    code.resize(head[8]);
    if (std::fread(code.data(), 1, code.size(), file) != code.size())
      throw Error("spilled run " + path + " is cut short");
    valid = true;
    return 9 + code.size();
  }
};

}  // namespace

RecordStore::RecordStore(int64_t memory_bytes, const std::string& scratch_dir, int rank)
    : limit_bytes_(memory_bytes), rank_(rank) {
  if (limit_bytes_ <= 0) return;
  fs::path dir = fs::path(scratch_dir) / ("rank-" + std::to_string(rank));
  check_writable(dir);
  // Runs of a killed attempt: the checkpoint replays their records, so they go.
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("run-", 0) == 0) fs::remove(e.path(), ec);
  dir_ = dir.string();
  // Records take at most this share of the limit, their sort index the rest.
  buffer_.reserve(static_cast<size_t>(limit_bytes_ * 7 / 15));
}

RecordStore::~RecordStore() {
  remove_runs();
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove(dir_, ec);
  fs::remove(fs::path(dir_).parent_path(), ec);  // only if no other rank's folder is left
}

void RecordStore::remove_runs() {
  std::error_code ec;
  for (const std::string& run : runs_) fs::remove(run, ec);
  runs_.clear();
}

void RecordStore::add(std::string_view records) {
  uint64_t n = count_records(records);
  record_bytes_ += records.size();
  if (limit_bytes_ > 0) {
    int64_t capacity = static_cast<int64_t>(buffer_.capacity());
    bool over_bytes = buffer_.size() + records.size() > buffer_.capacity();
    bool over_index =
        capacity + kIndexBytesPerRecord * static_cast<int64_t>(buffered_records_ + n) > limit_bytes_;
    if ((over_bytes || over_index) && buffered_records_ > 0) spill();
  }
  if (limit_bytes_ == 0) refuse_over_budget(n, records.size());
  buffer_.append(records);
  buffered_records_ += n;
}

void RecordStore::refuse_over_budget(uint64_t more_records, size_t more_bytes) const {
  // Unbounded, the records would grow until the kernel kills the rank
  // (`--max-ops 8`): the memory budget ends the run with one line instead.
  const uint64_t records = buffered_records_ + more_records;
  const int64_t held = static_cast<int64_t>(buffer_.size() + more_bytes) +
                       kIndexBytesPerRecord * static_cast<int64_t>(records);
  try {
    check_memory_budget(held, "rank " + std::to_string(rank_) + "'s record store (" +
                                  std::to_string(records) +
                                  " graph records in memory: no --memory-per-rank)");
  } catch (const Error& e) {
    throw Error(std::string(e.what()) +
                ": fewer operators, more ranks, or --memory-per-rank with --scratch to spill sorted runs "
                "to disk (scripts/bench/project-5ops.sh projects a run's size)");
  }
}

void RecordStore::spill() {
  auto start = std::chrono::steady_clock::now();
  std::string path = dir_ + "/run-" + std::to_string(runs_.size()) + ".bin";
  runs_.push_back(path);  // listed first, so that a failure still removes it
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error("cannot write scratch folder " + dir_ + ": " + std::strerror(errno));
  bool ok = true;
  for (const GraphRecord& r : sorted_index(buffer_)) {
    unsigned char head[9];
    std::memcpy(head, &r.fingerprint, 8);
    head[8] = static_cast<unsigned char>(r.code.size());
    ok = ok && std::fwrite(head, 1, 9, f) == 9 &&
         std::fwrite(r.code.data(), 1, r.code.size(), f) == r.code.size();
  }
  ok = std::fflush(f) == 0 && ok;
  int why = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw Error("cannot write scratch folder " + dir_ + ": " + std::strerror(why ? why : errno));
  spilled_bytes_ += buffer_.size();
  ++runs_written_;
  buffer_.clear();  // the capacity stays: it is the budget
  buffered_records_ = 0;
  if (spill_report_)
    spill_report_(runs_written_, spilled_bytes_,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void RecordStore::for_each_class(const ClassVisitor& visit, const Progress& progress) {
  if (runs_.empty()) return visit_in_memory(visit, progress);
  if (!buffer_.empty()) spill();
  std::string().swap(buffer_);
  merge_runs(visit, progress);
  remove_runs();
}

void RecordStore::visit_in_memory(const ClassVisitor& visit, const Progress& progress) {
  std::vector<GraphRecord> index = sorted_index(buffer_);
  std::vector<std::string_view> codes;
  uint64_t done = 0, reported = 0;
  for (size_t i = 0; i < index.size();) {
    codes.clear();
    size_t j = i;
    for (; j < index.size() && index[j].fingerprint == index[i].fingerprint; ++j) {
      codes.push_back(index[j].code);
      done += 9 + index[j].code.size();
    }
    visit(index[i].fingerprint, codes);
    if (progress && done - reported >= kProgressEveryBytes) progress(reported = done, buffer_.size());
    i = j;
  }
  std::string().swap(buffer_);
}

void RecordStore::merge_runs(const ClassVisitor& visit, const Progress& progress) {
  size_t read_buffer = std::clamp<size_t>(static_cast<size_t>(limit_bytes_ / 2) / runs_.size(),
                                          kMinReadBuffer, kMaxReadBuffer);
  std::vector<std::unique_ptr<RunReader>> readers;
  uint64_t done = 0, reported = 0;
  for (const std::string& run : runs_) {
    readers.push_back(std::make_unique<RunReader>(run, read_buffer));
    done += readers.back()->next();
  }
  auto later = [&](int a, int b) {
    const RunReader &x = *readers[a], &y = *readers[b];
    return x.fingerprint != y.fingerprint ? x.fingerprint > y.fingerprint : x.code > y.code;
  };
  std::priority_queue<int, std::vector<int>, decltype(later)> heap(later);
  for (size_t r = 0; r < readers.size(); ++r)
    if (readers[r]->valid) heap.push(static_cast<int>(r));
  std::vector<std::string> members;
  std::vector<std::string_view> codes;
  while (!heap.empty()) {
    uint64_t fingerprint = readers[heap.top()]->fingerprint;
    members.clear();
    while (!heap.empty() && readers[heap.top()]->fingerprint == fingerprint) {
      int r = heap.top();
      heap.pop();
      members.push_back(readers[r]->code);
      done += readers[r]->next();
      if (readers[r]->valid) heap.push(r);
    }
    codes.assign(members.begin(), members.end());
    visit(fingerprint, codes);
    if (progress && done - reported >= kProgressEveryBytes) progress(reported = done, spilled_bytes_);
  }
}

}  // namespace superopt::enumeration
