// The generator's completeness: every rule a brute-force enumeration finds
// (every graph under every naming, tests/brute_force_rules.h) is in the
// generated database or follows from it by renaming, commutativity and
// smaller rules (tests/rule_coverage.h).
#include <catch2/catch.hpp>

#include "enum/enumerate.h"
#include "enum/opset.h"
#include "runtime/mpi/mpi_world.h"
#include "tests/brute_force_rules.h"
#include "tests/rule_coverage.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::test;

namespace {

RuleDatabase generate(const std::string& opset_path, int max_ops, const TempDir& dir) {
  static MpiWorld world;
  EnumerateOptions o;
  o.opset_path = opset_path;
  o.max_ops = max_ops;
  o.out_path = dir.file("rules.h5");
  enumerate_rules(o);
  return RuleDatabase::read(o.out_path);
}

Coverage coverage(const std::string& opset_path, int max_ops) {
  TempDir dir;
  enumeration::Opset opset = enumeration::read_opset_file(opset_path);
  RuleDatabase db = generate(opset_path, max_ops, dir);
  // The renaming stage is exact: no rule is stored under two namings.
  std::vector<std::string> twice = renamed_twice(db, opset);
  INFO((twice.empty() ? std::string() : twice.front()));
  CHECK(twice.empty());
  return check_coverage(brute_force(opset, max_ops), opset, db);
}

void require_complete(const Coverage& c) {
  std::string report = std::to_string(c.missing.size()) + " of " + std::to_string(c.classes) +
                       " classes not joined by the database's rules, e.g.:";
  for (size_t i = 0; i < std::min<size_t>(c.missing.size(), 40); ++i) report += "\n  " + c.missing[i];
  INFO(report);
  CHECK(c.missing.empty());
}

}  // namespace

TEST_CASE("completeness: three interchangeable inputs with ewadd and ewmul at 3 operators",
          "[completeness]") {
  Coverage c = coverage(SUPEROPT_SOURCE_DIR "/tests/data/opsets/three_inputs.json", 3);
  REQUIRE(c.classes > 50);
  require_complete(c);
}

TEST_CASE("completeness: the small operator set at 3 operators", "[completeness]") {
  Coverage c = coverage(SUPEROPT_SOURCE_DIR "/data/opsets/small.json", 3);
  REQUIRE(c.classes > 1000);
  require_complete(c);
}

TEST_CASE("completeness: TASO's operator set at 2 operators", "[completeness]") {
  Coverage c = coverage(SUPEROPT_SOURCE_DIR "/data/opsets/taso.json", 2);
  REQUIRE(c.classes > 100);
  require_complete(c);
}

// The renaming judge: a rule added again under another naming is reported.
TEST_CASE("completeness: a rule stored under two namings is reported", "[completeness]") {
  TempDir dir;
  std::string path = SUPEROPT_SOURCE_DIR "/tests/data/opsets/three_inputs.json";
  enumeration::Opset opset = enumeration::read_opset_file(path);
  RuleDatabase db = generate(path, 2, dir);
  REQUIRE(!db.rules.empty());
  REQUIRE(renamed_twice(db, opset).empty());
  // x1 -> x2 -> x3 -> x1.
  auto rotate = [&](const Graph& g) {
    BruteGraph b = brute_from_graph(g, opset);
    for (BruteOp& op : b.ops)
      for (int i = 0; i < op.num_inputs; ++i)
        if (op.inputs[i] < 3) op.inputs[i] = (op.inputs[i] + 1) % 3;
    return brute_to_graph(b, opset);
  };
  Rule again = db.rules.front();
  again.source = rotate(again.source);
  again.target = rotate(again.target);
  db.rules.push_back(again);
  CHECK(renamed_twice(db, opset).size() == 1);
}

// The judge itself: without the database, associativity and distributivity
// are reported missing, and a class joined only by a smaller rule is not.
TEST_CASE("completeness: the judge reports what an empty database lacks", "[completeness]") {
  enumeration::Opset opset =
      enumeration::read_opset_file(SUPEROPT_SOURCE_DIR "/tests/data/opsets/three_inputs.json");
  BruteForce bf = brute_force(opset, 3);
  Coverage c = check_coverage(bf, opset, RuleDatabase{});
  REQUIRE(c.rule_edges == 0);
  auto reported = [&](const std::string& text) {
    return std::any_of(c.missing.begin(), c.missing.end(),
                       [&](const std::string& line) { return line.find(text) != std::string::npos; });
  };
  CHECK(reported("ewadd(x1, x2); ewadd(x3, #0)  =  "));      // (x1 + x2) + x3 = (x1 + x3) + x2
  CHECK(reported("ewadd(x1, x2); ewmul(x3, #0)  =  "));      // x3 (x1 + x2) = x1 x3 + x2 x3
  CHECK(c.missing.size() < static_cast<size_t>(c.classes));  // common subgraphs join the others
}
