// Writes a small cost table for the tests that read it with other tools
// (h5py, h5dump) and the CLI: make_cost_fixture PATH.
#include <iostream>

#include "runtime/core/error.h"
#include "runtime/cost/cost_table.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_cost_fixture PATH\n";
    return 2;
  }
  superopt::CostTable table;
  table.info.device = "NVIDIA H100 80GB HBM3";
  table.info.driver = "580.65";
  table.info.cudnn = "9.10.2";
  table.info.cublas = "12.9.1";
  table.info.analytic_profile = "h100";
  table.insert("conv2d|stride=1x1 padding=same activation=relu|1x64x56x56,64x64x3x3|row",
               {0.042, "IMPLICIT_PRECOMP_GEMM", 200});
  table.insert("relu||1x2048x7x7|row", {0.0031, "", 100});
  try {
    table.write(argv[1]);
  } catch (const superopt::Error& e) {
    std::cerr << "make_cost_fixture: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
