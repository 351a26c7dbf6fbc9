// The append-only per-rank log behind generation checkpoints.
#include "enum/checkpoint.h"

#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "runtime/core/error.h"

namespace superopt::enumeration {
namespace {

constexpr char kMagic[8] = {'S', 'O', 'C', 'K', 'P', 'T', '0', '1'};

// Entry: unit (8), record bytes (8), records, checksum of the three (8).
struct EntryHead {
  int64_t unit;
  uint64_t size;
};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error("checkpoint " + path + ": " + why);
}

}  // namespace

CheckpointLog::CheckpointLog(const std::string& dir, int rank, int ranks, uint64_t run_key,
                             const std::string& run_text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create checkpoint directory " + dir + ": " + ec.message());
  path_ = (std::filesystem::path(dir) / ("rank-" + std::to_string(rank) + ".log")).string();
  uint64_t header[3] = {run_key, static_cast<uint64_t>(ranks), static_cast<uint64_t>(run_text.size())};

  file_ = std::fopen(path_.c_str(), "r+b");
  if (!file_) {
    file_ = std::fopen(path_.c_str(), "w+b");
    if (!file_) fail(path_, std::strerror(errno));
    std::fwrite(kMagic, 1, 8, file_);
    std::fwrite(header, 8, 3, file_);
    std::fwrite(run_text.data(), 1, run_text.size(), file_);
    if (std::fflush(file_) != 0) fail(path_, std::strerror(errno));
    return;
  }
  char magic[8];
  uint64_t found[3];
  if (std::fread(magic, 1, 8, file_) != 8 || std::memcmp(magic, kMagic, 8) != 0 ||
      std::fread(found, 8, 3, file_) != 3)
    fail(path_, "not a superopt checkpoint");
  std::string found_text(found[2] < (1u << 20) ? found[2] : 0, '\0');
  if (std::fread(found_text.data(), 1, found_text.size(), file_) != found_text.size())
    fail(path_, "not a superopt checkpoint");
  if (found[1] != static_cast<uint64_t>(ranks))
    fail(path_, "written by a run on " + std::to_string(found[1]) + " ranks; this run has " +
                    std::to_string(ranks) + " (use the same number, or a new directory)");
  if (found[0] != run_key)
    fail(path_, "written by a run with other arguments (" + found_text + "); use a new directory");

  // Read entries until the end or a torn one; the torn tail is cut off.
  long good_end = std::ftell(file_);
  for (;;) {
    EntryHead head;
    if (std::fread(&head, sizeof head, 1, file_) != 1 || head.size > (uint64_t{1} << 40)) break;
    long at = std::ftell(file_);
    std::string records(head.size, '\0');
    uint64_t sum = 0;
    if (std::fread(records.data(), 1, head.size, file_) != head.size || std::fread(&sum, 8, 1, file_) != 1)
      break;
    uint64_t expect = XXH3_64bits_withSeed(records.data(), records.size(), static_cast<uint64_t>(head.unit));
    if (sum != expect) break;
    done_.push_back(head.unit);
    blocks_.push_back({at, head.size});
    good_end = std::ftell(file_);
  }
  if (std::fflush(file_) != 0 || ftruncate(fileno(file_), good_end) != 0 ||
      std::fseek(file_, good_end, SEEK_SET) != 0)
    fail(path_, std::strerror(errno));
}

CheckpointLog::~CheckpointLog() {
  if (file_) std::fclose(file_);
}

void CheckpointLog::replay(const std::function<void(std::string_view)>& f) const {
  std::FILE* in = std::fopen(path_.c_str(), "rb");
  if (!in) fail(path_, std::strerror(errno));
  std::string records;
  for (const auto& [offset, size] : blocks_) {
    records.resize(size);
    if (std::fseek(in, offset, SEEK_SET) != 0 || std::fread(records.data(), 1, size, in) != size) {
      std::fclose(in);
      fail(path_, "could not read back a finished unit");
    }
    f(records);
  }
  std::fclose(in);
}

void CheckpointLog::append(int64_t unit, const std::string& records) {
  EntryHead head{unit, records.size()};
  uint64_t sum = XXH3_64bits_withSeed(records.data(), records.size(), static_cast<uint64_t>(unit));
  bool ok = std::fwrite(&head, sizeof head, 1, file_) == 1 &&
            std::fwrite(records.data(), 1, records.size(), file_) == records.size() &&
            std::fwrite(&sum, 8, 1, file_) == 1 && std::fflush(file_) == 0;
  if (!ok) fail(path_, std::strerror(errno));
  if (now_seconds() - last_sync_ >= 1.0) {
    fsync(fileno(file_));
    last_sync_ = now_seconds();
  }
}

}  // namespace superopt::enumeration
