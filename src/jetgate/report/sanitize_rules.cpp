// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/sanitize_rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace jetgate::report::detail {
namespace {

char char_before(const PatternMatch& m, const std::string& line) {
  auto pos = m.position(0);
  return pos == 0 ? ' ' : line[pos - 1];
}

char char_after(const PatternMatch& m, const std::string& line) {
  auto end = m.end(0);
  return end >= line.size() ? ' ' : line[end];
}

bool has_digit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_redacted(const std::string& s) {
  return s.rfind("[redacted:", 0) == 0;
}

// A value already hidden, or one that hides nothing ("password": null).
bool hides_nothing(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  std::string l = lower(v);
  return v.empty() || starts_redacted(v) || l == "null" || l == "none" || l == "true" ||
         l == "false" || l == "~";
}

bool value_hides_something(const PatternMatch& m, const std::string&) {
  return !hides_nothing(m.str(3));
}

bool option_value(const PatternMatch& m, const std::string& line) {
  char before = char_before(m, line);
  return !is_word_char(before) && before != '-' && !hides_nothing(m.str(3));
}

// "Bearer <credential>": prose ("Bearer authentication", "Basic usage") has
// a plain word where a credential has digits, symbols or mixed case.
bool looks_like_credential(const PatternMatch& m, const std::string&) {
  std::string v = m.str(3);
  if (starts_redacted(v)) return false;
  int upper = 0, lower_case = 0;
  for (char c : v) {
    if (c >= '0' && c <= '9') return true;
    if (c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c == '.' || c == '~')
      return true;
    upper += std::isupper(static_cast<unsigned char>(c)) ? 1 : 0;
    lower_case += std::islower(static_cast<unsigned char>(c)) ? 1 : 0;
  }
  return upper >= 2 && lower_case >= 2;
}

bool param_value(const PatternMatch& m, const std::string&) {
  return !starts_redacted(m.str(2));
}

bool url_password(const PatternMatch& m, const std::string&) {
  return !starts_redacted(m.str(2));
}

// The word just before a match, skipping spaces, ':' and '=': "cuDNN 9.3.0.75"
// -> "cudnn". Four-part versions look like IPv4 addresses; this word tells
// them apart.
std::string word_before(const PatternMatch& m, const std::string& line) {
  auto pos = m.position(0);
  while (pos > 0 && (line[pos - 1] == ' ' || line[pos - 1] == ':' || line[pos - 1] == '=' ||
                     line[pos - 1] == '\t'))
    --pos;
  std::size_t end = pos;
  while (pos > 0 && (is_word_char(line[pos - 1]) || line[pos - 1] == '-')) --pos;
  return lower(line.substr(pos, end - pos));
}

bool is_version_context(const std::string& word) {
  static const std::array<const char*, 24> kWords = {
      "version", "ver",      "v",          "cudnn",    "tensorrt",     "trt",
      "vpi",     "cuda",     "driver",     "torch",    "jetpack",      "l4t",
      "release", "nvinfer",  "build",      "firmware", "python",       "gcc",
      "kernel",  "libcudnn", "libnvinfer", "opencv",   "bitsandbytes", "toolkit"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end() ||
         (word.size() > 8 && word.substr(word.size() - 8) == "_version");
}

bool ipv4(const PatternMatch& m, const std::string& line) {
  char before = char_before(m, line), after = char_after(m, line);
  if (is_word_char(before) || before == '.' || before == '+' || before == '-') return false;
  if (is_word_char(after) || after == '.' || after == '+' || after == '-') return false;
  std::string text = m.str(0);
  std::size_t start = 0;
  while (start <= text.size()) {
    auto dot = text.find('.', start);
    std::string octet =
        text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if ((octet.size() > 1 && octet[0] == '0') || std::stoi(octet) > 255) return false;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return !is_version_context(word_before(m, line));
}

bool ipv6(const PatternMatch& m, const std::string& line) {
  char before = char_before(m, line), after = char_after(m, line);
  if (is_word_char(before) || before == ':' || before == '.') return false;
  if (is_word_char(after) || after == ':' || after == '.') return false;
  std::string text = m.str(0);
  if (text.find(":::") != std::string::npos) return false;
  auto groups = std::count(text.begin(), text.end(), ':') + 1;
  bool compressed = text.find("::") != std::string::npos;
  bool any_hex = std::any_of(text.begin(), text.end(), [](char c) { return c != ':'; });
  return any_hex && (compressed || groups == 8);
}

// Private suffixes only: github.com or nvidia.com name no one's machine.
bool private_host(const PatternMatch& m, const std::string& line) {
  char before = char_before(m, line), after = char_after(m, line);
  if (is_word_char(before) || before == '-' || before == '.' || before == '@') return false;
  auto end = m.end(0);
  return !(is_word_char(after) || after == '-' ||
           (after == '.' && end + 1 < line.size() && is_word_char(line[end + 1])));
}

bool local_path(const PatternMatch& m, const std::string& line) {
  char before = char_before(m, line);
  return !(is_word_char(before) || before == '.' || before == '-' || before == '~' ||
           before == '/');
}

// System locations name no one's machine and explain CUDA failures (/usr/local/cuda, /dev/nvhost-*,
// /etc/nv_tegra_release); any other absolute path may carry a user, a project or a mount name.
bool is_system_path(std::string_view path) {
  static constexpr std::string_view kSystemPrefixes[] = {"/dev", "/proc", "/sys",   "/usr",
                                                         "/etc", "/lib",  "/lib32", "/lib64",
                                                         "/bin", "/sbin", "/boot",  "/opt/nvidia"};
  for (auto prefix : kSystemPrefixes)
    if (path.substr(0, prefix.size()) == prefix &&
        (path.size() == prefix.size() || path[prefix.size()] == '/'))
      return true;
  return false;
}

bool absolute_path(const PatternMatch& m, const std::string& line) {
  std::string text = m.str(0);
  std::string_view path = text;
  if (path.substr(0, 7) == "file://") path.remove_prefix(7);
  if (is_system_path(path)) return false;
  // "[redacted:ip]/24" is a prefix length after an earlier redaction, not a path.
  if (char_before(m, line) == ']') return false;
  return local_path(m, line);
}

bool env_assignment(const PatternMatch& m, const std::string& line) {
  return !is_word_char(char_before(m, line)) && !starts_redacted(m.str(3));
}

bool serial_value(const PatternMatch& m, const std::string&) {
  return has_digit(m.str(3));
}

// Pieces of the path rules. A path component inside a home directory may hold
// spaces ("/Users/Jane Doe/work") when a "/" follows it: the user's name and
// their folders must not leak past the first space.
#define JG_PATH_END R"([^\s"'<>|\]),;:])"
#define JG_SEGMENT R"([^/\s"'<>|\]),;:]+)"
// RE2 has no look-ahead. A component with spaces must be followed by "/": the
// segments are followed by a "/" in the pattern itself (the first of the rest
// of the path), so a component that is not followed by one cannot match, and
// the same text matches as with a look-ahead (?=/) after each component
// (SanitizeRules.PathRulesMatchAsWithLookAhead).
#define JG_SEGMENTS "(?:/" JG_SEGMENT "(?: " JG_SEGMENT "){0,3})*"
#define JG_WIN_SEGMENT R"([^\\\s"'<>|]+)"

// Secret names in settings, options and query strings.
#define JG_SECRET_WORDS                                                                          \
  "(?:password|passwd|passphrase|secret|token|api_?key|apikey|access_?key|private_?key|client_?" \
  "secret|credentials?|pwd)"
#define JG_SECRET_OPTION_WORDS                                                                  \
  "(?:token|password|passwd|pass|secret|api-?key|apikey|access-?key|private-key|client-secret|" \
  "credentials?)"
#define JG_SIGNED_URL_PARAMS                                                                       \
  "(?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential|"   \
  "X-Goog-Security-Token|Signature|sig|AWSAccessKeyId|access_token|id_token|refresh_token|client_" \
  "secret|token|"                                                                                  \
  "api_key|apikey)"

// Tokens and webhooks first: later rules (paths, e-mail, env) would cut them up.
const RuleRow kRules[] = {
    {"private-key", "-----begin", "private_key",
     "PEM private keys (RSA, EC, OpenSSH, PGP, PKCS#8), over several lines too",
     R"(-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)", true, "[redacted:private_key]",
     nullptr, R"(-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)"},
    {"url-credentials", "://", "token", "user:password@ in a URL (git, pip, database URLs)",
     R"(\b([A-Za-z][A-Za-z0-9+.-]{1,30}://)[^\s/?#@:"'<>]{1,256}:([^\s/?#@"'<>]{1,256})@)", false,
     "$1[redacted:user]:[redacted:token]@", url_password},
    {"slack-webhook", "hooks.slack.com/", "webhook",
     "Slack incoming webhooks and workflow triggers",
     R"((https?://hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{8,512})",
     false, "$1[redacted:webhook]", nullptr},
    {"discord-webhook", "/webhooks/", "webhook", "Discord webhooks",
     R"((https?://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/)\d{5,30}/[A-Za-z0-9_-]{20,200})",
     false, "$1[redacted:webhook]", nullptr},
    {"teams-webhook", "/webhook", "webhook", "Microsoft Teams / Office 365 incoming webhooks",
     R"((https?://(?:[A-Za-z0-9-]{1,63}\.webhook\.office\.com/webhookb2/|outlook\.office(?:365)?\.com/webhook/))[^\s"'<>]{8,})",
     false, "$1[redacted:webhook]", nullptr},
    {"google-chat-webhook", "chat.googleapis.com/v1/spaces/", "webhook", "Google Chat webhooks",
     R"((https?://chat\.googleapis\.com/v1/spaces/)[^\s"'<>]{4,})", false, "$1[redacted:webhook]",
     nullptr},
    {"zapier-webhook", "hooks.zapier.com/hooks/catch/", "webhook", "Zapier catch hooks",
     R"((https?://hooks\.zapier\.com/hooks/catch/)[^\s"'<>]{4,512})", false, "$1[redacted:webhook]",
     nullptr},
    {"mattermost-webhook", "/hooks/", "webhook",
     "Mattermost-style incoming webhooks (/hooks/ and a 26-character key)",
     R"((https?://[^\s/"'<>]{1,253}/hooks/)[a-z0-9]{26}\b)", false, "$1[redacted:webhook]",
     nullptr},
    {"signed-url-parameter", "?|&", "token",
     "signatures and credentials in query strings: AWS SigV4 (X-Amz-Signature, -Credential, "
     "-Security-Token), GCS "
     "(X-Goog-Signature), Azure SAS (sig), legacy S3 (Signature, AWSAccessKeyId), OAuth "
     "(access_token, ...)",
     R"(([?&](?:amp;)?)" JG_SIGNED_URL_PARAMS R"(=)([^&\s"'<>#]+))", true, "$1[redacted:token]",
     param_value},
    {"jwt", "eyj", "token",
     "JSON Web Tokens (header.payload.signature, the signature may be empty)",
     R"(\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)", false, "[redacted:token]",
     nullptr},
    {"github-token", "ghp_|gho_|ghu_|ghs_|ghr_", "token", "GitHub tokens: ghp_ gho_ ghu_ ghs_ ghr_",
     R"(\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,255}\b)", false, "[redacted:token]", nullptr},
    {"github-fine-grained-pat", "github_pat_", "token",
     "GitHub fine-grained personal access tokens: github_pat_",
     R"(\bgithub_pat_[A-Za-z0-9_]{20,255})", false, "[redacted:token]", nullptr},
    {"gitlab-token", "glpat-|gldt-|glrt-|glptt-|glft-|glimt-|glsoat-|glcbt-|gloas-|gr1348941",
     "token",
     "GitLab tokens: glpat- gldt- glrt- glptt- glft- glimt- glsoat- glcbt-, runner GR1348941",
     R"(\b(?:(?:glpat|gldt|glrt|glptt|glft|glimt|glsoat|glcbt|gloas)-[A-Za-z0-9_-]{20,255}|GR1348941[A-Za-z0-9_-]{20,255}))",
     false, "[redacted:token]", nullptr},
    {"slack-token", "xox|xapp-", "token",
     "Slack tokens: xoxb- xoxp- xoxa- xoxo- xoxs- xoxr- xoxe-, app tokens xapp-",
     R"(\b(?:xox[abposre]-[A-Za-z0-9-]{10,255}|xapp-\d-[A-Za-z0-9-]{10,255}))", false,
     "[redacted:token]", nullptr},
    {"aws-access-key-id", "a3t|akia|asia|abia|acca", "token",
     "AWS access key ids: AKIA ASIA ABIA ACCA A3T",
     R"(\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b)", false, "[redacted:token]", nullptr},
    {"huggingface-token", "hf_|api_org_", "token", "Hugging Face tokens: hf_, api_org_",
     R"(\b(?:hf_|api_org_)[A-Za-z]{34}\b)", false, "[redacted:token]", nullptr},
    {"sk-api-key", "sk-", "token", "sk- API keys (OpenAI sk-, sk-proj-; Anthropic sk-ant-)",
     R"(\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,255})", false, "[redacted:token]",
     nullptr},
    {"google-api-key", "aiza", "token", "Google API keys: AIza", R"(\bAIza[0-9A-Za-z_-]{35})",
     false, "[redacted:token]", nullptr},
    {"package-registry-token", "npm_|pypi-|dckr_pat_", "token",
     "npm (npm_), PyPI (pypi-AgEIcHlwaS5vcmc) and Docker Hub (dckr_pat_) tokens",
     R"(\b(?:npm_[A-Za-z0-9]{36}|pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000}|dckr_pat_[A-Za-z0-9_-]{20,100}))",
     false, "[redacted:token]", nullptr},
    {"stripe-key", "_live_|_test_", "token", "Stripe secret and restricted keys",
     R"(\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255})", false, "[redacted:token]", nullptr},
    {"ngc-api-key", "nvapi-", "token", "NVIDIA NGC API keys: nvapi-",
     R"(\bnvapi-[A-Za-z0-9_-]{32,255})", false, "[redacted:token]", nullptr},
    {"authorization-scheme", "bearer|basic", "token", "Bearer and Basic credentials",
     R"(\b(Bearer|Basic)(\s+)([A-Za-z0-9._~+/=-]{8,}))", true, "$1$2[redacted:token]",
     looks_like_credential},
    {"authorization-header", "authorization|x-api-key|x-auth-token|private-token|cookie", "token",
     "values of Authorization, Proxy-Authorization, X-Api-Key, X-Auth-Token, Private-Token, "
     "Cookie, Set-Cookie",
     R"(\b(Authorization|Proxy-Authorization|X-Api-Key|X-Auth-Token|Private-Token|Cookie|Set-Cookie)(\s*:\s*)(\S.*))",
     true, "$1$2[redacted:token]", value_hides_something},
    {"secret-option",
     "token|pass|secret|apikey|api-key|accesskey|access-key|private-key|credential", "token",
     "command-line options naming a secret: --token X, --password=X, --hf-token X, ...",
     R"((--?(?:[A-Za-z0-9]+[-_])*)" JG_SECRET_OPTION_WORDS
     R"()(\s+|=)("[^"]*"|'[^']*'|[^\s"'\[-]\S*))",
     true, "$1$2[redacted:token]", option_value},
    {"secret-assignment",
     "pass|secret|token|apikey|api_key|accesskey|access_key|privatekey|private_key|credential|"
     "pwd",
     "token",
     "settings naming a secret, in JSON, YAML, INI or env form: \"password\": \"x\", api_key: x, "
     "client_secret=x, ...",
     R"(\b([A-Za-z0-9_.-]{0,64})" JG_SECRET_WORDS
     R"()(\\?["']?\s*[:=]\s*)(\\"(?:[^"\\]|\\[^"])*\\"|"[^"]*"|'[^']*'|[^\s"'\[,}]{1}[^\s,}]*))",
     true, "$1$2[redacted:token]", value_hides_something},
    {"email", "@", "email", "e-mail addresses",
     R"(\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b)",
     false, "[redacted:email]", nullptr},
    {"home-path", "/home|/users|/root|/tmp|/var/folders|/run/user", "path",
     "/home, /Users, /root, /tmp, /var/tmp, /private/tmp, /var/folders, /run/user paths (names "
     "with spaces too)",
     // Group 1; the end of the line or a character that ends a path must follow it.
     R"(((?:file://)?(?:/home|/Users|/root|/tmp|/var/tmp|/private/tmp|/var/folders|/run/user))"
     "(?:" JG_SEGMENTS "/" JG_PATH_END "*)?)"
     R"((?:$|[\s"'<>|\]),;:]))",
     false, "[redacted:path]", local_path, nullptr, true},
    {"tilde-path", "~", "path", "~/ paths", "~" JG_SEGMENTS "/" JG_PATH_END "*", false,
     "[redacted:path]", local_path},
    {"windows-home-path", ":\\", "path",
     R"(C:\Users\... paths, with single or doubled backslashes)",
     // As JG_SEGMENTS: the components are followed by a backslash in the pattern.
     R"(\b[A-Za-z]:\\{1,2}(?:Users|Documents and Settings)(?:(?:\\{1,2})" JG_WIN_SEGMENT
     "(?: " JG_WIN_SEGMENT R"(){0,3})+\\)?[^\s"'<>|]*)",
     true, "[redacted:path]", nullptr},
    {"absolute-path", "/", "path",
     "any other absolute path outside /usr, /etc, /dev, /proc, /sys, /lib*, /bin, /sbin, /boot, "
     "/opt/nvidia",
     R"((?:file://)?/[A-Za-z0-9_.+@-][^\s"'<>|\]),;:]*)", false, "[redacted:path]", absolute_path},
    {"env-assignment", "=", "env", "the value of NAME=value with an upper-case NAME",
     R"(\b([A-Z][A-Z0-9_]{1,127})(=)("[^"]*"|'[^']*'|\S*))", false, "$1$2[redacted:env]",
     env_assignment},
    {"mac-address", ":|-", "mac", "MAC addresses", R"(\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b)",
     false, "[redacted:mac]", nullptr},
    {"uuid", "-", "serial", "UUIDs (GPU-, MIG- and others)",
     R"(\b(?:GPU-|MIG-)?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b)",
     false, "[redacted:serial]", nullptr},
    {"ipv6", ":", "ip", "IPv6 addresses (compressed or eight groups)",
     R"([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})", false, "[redacted:ip]", ipv6},
    {"ipv4", ".", "ip", "IPv4 addresses, not four-part versions", R"(\d{1,3}(?:\.\d{1,3}){3})",
     false, "[redacted:ip]", ipv4},
    {"host-setting", "host|node|computer|machine", "host", "values of hostname:, host=, nodename:",
     R"(\b(host ?name|host|node ?name|computer ?name|machine)(\s*[:=]\s*)([A-Za-z0-9][A-Za-z0-9._-]{0,252}))",
     true, "$1$2[redacted:host]", nullptr},
    {"private-host", ".", "host",
     "host names under private suffixes (.local, .lan, .internal, .corp, .home, ...)",
     R"((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}(?:localdomain|local|lan|internal|intranet|corp|home\.arpa|home)\b)",
     true, "[redacted:host]", private_host},
    // A shell prompt "user@host:~$" or "user@host " (e-mail addresses are gone by now); not
    // "image@sha256:".
    {"shell-prompt", "@", "user", "the user and host of a shell prompt",
     // Group 1; the end of the line, a space or ":~" or ":/" must follow it.
     R"((\b[a-z_][a-z0-9_.-]{0,31}@[A-Za-z][A-Za-z0-9-]{0,62})(?:$|\s|:[~/]))", false,
     "[redacted:user]@[redacted:host]", nullptr, nullptr, true},
    {"user-setting", "user|login|logname|account", "user", "values of user:, username=, login:",
     R"(\b(user ?name|user|login|logname|account)(\s*[:=]\s*)([A-Za-z0-9_][A-Za-z0-9._-]{0,63}))",
     true, "$1$2[redacted:user]", nullptr},
    {"serial-setting", "serial|s/n|sn", "serial",
     "values after serial, serial number, S/N, SN that contain a digit",
     R"(\b(serial[ _-]?(?:number|no|num)?|s/n|sn)(\s*[:=#]\s*|\s+)([A-Za-z0-9][A-Za-z0-9-]{3,63}))",
     true, "$1$2[redacted:serial]", serial_value},
};

#undef JG_PATH_END
#undef JG_SEGMENT
#undef JG_SEGMENTS
#undef JG_WIN_SEGMENT
#undef JG_SECRET_WORDS
#undef JG_SECRET_OPTION_WORDS
#undef JG_SIGNED_URL_PARAMS

}  // namespace

bool holds_any_literal(std::string_view text, const char* literals) {
  if (literals == nullptr) return true;
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  std::string_view rest = literals;
  while (!rest.empty()) {
    auto bar = rest.find('|');
    std::string_view literal = rest.substr(0, bar);
    if (std::search(text.begin(), text.end(), literal.begin(), literal.end(), same) != text.end())
      return true;
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return false;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::span<const RuleRow> rule_table() {
  return kRules;
}

}  // namespace jetgate::report::detail
