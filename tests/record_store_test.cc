// RecordStore: a memory bound that forces spilled runs visits the same classes,
// in the same order, with the same members, as the in-memory store; its scratch
// folder goes away; an unusable scratch folder is refused up front.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "enum/record_store.h"
#include "enum/shard_exchange.h"

using namespace superopt;
using namespace superopt::enumeration;
using Catch::Contains;

namespace {

// Records with few fingerprints, so classes have several members across runs.
std::vector<std::string> batches() {
  std::mt19937_64 random(7);
  std::vector<std::string> out(50);
  for (std::string& batch : out)
    for (int r = 0; r < 400; ++r) {
      std::string code(1 + random() % 20, '\0');
      for (char& c : code) c = static_cast<char>(random());
      append_record(batch, random() % 3000, code);
    }
  return out;
}

std::string visited(RecordStore& store) {
  std::string seen;
  store.for_each_class([&](uint64_t fingerprint, const std::vector<std::string_view>& codes) {
    seen += std::to_string(fingerprint) + ":";
    for (std::string_view c : codes) seen += std::string(c) + "|";
  });
  return seen;
}

}  // namespace

TEST_CASE("record store: spilled runs merge to the in-memory classes", "[record_store]") {
  auto scratch = std::filesystem::temp_directory_path() / "superopt_record_store_test";
  std::filesystem::remove_all(scratch);
  RecordStore memory(0, "", 0);
  std::string expected, got;
  {
    RecordStore bounded(64 << 10, scratch.string(), 3);
    for (const std::string& b : batches()) {
      memory.add(b);
      bounded.add(b);
    }
    REQUIRE(bounded.runs() >= 4);
    REQUIRE(memory.runs() == 0);
    REQUIRE(bounded.record_bytes() == memory.record_bytes());
    expected = visited(memory);
    got = visited(bounded);
    REQUIRE(bounded.runs() == 0);  // merged runs are deleted at once
  }
  REQUIRE(got == expected);
  REQUIRE(!std::filesystem::exists(scratch));
}

TEST_CASE("record store: a scratch folder that cannot be made is refused", "[record_store]") {
  auto file = std::filesystem::temp_directory_path() / "superopt_record_store_file";
  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fclose(f);
  REQUIRE_THROWS_WITH(RecordStore(1 << 20, (file / "sub").string(), 0),
                      Contains("cannot use scratch folder"));
  std::filesystem::remove(file);
}
