#include "model/analytic/tile.h"

#include <array>

#include "fmt/core.h"
#include "model/common/input_error.h"

namespace marlin::analytic {

void validate_tile(const Tile& tile) {
  struct NamedDim {
    const char* name;
    int value;
  };
  const std::array<NamedDim, 3> dims{
      {{"tile M", tile.tm}, {"tile N", tile.tn}, {"tile K", tile.tk}}};
  for (const auto& dim : dims) {
    if (dim.value < kMmaDim || dim.value % kMmaDim != 0) {
      throw InputError(fmt::format("{} must be a positive multiple of {} (got {})", dim.name,
                                   kMmaDim, dim.value));
    }
  }
}

std::string tile_name(const Tile& tile) {
  return fmt::format("{}x{}x{}", tile.tm, tile.tn, tile.tk);
}

}  // namespace marlin::analytic
