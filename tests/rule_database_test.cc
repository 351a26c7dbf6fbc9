// The HDF5 rule database: round trips, atomic writes, and one damaged or
// foreign file per error the reader must name.
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/graph_hash.h"
#include "runtime/db/hdf5_file.h"
#include "runtime/db/rule_database.h"
#include "runtime/formats/graph_json.h"
#include "tests/hdf5_file_editor.h"
#include "tests/rule_fixture.h"
#include "tests/temp_dir.h"

using namespace superopt;
using Catch::Contains;
using hdf5::Handle;
namespace fs = std::filesystem;

namespace {

using test::FileEditor;
using test::TempDir;

std::vector<std::string> node_names(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes()) names.push_back(n.name.str());
  return names;
}

std::vector<std::string> output_labels(const Graph& g) {
  std::vector<std::string> labels;
  for (TensorRef t : g.outputs()) labels.push_back(tensor_label(g, t));
  return labels;
}

void require_same_graph(const Graph& read, const Graph& written) {
  REQUIRE(structurally_equal(read, written));
  REQUIRE(node_names(read) == node_names(written));
  REQUIRE(output_labels(read) == output_labels(written));
}

void require_same_database(const RuleDatabase& read, const RuleDatabase& written) {
  CHECK(read.info.format_version == kRuleDatabaseFormatVersion);
  CHECK(read.info.generator_version == written.info.generator_version);
  CHECK(read.info.opset_name == written.info.opset_name);
  CHECK(read.info.opset_json == written.info.opset_json);
  CHECK(read.info.max_ops == written.info.max_ops);
  CHECK(read.info.seed == written.info.seed);
  CHECK(read.info.arguments == written.info.arguments);
  CHECK(read.info.stage_counts == written.info.stage_counts);
  REQUIRE(read.rules.size() == written.rules.size());
  for (size_t k = 0; k < read.rules.size(); ++k) {
    INFO("rule " << k);
    const Rule &a = read.rules[k], &b = written.rules[k];
    require_same_graph(a.source, b.source);
    require_same_graph(a.target, b.target);
    CHECK(a.fingerprint == b.fingerprint);
    CHECK(a.status == b.status);
    CHECK(a.proof_ms == b.proof_ms);
    CHECK(a.note == b.note);
  }
}

std::string written_fixture(const TempDir& dir, const std::string& name = "rules.h5") {
  std::string path = dir.file(name);
  test::fixture_database().write(path);
  return path;
}

void require_read_error(const std::string& path, const std::string& message) {
  INFO(path);
  REQUIRE_THROWS_WITH(RuleDatabase::read(path), Contains(path + ": ") && Contains(message));
}

}  // namespace

TEST_CASE("rules: statuses have names both ways", "[rules]") {
  for (int i = 0; i < kNumRuleStatuses; ++i) {
    auto s = static_cast<RuleStatus>(i);
    REQUIRE(rule_status_from_name(rule_status_name(s)) == s);
  }
  REQUIRE(rule_status_name(RuleStatus::refuted) == "refuted");
  REQUIRE_FALSE(rule_status_from_name("proved").has_value());
}

TEST_CASE("rules: a database round-trips through HDF5", "[rules]") {
  TempDir dir;
  RuleDatabase db = test::fixture_database();
  db.write(dir.file("rules.h5"));
  RuleDatabase back = RuleDatabase::read(dir.file("rules.h5"));
  require_same_database(back, db);
  SECTION("every status and the notes survive") {
    std::vector<RuleStatus> statuses;
    for (const Rule& r : back.rules) statuses.push_back(r.status);
    REQUIRE(statuses == std::vector{RuleStatus::verified, RuleStatus::candidate, RuleStatus::refuted,
                                    RuleStatus::unknown});
    REQUIRE(back.rules[2].note == db.rules[2].note);
  }
  SECTION("outputs stay aligned across a two-output rule") {
    REQUIRE(output_labels(back.rules[1].source) == std::vector<std::string>{"y1", "y2"});
    REQUIRE(output_labels(back.rules[1].target) == std::vector<std::string>{"sp", "sp:1"});
  }
  SECTION("weight data survives") {
    const Graph& g = back.rules[3].source;
    REQUIRE(*g.weight_data(*g.find("s")) == std::vector<float>{0.5f});
  }
  SECTION("writing what was read gives an equal database") {
    back.write(dir.file("again.h5"));
    require_same_database(RuleDatabase::read(dir.file("again.h5")), db);
  }
}

