// The memory budget: how many bytes of tensors superopt may hold at once,
// checked from shapes before anything is allocated, so that a graph too large
// for the machine is refused at once with one line (the tensor, its size, the
// budget) instead of swapping the machine to a halt or dying in malloc.
#pragma once

#include <cstdint>
#include <string>

namespace superopt {

// The budget in bytes: what set_memory_budget gave, else the default.
int64_t memory_budget_bytes();
// Sets the budget (--max-memory); bytes >= 1.
void set_memory_budget(int64_t bytes);
// 3/4 of the machine's memory, or of the cgroup's limit (a container, a Slurm
// job) when that is lower: room for everything that is not a tensor.
int64_t default_memory_budget_bytes();

// Throws Error "WHAT needs NEEDED, over the memory budget of BUDGET (--max-memory)"
// when needed_bytes is over the budget.
void check_memory_budget(int64_t needed_bytes, const std::string& what);

// "7.2 GB", "512 bytes": sizes as messages print them (powers of 1000).
std::string bytes_text(int64_t bytes);

}  // namespace superopt
