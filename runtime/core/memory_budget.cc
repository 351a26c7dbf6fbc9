// The process's memory budget (memory_budget.h).
#include "runtime/core/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>

#include "runtime/core/error.h"

namespace superopt {
namespace {

std::atomic<int64_t> g_budget_bytes{0};  // 0: not set, the default applies

// A cgroup's memory limit, or 0 when there is none ("max", no file).
int64_t cgroup_limit_bytes() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    std::string text;
    if (!(f >> text) || text == "max") continue;
    try {
      int64_t bytes = std::stoll(text);
      if (bytes > 0) return bytes;
    } catch (const std::exception&) {
      // unreadable: as if there were no limit
    }
  }
  return 0;
}

}  // namespace

// Read once: the evaluator checks the budget at every node, and opening the
// cgroup files there made enumerate's pairing spend most of its time in the
// kernel (3.7 s of system CPU against 1.1 s of user CPU on taso-2d.json at 3
// operators).
int64_t default_memory_budget_bytes() {
  static const int64_t budget_bytes = [] {
    int64_t physical = int64_t{sysconf(_SC_PHYS_PAGES)} * int64_t{sysconf(_SC_PAGE_SIZE)};
    if (physical <= 0) physical = int64_t{8} << 30;  // unknown: a modest machine
    if (int64_t limit = cgroup_limit_bytes(); limit > 0) physical = std::min(physical, limit);
    return physical / 4 * 3;
  }();
  return budget_bytes;
}

int64_t memory_budget_bytes() {
  int64_t set = g_budget_bytes.load();
  return set > 0 ? set : default_memory_budget_bytes();
}

void set_memory_budget(int64_t bytes) {
  g_budget_bytes.store(std::max<int64_t>(bytes, 1));
}

void check_memory_budget(int64_t needed_bytes, const std::string& what) {
  const int64_t budget = memory_budget_bytes();
  if (needed_bytes > budget)
    throw Error(what + " needs " + bytes_text(needed_bytes) + ", over the memory budget of " +
                bytes_text(budget) + " (--max-memory)");
}

std::string bytes_text(int64_t bytes) {
  const char* units[] = {"kB", "MB", "GB", "TB", "PB"};
  if (bytes < 1000) return std::to_string(bytes) + " bytes";
  double x = double(bytes);
  int unit = -1;
  while (x >= 1000 && unit < 4) x /= 1000, ++unit;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", x, units[unit]);
  return buf;
}

}  // namespace superopt
