// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/proc_modules.hpp"

#include <cctype>
#include <charconv>
#include <sstream>

#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

template <typename T>
bool to_number(const std::string& s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool valid_module_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace

std::vector<KernelModule> parse_proc_modules(std::string_view text) {
  std::vector<KernelModule> out;
  for (auto line : split_lines(text)) {
    std::istringstream in{std::string(line)};
    std::string name, size, refs, users, state, addr, taints;
    if (!(in >> name >> size >> refs >> users >> state)) continue;
    in >> addr;
    std::getline(in, taints);
    KernelModule m;
    if (!valid_module_name(name) || !to_number(size, m.size) || !to_number(refs, m.refcount))
      continue;
    m.name = name;
    m.state = state;
    m.taints = std::string(trim(taints));
    if (users != "-") {
      std::string u;
      std::istringstream us(users);
      while (std::getline(us, u, ','))
        if (!u.empty()) m.used_by.push_back(u);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace jetgate::facts
