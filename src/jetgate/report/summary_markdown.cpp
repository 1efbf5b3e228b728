// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/summary_markdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/claims/support_table.hpp"
#include "jetgate/core/identifying_keys.hpp"
#include "jetgate/record/codec.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

// While an issue body is rendered, each piece of outside text is redacted
// before it is escaped for Markdown: escaping first would break what the
// rules look for ("https\\://hooks.slack.com/...", a JSON value's \\"), and
// the whole body's redaction at the end would miss it.
thread_local const SanitizeOptions* g_redact = nullptr;

std::string redacted(std::string_view text) {
  return g_redact ? sanitize(std::string(text), *g_redact) : std::string(text);
}

std::string inline_text(std::string_view text) {
  return markdown_inline(redacted(text));
}

struct RedactWhileRendering {
  explicit RedactWhileRendering(const SanitizeOptions& o) { g_redact = &o; }
  ~RedactWhileRendering() { g_redact = nullptr; }
  RedactWhileRendering(const RedactWhileRendering&) = delete;
  RedactWhileRendering& operator=(const RedactWhileRendering&) = delete;
};

// The status is the one vocabulary's (core/outcome.hpp): PASS exactly when
// `check` would let the gate hold, else the status and the state in words.
std::string status_word(claims::GateState st) {
  auto status = claims::status_of(st);
  if (status == Outcome::pass) return to_string(status);
  return fmt::format("{}: {}", to_string(status), claims::describe(st));
}

std::string status_cell(const claims::SummaryRow& row) {
  std::string word = status_word(row.decision.verdict.state);
  if (row.waiver && row.waiver->active && !claims::backs_claim(row.decision.verdict))
    word += " (waived)";
  return word;
}

std::string commit_cell(const claims::SummaryRow& row) {
  const std::string& sha = row.decision.git_sha;
  if (sha.empty()) return "-";
  return sha.size() == 40 ? sha.substr(0, 12) : sha.substr(0, 40);
}

std::string platform_cell(const claims::SummaryRow& row) {
  if (!row.platform) return "-";
  return row.platform->platform + " · " + row.platform->runtime;
}

std::string evidence_cell(const claims::SummaryRow& row, int max_age_days) {
  const auto& v = row.decision.verdict;
  if (row.decision.file.empty()) return "none";
  if (v.evidence_date.empty()) return "undated";
  if (v.age_days < 0) return fmt::format("{} (in the future)", v.evidence_date);
  return fmt::format("{}, {} day{} old (max {})", v.evidence_date, v.age_days,
                     v.age_days == 1 ? "" : "s", max_age_days);
}

std::string gate_table(const claims::GateSummary& s) {
  std::string out = "| Gate | Status | Commit | Platform | Evidence |\n|---|---|---|---|---|\n";
  for (const auto& row : s.rows)
    out += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_cell(row.gate),
                       markdown_cell(status_cell(row)), markdown_cell(commit_cell(row)),
                       markdown_cell(platform_cell(row)),
                       markdown_cell(evidence_cell(row, s.rules.max_age_days)));
  return out;
}

// A code span of `code` whatever backticks it holds (CommonMark: a fence of
// backticks longer than any run inside, padded with a space when needed).
std::string code_span(const std::string& code) {
  std::size_t longest = 0, run = 0;
  for (char c : code) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  bool pad = !code.empty() && (code.front() == '`' || code.back() == '`');
  std::string inner = pad ? " " + code + " " : code;
  // One line: a line break would end the list item.
  for (auto& c : inner)
    if (c == '\n' || c == '\r') c = ' ';
  return fence + inner + fence;
}

// One line of a Markdown list: no line break, link or emphasis can escape it;
// a command the text quotes in backticks (`jetgate run ...`) is a code span.
std::string list_text(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    auto open = text.find('`', at);
    auto close = open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos) return out + inline_text(text.substr(at));
    std::string before = text.substr(at, open - at);
    out += inline_text(before);
    // The escaping trims the text's edges: the space before a code span stays.
    if (!before.empty() && before.back() == ' ' && (out.empty() || out.back() != ' ')) out += ' ';
    out += code_span(redacted(text.substr(open + 1, close - open - 1)));
    if (close + 1 < text.size() && text[close + 1] == ' ') out += ' ';
    at = close + 1;
  }
}

// The failed checks the gate recorded (requirements, probes, tests), one per
// line, dcgmi-diag style; evidence without them falls back to the verdict's problems.
std::vector<std::string> failed_checks(const claims::GateSummary& s,
                                       const claims::SummaryRow& row) {
  std::vector<std::string> out;
  const auto* e = s.shown_document(row);
  if (!e) return out;
  for (const auto& c : record::read(e->extra, record::Keep::known).checks) {
    const std::string status = c.status.value_or("");
    if (auto st = status_from_string(status); st && holds(*st)) continue;
    std::string line = c.name.value_or("") + ": " + status;
    if (c.detail && !c.detail->empty()) line += " - " + *c.detail;
    if (c.next && !c.next->empty()) line += " (next: " + *c.next + ")";
    out.push_back(line);
  }
  return out;
}

