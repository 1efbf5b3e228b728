// SPDX-License-Identifier: Apache-2.0
#include "cli/run_every.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/proc/interrupt.hpp"

namespace jetgate::cli {
namespace stdfs = std::filesystem;

std::optional<std::chrono::seconds> parse_duration(const std::string& text) {
  static constexpr struct {
    char unit;
    long long seconds;
  } kUnits[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};
  if (text.empty() || text.size() > 32) return std::nullopt;
  long long total = 0;
  std::size_t next_unit = 0, i = 0;
  while (i < text.size()) {
    std::size_t digits = 0;
    long long n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (++digits > 9) return std::nullopt;
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    if (digits == 0 || i == text.size()) return std::nullopt;  // a unit must follow a number
    std::size_t u = next_unit;
    while (u < std::size(kUnits) && kUnits[u].unit != text[i]) ++u;
    if (u == std::size(kUnits)) return std::nullopt;  // unknown, repeated or out of order
    total += n * kUnits[u].seconds;
    next_unit = u + 1;
    ++i;
  }
  return std::chrono::seconds(total);
}

std::string duration_text(std::chrono::seconds d) {
  long long s = d.count();
  if (s <= 0) return "0s";
  std::string out;
  for (auto [unit, size] : {std::pair{'d', 86400LL}, {'h', 3600LL}, {'m', 60LL}, {'s', 1LL}}) {
    if (s >= size) {
      out += std::to_string(s / size) + unit;
      s %= size;
    }
  }
  return out;
}

std::string run_stamp(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

bool is_run_stamp(const std::string& name) {
  if (name.size() != 16 || name[8] != 'T' || name[15] != 'Z') return false;
  for (std::size_t i = 0; i < 15; ++i)
    if (i != 8 && (name[i] < '0' || name[i] > '9')) return false;
  return true;
}

namespace {

bool read_whole(const stdfs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return !in.bad();
}

}  // namespace

std::string keep_run(const std::string& evidence_dir, const std::string& gate,
                     const std::string& stamp, int keep, std::vector<std::string>& removed,
                     std::string& error) {
  const stdfs::path runs = stdfs::path(evidence_dir) / "runs";
  const stdfs::path dir = runs / stamp;
  std::error_code ec;
  stdfs::create_directories(dir, ec);
  if (ec) {
    error = dir.string() + ": " + ec.message();
    return {};
  }
  for (const std::string& name : {gate + ".json", gate + ".dsse.json"}) {
    const stdfs::path from = stdfs::path(evidence_dir) / name;
    if (!stdfs::is_regular_file(stdfs::symlink_status(from, ec))) {
      if (name == gate + ".json") {
        error = from.string() + ": no evidence file to keep (the run wrote none)";
        return {};
      }
      continue;
    }
    std::string bytes;
    if (!read_whole(from, bytes)) {
      error = from.string() + ": cannot be read";
      return {};
    }
    if (auto w = fs::write_file_atomically(dir.string(), name, bytes); !w) {
      error = w.error().message();
      return {};
    }
  }
  // The oldest go first; only directories whose whole name is a stamp are ever removed.
  std::vector<std::string> stamps;
  for (stdfs::directory_iterator it(runs, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (is_run_stamp(name) && stdfs::is_directory(it->symlink_status(ec))) stamps.push_back(name);
  }
  std::sort(stamps.begin(), stamps.end());
  const std::size_t limit = static_cast<std::size_t>(std::max(keep, 1));
  for (std::size_t i = 0; stamps.size() > limit && i < stamps.size() - limit; ++i) {
    std::error_code rm;
    stdfs::remove_all(runs / stamps[i], rm);
    if (!rm) removed.push_back((runs / stamps[i]).string());
  }
  return dir.string();
}

bool wait_or_interrupt(std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  for (;;) {
    if (proc::interrupt_signal() != 0) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p {
      proc::interrupt_fd(), POLLIN, 0
    };
    // At most a minute per poll: a signal that lands before poll starts is seen next round.
    const int ms = static_cast<int>(std::min<long long>(left.count(), 60000));
    if (::poll(&p, p.fd >= 0 ? 1 : 0, ms) > 0) proc::drain_interrupt_fd();
  }
}

}  // namespace jetgate::cli
