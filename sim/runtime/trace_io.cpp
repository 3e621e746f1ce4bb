#include "sim/runtime/trace_io.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "model/common/input_error.h"

namespace marlin::sim {

namespace {

static_assert(std::endian::native == std::endian::little, "trace files are little-endian");
constexpr std::array<char, 8> kMagic = {'M', 'S', 'I', 'M', 'T', 'R', 'C', '\0'};

template <class T>
void put(std::ostream& out, const T& v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <class T>
void put_array(std::ostream& out, const std::vector<T>& v) {
  put(out, static_cast<std::uint64_t>(v.size()));
  out.write(reinterpret_cast<const char*>(v.data()),
            static_cast<std::streamsize>(v.size() * sizeof(T)));
}

class Reader {
 public:
  Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {}
  template <class T>
  T get() {
    T v{};
    in_.read(reinterpret_cast<char*>(&v), sizeof(T));
    if (!in_) throw InputError(fmt::format("{}: truncated trace file", name_));
    return v;
  }
  template <class T>
  std::vector<T> get_array() {
    const auto n = get<std::uint64_t>();
    if (n > (std::uint64_t{1} << 36)) {
      throw InputError(fmt::format("{}: corrupt trace file (array of {} entries)", name_, n));
    }
    std::vector<T> v(n);
    in_.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
    if (!in_) throw InputError(fmt::format("{}: truncated trace file", name_));
    return v;
  }

 private:
  std::istream& in_;
  const std::string& name_;
};

}  // namespace

void write_trace(std::ostream& out, const LaunchTrace& t) {
  out.write(kMagic.data(), kMagic.size());
  put(out, t.version);
  const std::vector<char> kernel(t.kernel.begin(), t.kernel.end());
  put_array(out, kernel);
  put(out, t.threadgroups_per_grid);
  put(out, t.threads_per_threadgroup);
  put(out, t.threadgroup_memory_bytes);
  put(out, static_cast<std::uint64_t>(t.simdgroups.size()));
  for (const SimdgroupTrace& s : t.simdgroups) {
    put(out, s.threadgroup);
    put(out, s.simdgroup);
    put_array(out, s.ops);
    put_array(out, s.accesses);
  }
}

LaunchTrace read_trace(std::istream& in, const std::string& name) {
  Reader r(in, name);
  const auto magic = r.get<std::array<char, 8>>();
  if (magic != kMagic) throw InputError(fmt::format("{}: not a marlin-sim trace file", name));
  LaunchTrace t;
  t.version = r.get<std::uint32_t>();
  if (t.version != kTraceFormatVersion) {
    throw InputError(fmt::format("{}: trace format version {} (this build reads version {})", name,
                                 t.version, kTraceFormatVersion));
  }
  const auto kernel = r.get_array<char>();
  t.kernel.assign(kernel.begin(), kernel.end());
  t.threadgroups_per_grid = r.get<std::array<std::uint32_t, 3>>();
  t.threads_per_threadgroup = r.get<std::array<std::uint32_t, 3>>();
  t.threadgroup_memory_bytes = r.get<std::uint64_t>();
  const auto count = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < count; ++i) {
    SimdgroupTrace s;
    s.threadgroup = r.get<std::array<std::uint32_t, 3>>();
    s.simdgroup = r.get<std::uint32_t>();
    s.ops = r.get_array<TraceOp>();
    s.accesses = r.get_array<MemAccess>();
    for (const TraceOp& op : s.ops) {
      if (op.op == OpClass::kAlu) {
        if (!chain_fits_run(op)) {
          throw InputError(
              fmt::format("{}: corrupt trace file (ALU chain longer than its run)", name));
        }
        continue;
      }
      if (!accesses_in_range(s.accesses, op)) {
        throw InputError(fmt::format("{}: corrupt trace file (access index out of range)", name));
      }
    }
    t.simdgroups.push_back(std::move(s));
  }
  return t;
}

}  // namespace marlin::sim
