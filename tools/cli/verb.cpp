#include "tools/cli/verb.h"

#include <fmt/format.h>

#include "model/common/input_error.h"

namespace po = boost::program_options;

namespace marlin::cli {

void add_common_flags(po::options_description& options, CommonFlags& flags) {
  // clang-format off
  options.add_options()
      ("device", po::value<std::string>(&flags.device)->default_value("m4max"),
       "device profile: a name from `marlin-sim devices` or a path to a JSON profile")
      ("json", po::bool_switch(&flags.json), "print JSON instead of tables")
      ("help,h", po::bool_switch(&flags.help), "show this help");
  // clang-format on
}

po::variables_map parse_flags(const std::string& verb, const std::vector<std::string>& args,
                              const po::options_description& options) {
  po::variables_map vm;
  try {
    po::positional_options_description no_positionals;
    po::store(
        po::command_line_parser(args)
            .options(options)
            .positional(no_positionals)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run(),
        vm);
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    throw InputError(
        fmt::format("{}: unexpected word on the command line (flags start with --)", verb));
  } catch (const po::error& error) {
    throw InputError(fmt::format("{}: {}", verb, error.what()));
  }
  return vm;
}

void print_help(std::ostream& out, const std::string& usage, const std::string& summary,
                const po::options_description& options) {
  out << "usage: " << usage << "\n\n" << summary << "\n\n" << options << '\n';
}

void reject_together(const po::variables_map& vm, const std::string& a, const std::string& b) {
  if (vm.count(a) > 0 && !vm[a].defaulted() && vm.count(b) > 0 && !vm[b].defaulted()) {
    throw InputError(fmt::format("--{} and --{} cannot be used together", a, b));
  }
}

void require_flag(const po::variables_map& vm, const std::string& flag) {
  if (vm.count(flag) == 0 || vm[flag].defaulted()) {
    throw InputError(fmt::format("--{} is required", flag));
  }
}

}  // namespace marlin::cli
