#include <unistd.h>

#include <iostream>

#include "tools/cli/cli.h"

int main(int argc, char** argv) {
  return marlin::cli::run(argc, argv, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
}
