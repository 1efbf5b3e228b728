#include "jetgate/report/sanitize.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <optional>
#include <regex>

namespace jetgate::report {
namespace {

// Decides, for one regex match in a line, what replaces it (nullopt: keep).
using Replacer = std::function<std::optional<std::string>(const std::smatch&, const std::string& line)>;

struct Rule {
  std::regex pattern;
  Replacer replace;
};

std::regex re(const char* pattern, bool icase = false) {
  auto flags = std::regex::ECMAScript | std::regex::optimize;
  if (icase) flags |= std::regex::icase;
  return std::regex(pattern, flags);
}

Replacer fixed(std::string text) {
  return [text = std::move(text)](const std::smatch&, const std::string&) { return text; };
}

// "$1$2[redacted:CLASS]": keeps a keyword and its separator, hides the value.
Replacer keep_prefix(std::string cls, std::function<bool(const std::string&)> accept = {}) {
  return [cls = std::move(cls), accept = std::move(accept)](const std::smatch& m, const std::string&)
             -> std::optional<std::string> {
    if (accept && !accept(m[3].str())) return std::nullopt;
    return m[1].str() + m[2].str() + "[redacted:" + cls + "]";
  };
}

char char_before(const std::smatch& m, const std::string& line) {
  auto pos = static_cast<std::size_t>(m.position(0));
  return pos == 0 ? ' ' : line[pos - 1];
}

char char_after(const std::smatch& m, const std::string& line) {
  auto end = static_cast<std::size_t>(m.position(0) + m.length(0));
  return end >= line.size() ? ' ' : line[end];
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool has_digit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The word just before a match, skipping spaces, ':' and '=': "cuDNN 9.3.0.75"
// -> "cudnn". Four-part versions look like IPv4 addresses; this word tells
// them apart.
std::string word_before(const std::smatch& m, const std::string& line) {
  auto pos = static_cast<std::size_t>(m.position(0));
  while (pos > 0 && (line[pos - 1] == ' ' || line[pos - 1] == ':' || line[pos - 1] == '=' || line[pos - 1] == '\t'))
    --pos;
  std::size_t end = pos;
  while (pos > 0 && (is_word_char(line[pos - 1]) || line[pos - 1] == '-')) --pos;
  return lower(line.substr(pos, end - pos));
}

bool is_version_context(const std::string& word) {
  static const std::array<const char*, 24> kWords = {
      "version", "ver",   "v",         "cudnn",     "tensorrt", "trt",    "vpi",    "cuda",
      "driver",  "torch", "jetpack",   "l4t",       "release",  "nvinfer", "build", "firmware",
      "python",  "gcc",   "kernel",    "libcudnn",  "libnvinfer", "opencv", "bitsandbytes", "toolkit"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end() ||
         (word.size() > 8 && word.substr(word.size() - 8) == "_version");
}

std::optional<std::string> ipv4(const std::smatch& m, const std::string& line) {
  char before = char_before(m, line), after = char_after(m, line);
  if (is_word_char(before) || before == '.' || before == '+' || before == '-') return std::nullopt;
  if (is_word_char(after) || after == '.' || after == '+' || after == '-') return std::nullopt;
  std::string text = m[0].str();
  std::size_t start = 0;
  while (start <= text.size()) {
    auto dot = text.find('.', start);
    std::string octet = text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if ((octet.size() > 1 && octet[0] == '0') || std::stoi(octet) > 255) return std::nullopt;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (is_version_context(word_before(m, line))) return std::nullopt;
  return "[redacted:ip]";
}

std::optional<std::string> ipv6(const std::smatch& m, const std::string& line) {
  char before = char_before(m, line), after = char_after(m, line);
  if (is_word_char(before) || before == ':' || before == '.') return std::nullopt;
  if (is_word_char(after) || after == ':' || after == '.') return std::nullopt;
  std::string text = m[0].str();
  if (text.find(":::") != std::string::npos) return std::nullopt;
  auto groups = std::count(text.begin(), text.end(), ':') + 1;
  bool compressed = text.find("::") != std::string::npos;
  bool any_hex = std::any_of(text.begin(), text.end(), [](char c) { return c != ':'; });
  if (!any_hex || (!compressed && groups != 8)) return std::nullopt;
  return "[redacted:ip]";
}

// Private suffixes only: github.com or nvidia.com name no one's machine.
std::optional<std::string> private_host(const std::smatch& m, const std::string& line) {
  char before = char_before(m, line), after = char_after(m, line);
  if (is_word_char(before) || before == '-' || before == '.' || before == '@') return std::nullopt;
  auto end = static_cast<std::size_t>(m.position(0) + m.length(0));
  if (is_word_char(after) || after == '-' || (after == '.' && end + 1 < line.size() && is_word_char(line[end + 1])))
    return std::nullopt;
  return "[redacted:host]";
}

std::optional<std::string> local_path(const std::smatch& m, const std::string& line) {
  char before = char_before(m, line);
  if (is_word_char(before) || before == '.' || before == '-' || before == '~' || before == '/') return std::nullopt;
  return "[redacted:path]";
}

// System locations name no one's machine and explain CUDA failures (/usr/local/cuda, /dev/nvhost-*,
// /etc/nv_tegra_release); any other absolute path may carry a user, a project or a mount name.
bool is_system_path(std::string_view path) {
  static constexpr std::string_view kSystemPrefixes[] = {"/dev",  "/proc", "/sys",  "/usr", "/etc",
                                                          "/lib",  "/lib32", "/lib64", "/bin", "/sbin",
                                                          "/boot", "/opt/nvidia"};
  for (auto prefix : kSystemPrefixes)
    if (path.substr(0, prefix.size()) == prefix && (path.size() == prefix.size() || path[prefix.size()] == '/'))
      return true;
  return false;
}

std::optional<std::string> absolute_path(const std::smatch& m, const std::string& line) {
  std::string text = m[0].str();
  std::string_view path = text;
  if (path.substr(0, 7) == "file://") path.remove_prefix(7);
  if (is_system_path(path)) return std::nullopt;
  // "[redacted:ip]/24" is a prefix length after an earlier redaction, not a path.
  if (char_before(m, line) == ']') return std::nullopt;
  return local_path(m, line);
}

std::optional<std::string> env_assignment(const std::smatch& m, const std::string& line) {
  if (is_word_char(char_before(m, line))) return std::nullopt;
  if (m[2].str().rfind("[redacted:", 0) == 0) return std::nullopt;
  return m[1].str() + "=[redacted:env]";
}

const std::vector<Rule>& fixed_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> r;
    // Tokens first: their text would otherwise be cut up by later rules.
    r.push_back({re(R"(\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,255}\b)"), fixed("[redacted:token]")});
    r.push_back({re(R"(\bgithub_pat_[A-Za-z0-9_]{20,255})"), fixed("[redacted:token]")});
    r.push_back({re(R"(\bglpat-[A-Za-z0-9_-]{20,255})"), fixed("[redacted:token]")});
    r.push_back({re(R"(\bxox[abposr]-[A-Za-z0-9-]{10,255})"), fixed("[redacted:token]")});
    r.push_back({re(R"(\b(?:AKIA|ASIA)[A-Z0-9]{16}\b)"), fixed("[redacted:token]")});
    r.push_back({re(R"(\b(Bearer|Basic)(\s+)([A-Za-z0-9._~+/=-]{8,1024}))", true), keep_prefix("token")});
    r.push_back({re(R"(\b(Authorization|Proxy-Authorization|X-Api-Key|Private-Token)(\s*:\s*)(\S.{0,1024}))", true),
                 keep_prefix("token")});
    r.push_back({re(R"(\b([A-Za-z_]*(?:password|passwd|secret|token|api_?key|access_?key))(\s*[:=]\s*)("[^"]{0,1024}"|'[^']{0,1024}'|[^\s"'\[]\S{0,1024}))",
                    true),
                 keep_prefix("token")});
    r.push_back({re(R"(\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b)"),
                 fixed("[redacted:email]")});
    r.push_back({re(R"((?:file://)?(?:/home|/Users|/root|/tmp|/var/tmp|/private/tmp|/var/folders|/run/user)(?=$|[/\s"'<>|\]),;:])[^\s"'<>|\]),;:]{0,1024})"),
                 local_path});
    r.push_back({re(R"(~/[^\s"'<>|\]),;:]{0,1024})"), local_path});
    r.push_back({re(R"((?:file://)?/[A-Za-z0-9_.+@-][^\s"'<>|\]),;:]{0,1024})"), absolute_path});
    r.push_back({re(R"(\b[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\s"'<>|]{0,1024})", true), fixed("[redacted:path]")});
    r.push_back({re(R"(\b([A-Z][A-Z0-9_]{1,127})=("[^"]{0,1024}"|'[^']{0,1024}'|\S{0,1024}))"), env_assignment});
    r.push_back({re(R"(\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b)"), fixed("[redacted:mac]")});
    r.push_back({re(R"(\b(?:GPU-|MIG-)?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b)"),
                 fixed("[redacted:serial]")});
    r.push_back({re(R"([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})"), ipv6});
    r.push_back({re(R"(\d{1,3}(?:\.\d{1,3}){3})"), ipv4});
    r.push_back({re(R"(\b(host ?name|host|node ?name|computer ?name|machine)(\s*[:=]\s*)([A-Za-z0-9][A-Za-z0-9._-]{0,252}))", true),
                 keep_prefix("host")});
    r.push_back({re(R"((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}(?:localdomain|local|lan|internal|intranet|corp|home\.arpa|home)\b)",
                    true),
                 private_host});
    // A shell prompt, "user@host:~$": e-mail addresses are gone by now.
    r.push_back({re(R"(\b[a-z_][a-z0-9_.-]{0,31}@[A-Za-z][A-Za-z0-9-]{0,62}(?=$|[:\s]))"),
                 fixed("[redacted:user]@[redacted:host]")});
    r.push_back({re(R"(\b(user ?name|user|login|logname|account)(\s*[:=]\s*)([A-Za-z0-9_][A-Za-z0-9._-]{0,63}))", true),
                 keep_prefix("user")});
    r.push_back({re(R"(\b(serial[ _-]?(?:number|no|num)?|s/n|sn)(\s*[:=#]\s*|\s+)([A-Za-z0-9][A-Za-z0-9-]{3,63}))", true),
                 keep_prefix("serial", has_digit)});
    return r;
  }();
  return rules;
}

std::string apply_rule(const std::string& line, const Rule& rule) {
  std::string out;
  std::size_t last = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), rule.pattern); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (m.length(0) == 0) continue;
    auto replacement = rule.replace(m, line);
    if (!replacement) continue;
    auto pos = static_cast<std::size_t>(m.position(0));
    out.append(line, last, pos - last);
    out += *replacement;
    last = pos + static_cast<std::size_t>(m.length(0));
  }
  out.append(line, last, std::string::npos);
  return out;
}

bool is_generic_name(const std::string& value) {
  static const std::array<const char*, 22> kGeneric = {
      "ubuntu", "nvidia", "jetson", "root",   "runner", "user",  "admin",  "localhost", "linux", "debian", "tegra",
      "orin",   "xavier", "nano",   "docker", "github", "host",  "build",  "default",   "ci",    "test",   "none"};
  return value.size() < 3 || std::find(kGeneric.begin(), kGeneric.end(), lower(value)) != kGeneric.end();
}

std::string escape_regex(const std::string& literal) {
  static const std::string kSpecial = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : literal) {
    if (kSpecial.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// Whole-word occurrences of known values (a host name with any domain tail).
std::vector<Rule> known_value_rules(const SanitizeOptions& o) {
  std::vector<Rule> rules;
  auto add = [&](const std::vector<std::string>& values, const std::string& cls, const char* tail) {
    for (const auto& v : values) {
      if (is_generic_name(v)) continue;
      rules.push_back({re(("(?:" + escape_regex(v) + ")" + tail).c_str(), true),
                       [cls](const std::smatch& m, const std::string& line) -> std::optional<std::string> {
                         char b = char_before(m, line), a = char_after(m, line);
                         if (is_word_char(b) || b == '-' || is_word_char(a) || a == '-') return std::nullopt;
                         return "[redacted:" + cls + "]";
                       }});
    }
  };
  add(o.hostnames, "host", R"((?:\.[A-Za-z0-9-]{1,63}){0,8})");
  add(o.users, "user", "");
  add(o.serials, "serial", "");
  return rules;
}

// At most kMaxSanitizedLine bytes, cut before the last partial word so no
// fragment of a token survives the cut, and without control characters.
std::string bounded_line(std::string_view raw) {
  std::string line(raw);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > kMaxSanitizedLine) {
    std::size_t original = line.size();
    line.resize(kMaxSanitizedLine);
    auto space = line.find_last_of(" \t");
    line.resize(space == std::string::npos ? 0 : space);
    line += " [line cut: " + std::to_string(original) + " bytes]";
  }
  for (auto& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return line;
}

}  // namespace

SanitizeOptions sanitize_options_for_this_machine() {
  SanitizeOptions o;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
    std::string h = host;
    o.hostnames.push_back(h);
    if (auto dot = h.find('.'); dot != std::string::npos) o.hostnames.push_back(h.substr(0, dot));
  }
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) o.users.emplace_back(v);
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name) o.users.emplace_back(pw->pw_name);
  return o;
}

std::string sanitize(std::string_view text, const SanitizeOptions& options) {
  std::vector<Rule> known = known_value_rules(options);
  std::string out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    std::string line = bounded_line(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    for (const auto& rule : fixed_rules()) line = apply_rule(line, rule);
    for (const auto& rule : known) line = apply_rule(line, rule);
    out += line;
    if (nl == std::string_view::npos) break;
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

}  // namespace jetgate::report