TEST_CASE("rules: a database whose graphs were released writes them back from its file", "[rules]") {
  TempDir dir;
  const std::string path = written_fixture(dir);
  RuleDatabase db = RuleDatabase::read(path);
  const int operators = db.rules[1].num_operators();
  for (size_t k = 0; k < db.rules.size(); ++k) db.release_graphs(k);
  REQUIRE(db.rules[1].graphs_released());
  REQUIRE(db.rules[1].source.num_nodes() == 0);
  REQUIRE(db.rules[1].num_operators() == operators);
  db.rules[1].status = RuleStatus::derived;
  db.rules[1].derivation = {DerivationStep{0, false, false, {0}, {}, -1}};
  db.rules[3].note = "a note written after the release";
  SECTION("to another file and over its own: the graphs are the file's, the rest is new") {
    for (const std::string& out : {dir.file("other.h5"), path}) {
      db.write(out);
      RuleDatabase back = RuleDatabase::read(out);
      RuleDatabase expected = test::fixture_database();
      expected.rules[1].status = RuleStatus::derived;
      expected.rules[3].note = "a note written after the release";
      require_same_database(back, expected);
      REQUIRE(back.rules[1].derivation == db.rules[1].derivation);
      REQUIRE(output_labels(back.rules[1].target) == std::vector<std::string>{"sp", "sp:1"});
    }
  }
  SECTION("graph columns of variable-length strings, as older files hold them, are copied too") {
    RuleDatabase memory = test::fixture_database();
    std::vector<std::string> sources;
    for (const Rule& r : memory.rules) sources.push_back(write_graph_json(r.source));
    FileEditor(path).replace_strings("rules/source", sources);
    db.write(dir.file("other.h5"));
    const RuleDatabase back = RuleDatabase::read(dir.file("other.h5"));
    for (size_t k = 0; k < memory.rules.size(); ++k) {
      require_same_graph(back.rules[k].source, memory.rules[k].source);
      require_same_graph(back.rules[k].target, memory.rules[k].target);
    }
    REQUIRE(back.rules[1].status == RuleStatus::derived);
  }
  SECTION("with only some released, writing throws and leaves the file alone") {
    RuleDatabase some = RuleDatabase::read(path);
    some.release_graphs(2);
    REQUIRE_THROWS_WITH(some.write(path),
                        Contains("cannot write " + path + ": 1 of 4 rules have their graphs released"));
    REQUIRE(RuleDatabase::read(path).rules[2].source.num_nodes() > 0);
  }
  SECTION("when the file no longer holds those rules, writing throws and the target is untouched") {
    RuleDatabase one;
    one.rules = {test::relu_over_add()};
    one.write(path);
    REQUIRE_THROWS_WITH(db.write(dir.file("other.h5")), Contains("the rules' graphs were released, and " +
                                                                 path + " no longer holds these rules"));
    REQUIRE_FALSE(fs::exists(dir.file("other.h5")));
    fs::remove(path);
    REQUIRE_THROWS_WITH(db.write(dir.file("other.h5")), Contains("cannot open " + path));
    REQUIRE_FALSE(fs::exists(dir.file("other.h5")));
  }
  SECTION("a database made in memory cannot release its graphs") {
    RuleDatabase memory = test::fixture_database();
    REQUIRE_THROWS_WITH(memory.release_graphs(0), Contains("no file holds"));
    REQUIRE(memory.rules[0].source.num_nodes() > 0);
  }
}

