// Several rule databases read as one (see rule_databases.h).
#include "search/rule_databases.h"

#include "runtime/core/error.h"
#include "search/optimize_report.h"

namespace superopt {

std::vector<std::string> split_rule_paths(const std::string& list) {
  std::vector<std::string> paths;
  size_t from = 0;
  for (size_t comma; (comma = list.find(',', from)) != std::string::npos; from = comma + 1)
    paths.push_back(list.substr(from, comma - from));
  paths.push_back(list.substr(from));
  for (const std::string& path : paths)
    if (path.empty()) throw Error("--rules: an empty file name in '" + list + "'");
  return paths;
}

size_t RuleDatabases::database_of(size_t id) const {
  size_t which = 0;
  while (which + 1 < first.size() && first[which + 1] <= id) ++which;
  return which;
}

namespace {

// Why the database at `path` cannot apply to `model`, from its description
// alone (before its rules are read); nullopt when it may, or when the file lists
// no operator set (then only its rules say).
std::optional<std::string> miss_by_description(const std::string& path, const Graph& model) {
  RuleDatabase head;
  head.info = RuleDatabase::read_info(path);
  try {
    if (!head.opset_operators()) return std::nullopt;
  } catch (const Error&) {
    // an unknown operator: rules_miss_model names the file
  }
  return rules_miss_model(head, model, path);
}

}  // namespace

RuleDatabases read_rule_databases(const std::vector<std::string>& paths, const Graph* model,
                                  const RuleDatabase::GraphsWanted& wanted) {
  RuleDatabases dbs;
  for (const std::string& path : paths) {
    // Of several databases, one about other operators is left out (an imported transformer
    // given the CNN sets too); alone, or when every one is, it is the user's mistake. Where
    // the file lists its operator set, that is known before its rules are read.
    std::optional<std::string> why = model ? miss_by_description(path, *model) : std::nullopt;
    RuleDatabase db;
    if (!why) db = RuleDatabase::read(path, wanted);
    if (!why && model && !db.opset_operators()) why = rules_miss_model(db, *model, path);
    if (why) {
      if (paths.size() == 1) throw Error(*why);
      dbs.skipped.push_back(*why);
      continue;
    }
    dbs.paths.push_back(path);
    dbs.first.push_back(dbs.all.rules.size());
    if (dbs.first.size() == 1) {
      dbs.all = std::move(db);
      continue;
    }
    for (Rule& rule : db.rules) dbs.all.rules.push_back(std::move(rule));
  }
  if (dbs.paths.empty())
    throw Error("--rules: no database given applies to the model (" + dbs.skipped.front() + ", and " +
                std::to_string(dbs.skipped.size() - 1) + " more)");
  return dbs;
}

}  // namespace superopt
