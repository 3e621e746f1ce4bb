#include "model/timing/host_share.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <string>

namespace marlin::timing {
namespace {

std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

std::optional<std::chrono::nanoseconds> thread_run_delay() {
  std::ifstream in("/proc/thread-self/schedstat");
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return run_delay_of_schedstat(line);
}

// The unsigned decimal number at the start of `text` after spaces; `text` moves past it.
std::optional<std::uint64_t> take_number(std::string_view& text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

}  // namespace

std::optional<std::chrono::nanoseconds> run_delay_of_schedstat(std::string_view text) {
  const std::optional<std::uint64_t> run = take_number(text);
  const std::optional<std::uint64_t> delay = take_number(text);
  const std::optional<std::uint64_t> slices = take_number(text);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.remove_prefix(1);
  if (!run || !delay || !slices || !text.empty()) return std::nullopt;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(*delay));
}

ThreadTimes thread_times_now() {
  return ThreadTimes{.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now().time_since_epoch()),
                     .cpu = thread_cpu_time(),
                     .waited = thread_run_delay()};
}

double host_share(const ThreadTimes& from, const ThreadTimes& to) {
  const double wall = std::chrono::duration<double>(to.wall - from.wall).count();
  if (wall <= 0) return 1;
  const double share =
      from.waited && to.waited
          ? 1 - std::chrono::duration<double>(*to.waited - *from.waited).count() / wall
          : std::chrono::duration<double>(to.cpu - from.cpu).count() / wall;
  return std::clamp(share, 0.0, 1.0);
}

}  // namespace marlin::timing
