// Command-line plumbing shared by every superopt subcommand: dispatch, option
// parsing with one-line errors, and the exit codes.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/formats/onnx_read.h"

namespace superopt::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran and found a problem (a failed check)
inline constexpr int kExitUsage = 2;    // bad flags, bad files, bad input

namespace po = boost::program_options;

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  std::function<int(const std::vector<std::string>& args)> run;  // args after the name
};

// Runs args[0] as one of subs. With no arguments, -h or --help it lists them
// (exit 0 for help, 2 when nothing was given); an unknown name exits 2.
int dispatch(std::string_view program, std::span<const Subcommand> subs,
             const std::vector<std::string>& args);

// Parses options and positional arguments. Returns nullopt after printing the
// help (unless print_help is false: MPI ranks other than 0) when --help was
// given. Throws Error for unknown or malformed options and missing required ones.
std::optional<po::variables_map> parse(std::string_view usage, const po::options_description& options,
                                       const po::positional_options_description& positional,
                                       const std::vector<std::string>& args, bool print_help = true);

// --input-shape NAME=DIMS (repeatable) and --max-memory, which every command reading a model takes;
// model_options turns what was given into the loader's options (Error on bad text).
void add_model_options(po::options_description& options, std::vector<std::string>& input_shapes);
OnnxImportOptions model_options(const std::vector<std::string>& input_shapes);

// Milliseconds with four decimals, as the timing commands print them.
std::string ms_text(double ms);

// Runs a whole program: catches Error, option errors and running out of memory
// and prints them as "program: message" with exit 2, so nothing escapes as a
// crash. Also ignores SIGXFSZ and turns off HDF5's error printing, once.
int run_main(std::string_view program, const std::function<int()>& body);

}  // namespace superopt::cli
