// Building separated lists in text messages.
#pragma once

#include <string>
#include <string_view>

namespace marlin {

// Appends `item` to `list`, preceded by `separator` unless the list is still empty.
inline void append_item(std::string& list, std::string_view separator, std::string_view item) {
  if (!list.empty()) list += separator;
  list += item;
}

}  // namespace marlin
