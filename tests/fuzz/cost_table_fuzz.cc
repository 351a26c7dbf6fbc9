// libFuzzer harness: measured cost tables (HDF5, runtime/cost/cost_table.h),
// read by `--cost table:FILE`. The input describes the file's content
// (hdf5_from_json.h); it is written as a real file that our reader opens.
#include "runtime/cost/cost_table.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/hdf5_from_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace superopt;
  const std::string path = (fuzz::scratch_dir() / "costs.h5").string();
  if (!fuzz::write_hdf5_from_json(fuzz::as_text(data, size), path)) return 0;
  fuzz::expect_clean([&] {
    CostTable table = CostTable::read(path);
    table.lookup("relu||1x2048x7x7|row");
  });
  return 0;
}
