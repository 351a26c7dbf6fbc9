// The process-wide symbol table behind Symbol; append-only and thread-safe.
#include "runtime/core/symbol.h"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace superopt {
namespace {

struct SymbolTable {
  std::mutex mutex;
  std::deque<std::string> texts{std::string()};  // deque: references stay valid
  std::unordered_map<std::string_view, uint32_t> ids{{std::string_view(), 0}};
};

SymbolTable& table() {
  static SymbolTable* t = new SymbolTable;  // never destroyed: used during exit
  return *t;
}

}  // namespace

Symbol::Symbol(std::string_view text) {
  SymbolTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.ids.find(text);
  if (it != t.ids.end()) {
    id_ = it->second;
    return;
  }
  id_ = static_cast<uint32_t>(t.texts.size());
  t.texts.emplace_back(text);
  t.ids.emplace(t.texts.back(), id_);
}

const std::string& Symbol::str() const {
  SymbolTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.texts[id_];
}

}  // namespace superopt
