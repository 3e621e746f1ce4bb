// Device atomics under contention from many threadgroups.
#include <metal_stdlib>
using namespace metal;

// counters[0] += 1 per thread, counters[1] -= 1, counters[2] = max(gid), counters[3] =
// min(gid + 5); histogram[gid % 8] += 1; fsum += 0.5 per thread; xchg and CAS bookkeeping.
kernel void test_atomics(device atomic_uint* counters [[buffer(0)]],
                         device atomic_int* signed_counters [[buffer(1)]],
                         device atomic_uint* histogram [[buffer(2)]],
                         device atomic_float* fsum [[buffer(3)]],
                         device uint* seen [[buffer(4)]],
                         uint gid [[thread_position_in_grid]]) {
  atomic_fetch_add_explicit(&counters[0], 1u, memory_order_relaxed);
  atomic_fetch_max_explicit(&counters[1], gid, memory_order_relaxed);
  atomic_fetch_min_explicit(&counters[2], gid + 5, memory_order_relaxed);
  atomic_fetch_sub_explicit(&signed_counters[0], 2, memory_order_relaxed);
  atomic_fetch_add_explicit(histogram + (gid % 8), 1u, memory_order_relaxed);
  atomic_fetch_add_explicit(fsum, 0.5f, memory_order_relaxed);
  // Each thread claims a unique ticket from counters[3] with a CAS loop.
  uint expected = atomic_load_explicit(&counters[3], memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(&counters[3], &expected, expected + 1,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
  seen[expected] = gid + 1;
  const uint old = atomic_exchange_explicit(&counters[4], gid, memory_order_relaxed);
  (void)old;
  atomic_store_explicit(&counters[5], 42u, memory_order_relaxed);
}

// A threadgroup-memory counter: thread 0 initializes it, all threads increment it, thread 0
// publishes it.
kernel void test_threadgroup_atomic(device uint* out [[buffer(0)]],
                                    uint tid [[thread_index_in_threadgroup]],
                                    uint tg [[threadgroup_position_in_grid]]) {
  threadgroup atomic_uint counter;
  if (tid == 0) {
    atomic_store_explicit(&counter, 0u, memory_order_relaxed);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  atomic_fetch_add_explicit(&counter, tid + 1, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid == 0) {
    out[tg] = atomic_load_explicit(&counter, memory_order_relaxed);
  }
}
