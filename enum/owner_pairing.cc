// Candidate rules from the classes a rank owns, pruned and put on the wire.
#include "enum/owner_pairing.h"

#include <cstring>
#include <unordered_set>

#include "enum/pruning.h"
#include "enum/renaming.h"

namespace superopt::enumeration {
namespace {

GraphCode decode(std::string_view bytes, const Opset& opset) {
  return GraphCode::from_bytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, opset);
}

void append_u64(std::string& out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}

// Wire format: renaming key, fp, source, target, outputs.
void append_rule(std::string& out, uint64_t key, const CandidateRule& r) {
  append_u64(out, key);
  append_u64(out, r.fingerprint);
  for (const GraphCode* c : {&r.source, &r.target}) {
    std::string bytes;
    c->append_bytes(bytes);
    out.push_back(static_cast<char>(bytes.size()));
    out += bytes;
  }
  out.push_back(static_cast<char>(r.source_outputs.size()));
  for (int t : r.source_outputs) out.push_back(static_cast<char>(t));
  for (int t : r.target_outputs) out.push_back(static_cast<char>(t));
}

}  // namespace

std::vector<KeyedRule> read_rules(const std::string& in, const Opset& opset) {
  std::vector<KeyedRule> rules;
  auto byte = [&](size_t at) { return static_cast<uint8_t>(in[at]); };
  for (size_t at = 0; at < in.size();) {
    KeyedRule k;
    CandidateRule& r = k.rule;
    std::memcpy(&k.key, in.data() + at, 8);
    std::memcpy(&r.fingerprint, in.data() + at + 8, 8);
    at += 16;
    for (GraphCode* c : {&r.source, &r.target}) {
      size_t len = byte(at++);
      *c = decode(std::string_view(in).substr(at, len), opset);
      at += len;
    }
    size_t outputs = byte(at++);
    for (size_t n = 0; n < outputs; ++n) r.source_outputs.push_back(byte(at++));
    for (size_t n = 0; n < outputs; ++n) r.target_outputs.push_back(byte(at++));
    rules.push_back(std::move(k));
  }
  return rules;
}

OwnedRules pair_owned_classes(RecordStore& store, const Opset& opset, uint64_t seed,
                              const RecordStore::Progress& progress,
                              const std::function<void()>& after_class) {
  OwnedRules owned;
  CandidatePairing pairing(opset, seed);
  std::vector<GraphCode> members;
  std::unordered_set<uint64_t> structures;
  auto pair_class = [&](uint64_t fingerprint, const std::vector<std::string_view>& codes) {
    members.clear();
    structures.clear();
    for (std::string_view bytes : codes) {
      // Two canonical graphs that are renamings of one graph align to it twice.
      GraphCode code = decode(bytes, opset);
      if (structures.insert(structure_hash(code, opset)).second) members.push_back(std::move(code));
    }
    ++owned.classes;
    pairing.pair(fingerprint, members, [&](CandidateRule& r) {
      name_canonically(r, opset);
      uint64_t key = renaming_key(r, opset);
      append_u64(owned.keys, key);
      TensorEquality equal = [&](int source_tensor, int target_tensor) {
        return pairing.same_tensor(r.source, source_tensor, r.target, target_tensor);
      };
      if (!has_common_subgraph(r, opset, equal)) append_rule(owned.survivors, key, r);
    });
    if (after_class) after_class();
  };
  store.for_each_class(pair_class, progress);
  owned.counts = pairing.counts();
  return owned;
}

}  // namespace superopt::enumeration