std::string reasons_section(const claims::GateSummary& s) {
  std::string out;
  for (const auto& row : s.rows) {
    const auto& v = row.decision.verdict;
    bool holds = claims::backs_claim(v);
    bool waiver_note = row.waiver.has_value();
    bool foreign = !s.policy_source.empty() && !row.in_policy;
    if (holds && !waiver_note && !foreign) continue;
    out += fmt::format("- **{}**: {}\n", list_text(row.gate), list_text(status_cell(row)));
    if (foreign) out += "  - not in the policy: nothing requires it\n";
    if (!row.constraint.empty()) out += "  - requires: " + list_text(row.constraint) + "\n";
    if (row.waiver) {
      const auto& w = *row.waiver;
      out += w.active ? fmt::format("  - waived until {}, tracked in {}: {}\n",
                                    list_text(w.expires), list_text(w.issue), list_text(w.reason))
                      : "  - invalid waiver: " + list_text(w.reason) + "\n";
    }
    if (holds) continue;
    const auto said = claims::findings(v);
    for (const auto& p : said) out += "  - " + list_text(p) + "\n";
    // A gate that did not run: its failed requirement checks are the finding's
    // details, already said.
    if (said.size() == v.problems.size())
      for (const auto& c : failed_checks(s, row)) out += "  - " + list_text(c) + "\n";
    if (!row.next.empty()) out += "  - next: " + list_text(row.next) + "\n";
  }
  return out.empty() ? out : "\n### Why\n\n" + out;
}

// An issue body names files by their base name only: the directory is a
// local path of the machine that ran the gates.
std::string skipped_list(const claims::GateSummary& s, bool base_names) {
  if (s.matrix.skipped.empty()) return {};
  std::string out = "\nEvidence files that could not be read (each backs nothing):\n\n";
  for (const auto& f : s.matrix.skipped) {
    std::string why = f.why;
    if (base_names) {
      std::string base = std::filesystem::path(f.file).filename().string();
      for (auto pos = why.find(f.file); pos != std::string::npos;
           pos = why.find(f.file, pos + base.size()))
        why.replace(pos, f.file.size(), base);
    }
    out += "- " + inline_text(why) + "\n";
  }
  return out;
}

std::string header(const claims::GateSummary& s, const char* title) {
  std::string policy =
      s.policy_source.empty() ? "no policy" : "policy " + markdown_inline(s.policy_source);
  std::string commit =
      s.rules.candidate_sha.empty() ? "any commit" : "commit " + s.rules.candidate_sha;
  return fmt::format(
      "## {}\n\nJudged for {} on {} (UTC) with {}; evidence counts as fresh for {} days.\n\n",
      title, commit, evidence::to_string(s.rules.today), policy, s.rules.max_age_days);
}

void fact_line(std::string& out, const char* label, const std::string& value) {
  if (!value.empty()) out += fmt::format("- {}: {}\n", label, markdown_inline(value));
}

std::string memory_gib(const std::optional<std::int64_t>& bytes) {
  if (!bytes) return {};
  return fmt::format("{:.1f} GiB", static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0));
}

std::string text(const std::optional<std::string>& v) {
  return v.value_or("");
}

// An allow-list of facts: only what a maintainer needs to reproduce.
std::string platform_facts(const record::Record& r) {
  const auto& p = r.platform;
  const auto& t = p.tegra;
  std::string out;
  fact_line(out, "architecture", text(p.arch));
  std::string os = text(p.os_id);
  if (!os.empty()) fact_line(out, "OS", os + " " + text(p.os_version_id));
  fact_line(out, "kernel", text(p.kernel_release));
  fact_line(out, "board", text(t.model));
  fact_line(out, "module", text(t.module));
  fact_line(out, "part number", text(t.part_number));
  fact_line(out, "SoC", text(t.soc));
  fact_line(out, "L4T", text(t.l4t.version));
  fact_line(out, "JetPack", text(t.jetpack));
  fact_line(out, "CUDA toolkit", text(p.cuda_toolkit_version));
  fact_line(out, "NVIDIA driver", text(p.nvidia_driver_version));
  fact_line(out, "CUDA driver API", text(r.gpu.driver_version));
  for (const auto& d : r.gpu.devices) {
    std::string gpu = text(d.name), cc = text(d.compute_capability);
    std::string mem = memory_gib(d.total_memory_bytes);
    if (!cc.empty()) gpu += ", compute capability " + cc;
    if (!mem.empty()) gpu += ", " + mem;
    fact_line(out, "GPU", gpu);
  }
  const auto& y = r.python;
  std::string torch = text(y.torch_version);
  if (!torch.empty()) {
    std::string cuda = text(y.torch_cuda_version);
    fact_line(out, "torch",
              torch + (cuda.empty() ? "" : ", CUDA " + cuda) +
                  (y.torch_cuda_available
                       ? (*y.torch_cuda_available ? ", CUDA available" : ", CUDA NOT available")
                       : ""));
  }
  std::string bnb = text(y.bitsandbytes_version);
  if (!bnb.empty()) fact_line(out, "bitsandbytes", bnb);
  return out;
}