TEST_CASE("rules: an empty database is valid", "[rules]") {
  TempDir dir;
  RuleDatabase db;
  db.write(dir.file("empty.h5"));
  RuleDatabase back = RuleDatabase::read(dir.file("empty.h5"));
  REQUIRE(back.rules.empty());
  REQUIRE(back.info.stage_counts.empty());
  REQUIRE(back.info.format_version == kRuleDatabaseFormatVersion);
}

TEST_CASE("rules: the output mapping reorders target outputs when it is not the identity", "[rules]") {
  TempDir dir;
  std::string path = written_fixture(dir);
  {
    FileEditor edit(path);
    edit.replace_strings("rules/output_mapping", {"0:0", "0:1,1:0", "0:0", "0:0"});
  }
  RuleDatabase back = RuleDatabase::read(path);
  REQUIRE(output_labels(back.rules[1].target) == std::vector<std::string>{"sp:1", "sp"});
}

TEST_CASE("rules: fixed-length strings, as numpy writes them, read too", "[rules]") {
  TempDir dir;
  std::string path = written_fixture(dir);
  FileEditor(path).replace_fixed_strings("rules/note", {"", "a", "longer note", "é"});
  RuleDatabase back = RuleDatabase::read(path);
  REQUIRE(back.rules[2].note == "longer note");
  REQUIRE(back.rules[3].note == "é");
}

TEST_CASE("rules: database writes are atomic", "[rules]") {
  TempDir dir;
  std::string path = written_fixture(dir);
  SECTION("writing over a database replaces it and leaves no temporary file") {
    RuleDatabase one;
    one.rules = {test::relu_over_add()};
    one.write(path);
    REQUIRE(RuleDatabase::read(path).rules.size() == 1);
    REQUIRE(dir.entries() == std::vector<std::string>{"rules.h5"});
  }
  SECTION("a write into a missing directory throws and creates nothing") {
    std::string missing = dir.file("no/such/dir/rules.h5");
    REQUIRE_THROWS_WITH(test::fixture_database().write(missing),
                        "cannot write " + missing + ": No such file or directory");
    REQUIRE(dir.entries() == std::vector<std::string>{"rules.h5"});
  }
  SECTION("a failed rename removes the temporary file") {
    fs::create_directories(dir.file("taken/child"));
    REQUIRE_THROWS_WITH(test::fixture_database().write(dir.file("taken")),
                        "cannot write " + dir.file("taken") + ": Is a directory");
    REQUIRE(fs::is_directory(dir.file("taken/child")));
    REQUIRE(dir.entries().size() == 2);
  }
  SECTION("a rule that cannot be written leaves the old database untouched") {
    RuleDatabase bad;
    bad.rules = {test::shared_input_matmuls()};
    bad.rules[0].target.set_outputs({bad.rules[0].target.outputs()[0]});
    REQUIRE_THROWS_WITH(bad.write(path),
                        "cannot write " + path + ": rule 0: source has 2 outputs, target has 1");
    REQUIRE(RuleDatabase::read(path).rules.size() == 4);
    REQUIRE(dir.entries() == std::vector<std::string>{"rules.h5"});
  }
}

