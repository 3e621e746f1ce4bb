// marlin-msl-prepass <input.metal> -o <output.cpp> [--depfile <file.d>] [--batch]
#include <fstream>
#include <iostream>
#include <string>

#include "sim/prepass/translator.h"

int main(int argc, char** argv) {
  std::string input;
  std::string output;
  std::string depfile;
  marlin::prepass::TranslateOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (arg == "--depfile" && i + 1 < argc) {
      depfile = argv[++i];
    } else if (arg == "--batch") {
      options.batch = true;
    } else if (input.empty() && !arg.empty() && arg[0] != '-') {
      input = arg;
    } else {
      std::cerr << "marlin-msl-prepass: error: unexpected argument '" << arg << "'\n";
      return 2;
    }
  }
  if (input.empty() || output.empty()) {
    std::cerr
        << "usage: marlin-msl-prepass <input.metal> -o <output.cpp> [--depfile <file>] [--batch]\n";
    return 2;
  }
  try {
    const marlin::prepass::Translation t = marlin::prepass::translate_file(input, options);
    std::ofstream out(output);
    out << t.cpp;
    if (!out) {
      std::cerr << "marlin-msl-prepass: error: cannot write " << output << "\n";
      return 1;
    }
    if (!depfile.empty()) {
      std::ofstream dep(depfile);
      dep << output << ":";
      for (const std::string& d : t.dependencies) dep << " \\\n  " << d;
      dep << "\n";
    }
  } catch (const marlin::prepass::TranslateError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
