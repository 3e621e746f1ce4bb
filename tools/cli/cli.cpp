#include "tools/cli/cli.h"

#include <fmt/format.h>

#include <exception>
#include <string>
#include <vector>

#include "model/common/input_error.h"
#include "model/common/invariant.h"
#include "model/common/join.h"
#include "tools/cli/main_job.h"
#include "tools/cli/verb.h"

namespace marlin::cli {
namespace {

void print_global_help(std::ostream& out) {
  out << "usage: marlin-sim [--device NAME|PATH] [--json]      the main job\n"
         "       marlin-sim VERB [flags]                       one verb (VERB --help)\n\n"
         "marlin-sim simulates Apple M-series GPU cores running Metal quantized-GEMM kernels\n"
         "and reports occupancy, waves, arithmetic intensity and where the time goes.\n\n"
         "verbs:\n";
  for (const Verb& verb : verbs()) out << fmt::format("  {:<12}{}\n", verb.name, verb.summary);
  out << "\nThe main job prints the device summary and recomputes the tile-sizing analysis\n"
         "(budgets, occupancy, waves, intensity) for the chosen device.\n";
}

const Verb* find_verb(const std::string& name) {
  for (const Verb& verb : verbs()) {
    if (name == verb.name) return &verb;
  }
  return nullptr;
}

std::string verb_names() {
  std::string names;
  for (const Verb& verb : verbs()) append_item(names, ", ", verb.name);
  return names;
}

int dispatch(const std::vector<std::string>& args, Streams streams) {
  if (args.empty() || args[0].rfind('-', 0) == 0) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h") && args.size() == 1) {
      print_global_help(streams.out);
      return 0;
    }
    return run_main_job(args, streams);
  }
  const Verb* verb = find_verb(args[0]);
  if (verb == nullptr) {
    throw InputError(fmt::format("unknown verb '{}'; the verbs are: {}", args[0], verb_names()));
  }
  return verb->run(std::vector<std::string>(args.begin() + 1, args.end()), streams);
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool err_is_terminal) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  try {
    return dispatch(args, Streams{out, err, err_is_terminal});
  } catch (const InputError& error) {
    err << "marlin-sim: error: " << error.what() << '\n';
    return 2;
  } catch (const InvariantError& error) {
    err << "marlin-sim: internal error: " << error.what() << '\n';
    return 3;
  } catch (const std::exception& error) {
    err << "marlin-sim: internal error: " << error.what() << '\n';
    return 3;
  }
}

}  // namespace marlin::cli