TEST_CASE("rules: missing, foreign and damaged files give one-line errors", "[rules]") {
  TempDir dir;
  SECTION("a missing file") {
    REQUIRE_THROWS_WITH(RuleDatabase::read(dir.file("none.h5")),
                        "cannot open " + dir.file("none.h5") + ": No such file or directory");
  }
  SECTION("a directory") {
    REQUIRE_THROWS_WITH(RuleDatabase::read(dir.path.string()), Contains("Is a directory"));
  }
  SECTION("a text file") {
    std::ofstream(dir.file("rules.txt")) << "candidate rules\n";
    require_read_error(dir.file("rules.txt"), "not an HDF5 file");
  }
  SECTION("a truncated database") {
    std::string path = written_fixture(dir);
    fs::resize_file(path, fs::file_size(path) / 2);
    require_read_error(path, "damaged HDF5 file: truncated file");
  }
  SECTION("an HDF5 file without the format attribute") {
    std::string path = dir.file("other.h5");
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    Handle group(H5Gcreate2(file, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    group.close();
    file.close();
    require_read_error(path, "not a superopt rule database (no 'format' attribute)");
  }
  SECTION("another format") {
    std::string path = written_fixture(dir);
    FileEditor(path).set_attribute("format", std::string("superopt-costs"));
    require_read_error(
        path, "not a superopt rule database (format is 'superopt-costs', expected 'superopt-rules')");
  }
  SECTION("a newer format version") {
    std::string path = written_fixture(dir);
    FileEditor(path).set_attribute("format_version", int64_t{99});
    require_read_error(path, "format_version 99 is newer than this superopt reads (1)");
  }
}

TEST_CASE("rules: inconsistent rule databases give one-line errors", "[rules]") {
  TempDir dir;
  std::string path = written_fixture(dir);
  SECTION("a dataset of the wrong length") {
    FileEditor(path).replace_strings("rules/target", {"{}", "{}", "{}"});
    require_read_error(path, "/rules/target has 3 entries, /rules/source has 4");
  }
  SECTION("a missing dataset") {
    FileEditor(path).remove("rules/note");
    require_read_error(path, "missing dataset /rules/note");
  }
  SECTION("a missing attribute") {
    FileEditor(path).remove_attribute("seed");
    require_read_error(path, "missing attribute 'seed'");
  }
  SECTION("an unknown status value") {
    FileEditor(path).set_raw_status(1, 9);
    require_read_error(path, "rules/status[1]: unknown status value 9");
  }
  SECTION("numbers where strings belong") {
    FileEditor(path).replace_numbers("rules/note", {1, 2, 3, 4});
    require_read_error(path, "rules/note: expected strings");
  }
  SECTION("a rule graph that does not parse") {
    FileEditor(path).replace_strings("rules/source", {"{\"format\": \"superopt-graph\"}", "", "", ""});
    require_read_error(path, "rule 0 source: missing field 'version'");
  }
  SECTION("a rule whose source and target have different numbers of outputs") {
    RuleDatabase db = test::fixture_database();
    std::vector<std::string> targets;
    for (const Rule& r : db.rules) targets.push_back(write_graph_json(r.target));
    targets[1] = targets[0];
    FileEditor(path).replace_strings("rules/target", targets);
    require_read_error(path, "rule 1: source has 2 outputs, target has 1");
  }
  SECTION("an output mapping that is not one to one") {
    FileEditor(path).replace_strings("rules/output_mapping", {"0:0", "0:0,0:1", "0:0", "0:0"});
    require_read_error(
        path, "rule 1: output_mapping '0:0,0:1': expected S:T pairs matching outputs 0 to 1 one to one");
  }
}

TEST_CASE("rules: a read that wants some rules' graphs releases the others' and keeps the rest", "[rules]") {
  // taso-3.h5 has every status a search tells apart: verified, derived, refuted, unknown.
  const std::string path = SUPEROPT_SOURCE_DIR "/data/rules/taso-3.h5";
  const RuleDatabase full = RuleDatabase::read(path);
  const RuleDatabase minimal = RuleDatabase::read(path, [](RuleStatus s) { return s == RuleStatus::verified; });
  REQUIRE(minimal.rules.size() == full.rules.size());
  REQUIRE(minimal.graphs_file == path);
  size_t kept = 0, released = 0;
  for (size_t k = 0; k < full.rules.size(); ++k) {
    const Rule &a = full.rules[k], &b = minimal.rules[k];
    REQUIRE(b.status == a.status);
    REQUIRE(b.fingerprint == a.fingerprint);
    REQUIRE(b.note == a.note);
    REQUIRE(b.derivation.size() == a.derivation.size());
    REQUIRE(b.family.has_value() == a.family.has_value());
    REQUIRE(b.num_operators() == a.num_operators());
    REQUIRE(b.graphs_released() == (a.status != RuleStatus::verified));
    if (b.graphs_released()) {
      REQUIRE(b.source.num_nodes() == 0);
      ++released;
    } else {
      require_same_graph(b.source, a.source);
      require_same_graph(b.target, a.target);
      ++kept;
    }
  }
  CHECK(kept > 500);
  CHECK(released > 5000);
}
