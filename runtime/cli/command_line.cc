// Subcommand dispatch and option parsing for the superopt executable.
#include "runtime/cli/command_line.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <new>

#include "runtime/cli/numeric_flags.h"
#include "runtime/db/hdf5_file.h"

namespace superopt::cli {

int dispatch(std::string_view program, std::span<const Subcommand> subs,
             const std::vector<std::string>& args) {
  auto list = [&](std::ostream& out) {
    out << "usage: " << program << " COMMAND [ARGS...]   (" << program
        << " COMMAND --help for details)\n\ncommands:\n";
    for (const Subcommand& s : subs) {
      out << "  " << s.name;
      for (size_t i = s.name.size(); i < 12; ++i) out << ' ';
      out << "  " << s.summary << "\n";
    }
  };
  if (args.empty()) {
    list(std::cerr);
    return kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    list(std::cout);
    return kExitOk;
  }
  for (const Subcommand& s : subs)
    if (s.name == args[0]) return s.run(std::vector<std::string>(args.begin() + 1, args.end()));
  throw Error("unknown command '" + args[0] + "' (try " + std::string(program) + " --help)");
}

namespace {

// Boost.ProgramOptions 1.74 builds an error's message by replacing its
// placeholders until none is left (error_with_option_name::replace_token), so
// a rejected argument that contains one loops forever: `--budget %value%`
// hung. Such an argument is refused before Boost sees it.
void refuse_boost_placeholders(const std::vector<std::string>& args) {
  static const char* const kPlaceholders[] = {"%canonical_option%", "%original_token%", "%prefix_option%",
                                              "%option%",           "%prefix%",         "%value%"};
  for (const std::string& arg : args)
    for (const char* placeholder : kPlaceholders)
      if (arg.find(placeholder) != std::string::npos)
        throw Error("argument '" + arg + "' contains '" + placeholder +
                    "', which the option parser cannot quote in its messages");
}

// An empty value given on the command line (`--out ''`, `--only ''`, a model
// path '') meant nothing silently before: no file written, every axiom.
// Options whose default is empty are not affected unless given.
void refuse_empty_values(const po::variables_map& vm, const po::options_description& options,
                         const po::positional_options_description& positional) {
  auto is_positional = [&](const std::string& name) {
    for (unsigned k = 0; k < positional.max_total_count() && k < 16; ++k)
      if (positional.name_for_position(k) == name) return true;
    return false;
  };
  for (const auto& [name, value] : vm) {
    if (value.defaulted() || value.empty()) continue;
    // Switches (`--force`, `--json`) hold an empty string of no token.
    const po::option_description* option = options.find_nothrow(name, false);
    if (!option || option->semantic()->min_tokens() == 0) continue;
    bool empty = false;
    if (const auto* text = boost::any_cast<std::string>(&value.value())) empty = text->empty();
    if (const auto* list = boost::any_cast<std::vector<std::string>>(&value.value()))
      for (const std::string& item : *list) empty = empty || item.empty();
    if (!empty) continue;
    if (is_positional(name)) throw Error("the " + name + " argument is empty");
    throw Error("--" + name + ": empty value");
  }
}

}  // namespace

std::optional<po::variables_map> parse(std::string_view usage, const po::options_description& options,
                                       const po::positional_options_description& positional,
                                       const std::vector<std::string>& args, bool print_help) {
  refuse_boost_placeholders(args);
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      if (print_help) std::cout << "usage: " << usage << "\n\n" << all;
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(e.what());
  }
  refuse_empty_values(vm, all, positional);
  return vm;
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", ms);
  return buf;
}

int run_main(std::string_view program, const std::function<int()>& body) {
  // A file size limit (ulimit -f) then fails the write with EFBIG, which the
  // writers report, instead of killing the process with the file half written.
  std::signal(SIGXFSZ, SIG_IGN);
  // Once for the process: HDF5 failures reach the user only as our one-line errors.
  hdf5::silence_errors();
  try {
    return body();
  } catch (const Error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kExitUsage;
  } catch (const po::error& e) {
    std::cerr << program << ": " << printable(e.what()) << "\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": out of memory\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << printable(e.what()) << "\n";
    return kExitFailure;
  }
}

void add_model_options(po::options_description& options, std::vector<std::string>& input_shapes) {
  add_memory_option(options);
  options.add_options()("input-shape", po::value(&input_shapes)->composing(),
                        "NAME=DIMS, e.g. x=1x3x224x224: the shape of an ONNX model's input (required for "
                        "inputs with a dynamic dimension; repeat for several inputs)");
}

OnnxImportOptions model_options(const std::vector<std::string>& input_shapes) {
  OnnxImportOptions options;
  for (const std::string& text : input_shapes) options.input_shapes.push_back(parse_input_shape(text));
  return options;
}

}  // namespace superopt::cli
