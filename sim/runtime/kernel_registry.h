// The registry of compiled kernels: each translated .metal file registers its entry points
// (by Metal name) with their argument bindings and kernel-scope threadgroup declarations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace marlin::sim {

struct BindContext;
using KernelEntry = void (*)(BindContext& context);

enum class ParamKind : std::uint8_t { kBuffer, kThreadgroup, kBuiltin };

struct KernelParam {
  ParamKind kind = ParamKind::kBuffer;
  std::uint32_t index = 0;  // [[buffer(n)]] / [[threadgroup(n)]]; unused for built-ins
  const char* name = "";
};

struct ThreadgroupDecl {
  std::size_t bytes = 0;
  std::size_t align = 1;
  const char* name = "";
};

struct KernelInfo {
  std::string name;  // Metal name (host_name for template instances)
  KernelEntry entry = nullptr;
  std::vector<KernelParam> params;
  std::vector<ThreadgroupDecl> threadgroup_decls;  // kernel-scope, in declaration order
  bool synchronizes = true;  // false: no barrier or collective anywhere in the source
  std::uint32_t max_total_threads_per_threadgroup = 0;  // 0: no attribute
  const char* source = "";

  // Bytes of the kernel-scope declarations laid out in order with their alignment.
  std::size_t static_threadgroup_bytes() const;
};

// Registers a kernel; duplicates are remembered and reported by find_kernel.
void register_kernel(KernelInfo info);
// The kernel named `name`; throws InputError if unknown or registered twice.
const KernelInfo& find_kernel(std::string_view name);
std::vector<std::string> kernel_names();

struct KernelRegistrar {
  explicit KernelRegistrar(KernelInfo info) { register_kernel(std::move(info)); }
};

}  // namespace marlin::sim
