#include "sim/runtime/batch_registry.h"

#include <map>
#include <mutex>
#include <string>

namespace marlin::sim {

namespace {
struct BatchRegistry {
  std::mutex mutex;
  std::map<std::string, BatchKernelEntry, std::less<>> entries;
};
BatchRegistry& batch_registry() {
  static BatchRegistry r;
  return r;
}
}  // namespace

BatchKernelRegistrar::BatchKernelRegistrar(const char* name, BatchKernelEntry entry) {
  BatchRegistry& r = batch_registry();
  std::lock_guard lock(r.mutex);
  r.entries.emplace(name, entry);  // a duplicate name is reported by find_kernel
}

BatchKernelEntry find_batch_kernel(std::string_view name) {
  BatchRegistry& r = batch_registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.entries.find(name);
  return it == r.entries.end() ? nullptr : it->second;
}

}  // namespace marlin::sim
