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

// Three quarters of the machine's memory, or of the cgroup's limit if lower.
int64_t machine_budget_bytes() {
  int64_t physical = int64_t{sysconf(_SC_PHYS_PAGES)} * int64_t{sysconf(_SC_PAGE_SIZE)};
  if (physical <= 0) physical = int64_t{8} << 30;  // unknown: a modest machine
  if (int64_t limit = cgroup_limit_bytes(); limit > 0) physical = std::min(physical, limit);
  return physical / 4 * 3;
}

}  // namespace

// Computed once: the evaluator asks for the budget on every evaluation, and
// reading the cgroup files each time (two opens, a read and a sysinfo call) took
// more than half of the generator's CPU time, in the kernel.
int64_t default_memory_budget_bytes() {
  static const int64_t bytes = machine_budget_bytes();
  return bytes;
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
  if (needed_bytes <= budget) return;
  std::string needed = bytes_text(needed_bytes), allowed = bytes_text(budget);
  // "needs 33.6 MB, over the budget of 33.6 MB" says nothing: exact bytes then.
  if (needed == allowed) {
    needed = std::to_string(needed_bytes) + " bytes";
    allowed = std::to_string(budget) + " bytes";
  }
  throw Error(what + " needs " + needed + ", over the memory budget of " + allowed + " (--max-memory)");
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
