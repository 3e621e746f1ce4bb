// The pieces every verb shares: its streams, the common flags (--device, --json, --help) and
// strict parsing of its own flags.
#pragma once

#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace marlin::cli {

struct Streams {
  std::ostream& out;
  std::ostream& err;
  // `err` is a terminal: a verb may show progress on it, one line rewritten in place.
  bool err_is_terminal = false;
};

// Flags every verb takes.
struct CommonFlags {
  std::string device = "m4max";
  bool json = false;
  bool help = false;
};

// A verb: its name, one-line summary, and entry point taking the arguments after the verb.
struct Verb {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args, Streams streams);
};

const std::vector<Verb>& verbs();

// Adds --device, --json and --help to `options`, bound to `flags`.
void add_common_flags(boost::program_options::options_description& options, CommonFlags& flags);

// Parses `args` against `options` strictly: unknown flags, positional words and malformed
// values become InputError naming the flag. `verb` is used in messages.
boost::program_options::variables_map parse_flags(
    const std::string& verb, const std::vector<std::string>& args,
    const boost::program_options::options_description& options);

// Prints "usage: <usage>" and the option list.
void print_help(std::ostream& out, const std::string& usage, const std::string& summary,
                const boost::program_options::options_description& options);

// Throws InputError when both flags were given on the command line.
void reject_together(const boost::program_options::variables_map& vm, const std::string& a,
                     const std::string& b);

// Throws InputError when `flag` was not given.
void require_flag(const boost::program_options::variables_map& vm, const std::string& flag);

}  // namespace marlin::cli
