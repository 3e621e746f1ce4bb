// ZeroPageAllocator: memory from std::calloc, whose elements a vector's default construction
// leaves as calloc made them (zero). A large vector of it is written nowhere until used: the
// operating system maps a zero page at each page's first touch, so a launch that writes a
// corner of a large output, or a replay that uses a corner of a large cache model, pays only
// for the pages it writes.
// Contract: default construction writes nothing, so elements are zero only in fresh storage;
// a vector shrunk and grown again within its capacity keeps the old values (size it once).
// T must be trivially copyable and destructible (an implicit-lifetime type, which calloc's
// bytes can hold) and its all-zero bytes must be the value it means by zero.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace marlin {

template <typename T>
struct ZeroPageAllocator {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  using value_type = T;

  ZeroPageAllocator() = default;
  template <typename U>
  explicit ZeroPageAllocator(const ZeroPageAllocator<U>& /*other*/) noexcept {}

  T* allocate(std::size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (p == nullptr && n > 0) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t /*n*/) noexcept { std::free(p); }

  // Default construction keeps the zero; any other construction is the usual one.
  template <typename U>
  void construct(U* /*p*/) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const ZeroPageAllocator&, const ZeroPageAllocator&) noexcept {
    return true;
  }
};

}  // namespace marlin
