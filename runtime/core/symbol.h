// Interned names (graph inputs, weights, nodes): a 4-byte handle, so graphs copy cheaply.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace superopt {

// An interned string. Equal strings give equal symbols within a process; the
// id is not stable across processes, so hashes and files use the text.
class Symbol {
 public:
  Symbol() = default;  // the empty name
  explicit Symbol(std::string_view text);

  const std::string& str() const;
  bool empty() const { return id_ == 0; }
  uint32_t id() const { return id_; }
  bool operator==(const Symbol&) const = default;

 private:
  uint32_t id_ = 0;
};

}  // namespace superopt