std::string probe_lines(const record::Record& r) {
  std::string out;
  for (const auto& [id, p] : r.probes) {
    std::string status = text(p.status), reason = text(p.reason);
    out += fmt::format("- probe {}: {}{}\n", markdown_inline(id),
                       status.empty() ? record::kUnknown : markdown_inline(status),
                       reason.empty() ? "" : " (" + inline_text(reason) + ")");
  }
  return out;
}

std::string evidence_section(const claims::ShownEvidence& shown, const claims::GateSummary& s) {
  const auto& le = *shown.loaded;
  const auto& e = le.evidence;
  const auto& key = *le.platform;
  std::string state;
  for (const auto& row : s.rows)
    if (row.decision.evidence == &le) state = status_word(row.decision.verdict.state);
  for (const auto& m_row : s.matrix.rows)
    for (const auto& entry : m_row.gates)
      if (state.empty() && entry.evidence == &le)
        state = status_word(entry.verdict.state) +
                " on this platform (another board, lane or platform decides the gate)";
  std::string out = fmt::format("### {} on {}, {}\n\n", markdown_inline(e.gate),
                                markdown_inline(key.platform), markdown_inline(key.runtime));
  out += fmt::format("- verdict: {}\n- status: {}; tests {}, failures {}, errors {}, skipped {}\n",
                     state, to_string(evidence::to_status(e.status)), e.counts.tests,
                     e.counts.failures, e.counts.errors, e.counts.skipped);
  if (!e.reason.empty()) out += "- reason: " + inline_text(e.reason) + "\n";
  fact_line(out, "generated at", e.generated_at);
  fact_line(out, "git sha", e.git_sha);
  if (!shown.document) {
    fact_line(out, "facts not shown", shown.document.error().message());
    return out + "\n";
  }
  const record::Record r = record::read(shown.document->extra, record::Keep::known);
  std::string facts = platform_facts(r);
  out += facts.empty() ? "- platform facts: not recorded in this evidence\n" : facts;
  out += probe_lines(r);
  return out + "\n";
}

void collect_identifying(const nlohmann::json& node, SanitizeOptions& o, int depth) {
  if (depth > 16) return;
  if (node.is_array()) {
    for (const auto& v : node) collect_identifying(v, o, depth + 1);
    return;
  }
  if (!node.is_object()) return;
  for (const auto& [key, v] : node.items()) {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      switch (identifying_key(key)) {
        case IdentifyingKey::hostname:
          o.hostnames.push_back(s);
          break;
        case IdentifyingKey::user:
          o.users.push_back(s);
          break;
        case IdentifyingKey::serial:
          o.serials.push_back(s);
          break;
        case IdentifyingKey::none:
          break;
      }
    } else {
      collect_identifying(v, o, depth + 1);
    }
  }
}

}  // namespace

void add_identifying_values(const nlohmann::json& extra, SanitizeOptions& options) {
  collect_identifying(extra, options, 0);
}

// The lanes (evidence directories) that produced nothing, named: a lane whose
// job died before uploading must not vanish from the summary.
std::string empty_lanes_section(const claims::GateSummary& s) {
  if (s.empty_lanes.empty()) return {};
  std::string out = "\n### Lanes that produced no evidence\n\n";
  for (const auto& dir : s.empty_lanes)
    out += "- " + code_span(redacted(dir)) +
           ": its board and lane produced nothing (look at that lane's job log, then run it "
           "again)\n";
  return out;
}

std::string render_step_summary(const claims::GateSummary& s) {
  return header(s, "jetgate: conditional gates") + gate_table(s) + empty_lanes_section(s) +
         reasons_section(s) + skipped_list(s, false);
}

std::string render_issue_body(const claims::GateSummary& s, const SanitizeOptions& options) {
  SanitizeOptions known = options;
  for (const auto& shown : s.shown)
    if (shown.document) add_identifying_values(shown.document->extra, known);
  RedactWhileRendering redact(known);
  std::string body = header(s, "jetgate evidence report") + gate_table(s) + empty_lanes_section(s) +
                     reasons_section(s) + skipped_list(s, true);
  if (!s.shown.empty()) body += "\n## Evidence\n\n";
  for (const auto& shown : s.shown) body += evidence_section(shown, s);
  if (s.evidence_files > s.shown.size())
    body += fmt::format(
        "{} more evidence file{} (older runs, other boards and lanes) decided no gate on any "
        "platform and {} not shown.\n\n",
        s.evidence_files - s.shown.size(), s.evidence_files - s.shown.size() == 1 ? "" : "s",
        s.evidence_files - s.shown.size() == 1 ? "is" : "are");
  body +=
      "_Host names, user names, addresses, serial numbers, tokens, environment variables and local "
      "paths "
      "were redacted by jetgate._\n";
  return sanitize(body, known);
}

}  // namespace jetgate::report
