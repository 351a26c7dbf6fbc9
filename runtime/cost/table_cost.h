// The "table:FILE" cost model: operator costs looked up in a measured cost
// table, with the analytic model of the table's device for signatures it lacks.
#pragma once

#include <memory>
#include <string>

#include "runtime/cost/cost_model.h"

namespace superopt {

// Reads the table at `path`; `name` is what CostModel::name() reports.
// Throws Error for an unreadable table or an unknown analytic_profile.
std::unique_ptr<CostModel> make_table_cost_model(std::string name, const std::string& path);

}  // namespace superopt
