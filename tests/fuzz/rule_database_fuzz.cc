// libFuzzer harness: rule databases (HDF5, runtime/db/rule_database.h). The
// input describes the file's content (hdf5_from_json.h); it is written as a
// real file that our reader opens, as `verify`, `optimize` and `db` do, and
// the operator set stored in it is parsed as `optimize` does.
#include "runtime/db/rule_database.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/hdf5_from_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace superopt;
  const std::string path = (fuzz::scratch_dir() / "rules.h5").string();
  if (!fuzz::write_hdf5_from_json(fuzz::as_text(data, size), path)) return 0;
  fuzz::expect_clean([&] {
    RuleDatabase db = RuleDatabase::read(path);
    db.operators_used();
    db.opset_operators();
  });
  return 0;
}
