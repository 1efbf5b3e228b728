#include "jetgate/report/summary_markdown.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

using claims::string_at;

std::string status_cell(const claims::SummaryRow& row) {
  if (!row.evidence) return "no evidence";
  const auto& v = row.evidence->verdict;
  switch (v.state) {
    case claims::GateState::fresh_green: return "passed";
    case claims::GateState::stale: return "stale: " + v.detail;
    case claims::GateState::failed: return "failed: " + v.detail;
    case claims::GateState::not_run: return "not run: " + v.detail;
    case claims::GateState::inconsistent:
    case claims::GateState::no_commit: return "rejected: " + v.detail;
    case claims::GateState::future_dated: return "rejected: " + v.detail;
    case claims::GateState::undated: return "rejected: " + v.detail;
  }
  return "unknown";
}

std::string waiver_cell(const claims::SummaryRow& row) {
  if (!row.waiver) return "none";
  const auto& w = *row.waiver;
  if (!w.active) return "invalid waiver: " + w.reason;
  return fmt::format("waived until {}, tracked in {}: {}", w.expires, w.issue, w.reason);
}

std::string evidence_cell(const claims::SummaryRow& row, int max_age_days) {
  if (!row.evidence) return "none";
  const auto& v = row.evidence->verdict;
  if (v.evidence_date.empty()) return "undated";
  if (v.age_days < 0) return fmt::format("{} (in the future)", v.evidence_date);
  return fmt::format("{}, {} day{} old (max {})", v.evidence_date, v.age_days, v.age_days == 1 ? "" : "s",
                     max_age_days);
}

std::string gate_table(const claims::GateSummary& s) {
  std::string out = "| Gate | Status | Constraint | Waiver | Evidence |\n|---|---|---|---|---|\n";
  for (const auto& row : s.rows) {
    std::string constraint = !s.policy_source.empty() && !row.in_policy ? "not in the policy"
                             : row.constraint.empty()                    ? "none"
                                                                          : row.constraint;
    out += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_cell(row.gate), markdown_cell(status_cell(row)),
                       markdown_cell(constraint), markdown_cell(waiver_cell(row)),
                       markdown_cell(evidence_cell(row, s.max_age_days)));
  }
  return out;
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
      for (auto pos = why.find(f.file); pos != std::string::npos; pos = why.find(f.file, pos + base.size()))
        why.replace(pos, f.file.size(), base);
    }
    out += "- " + markdown_inline(why) + "\n";
  }
  return out;
}

std::string header(const claims::GateSummary& s, const char* title) {
  std::string policy = s.policy_source.empty() ? "no policy" : "policy " + markdown_inline(s.policy_source);
  return fmt::format("## {}\n\nJudged on {} (UTC) with {}; evidence counts as fresh for {} days.\n\n", title,
                     evidence::to_string(s.today), policy, s.max_age_days);
}

void fact_line(std::string& out, const char* label, const std::string& value) {
  if (!value.empty()) out += fmt::format("- {}: {}\n", label, markdown_inline(value));
}

std::string memory_gib(const nlohmann::json* bytes) {
  if (!bytes || !bytes->is_number()) return {};
  return fmt::format("{:.1f} GiB", bytes->get<double>() / (1024.0 * 1024.0 * 1024.0));
}

// An allow-list of facts: only what a maintainer needs to reproduce.
std::string platform_facts(const nlohmann::json& x) {
  std::string out;
  fact_line(out, "architecture", string_at(x, {"platform", "arch"}));
  std::string os = string_at(x, {"platform", "os", "id"});
  if (!os.empty()) fact_line(out, "OS", os + " " + string_at(x, {"platform", "os", "version_id"}));
  fact_line(out, "kernel", string_at(x, {"platform", "kernel", "release"}));
  fact_line(out, "board", string_at(x, {"platform", "tegra", "model"}));
  fact_line(out, "module", string_at(x, {"platform", "tegra", "module"}));
  fact_line(out, "part number", string_at(x, {"platform", "tegra", "part_number"}));
  fact_line(out, "SoC", string_at(x, {"platform", "tegra", "soc"}));
  fact_line(out, "L4T", string_at(x, {"platform", "tegra", "l4t"}));
  fact_line(out, "JetPack", string_at(x, {"platform", "tegra", "jetpack"}));
  fact_line(out, "CUDA toolkit", string_at(x, {"platform", "cuda", "toolkit_version"}));
  fact_line(out, "NVIDIA driver", string_at(x, {"platform", "nvidia_driver", "version"}));
  fact_line(out, "CUDA driver API", string_at(x, {"gpu", "driver", "version"}));
  if (const auto* devices = claims::value_at(x, {"gpu", "devices"}); devices && devices->is_array())
    for (const auto& d : *devices) {
      std::string name = string_at(d, {"name"}), cc = string_at(d, {"compute_capability"});
      std::string mem = memory_gib(claims::value_at(d, {"total_memory_bytes"}));
      fact_line(out, "GPU", name + (cc.empty() ? "" : ", compute capability " + cc) + (mem.empty() ? "" : ", " + mem));
    }
  std::string torch = string_at(x, {"python", "torch", "version"});
  if (!torch.empty()) {
    const auto* avail = claims::value_at(x, {"python", "torch", "cuda_available"});
    std::string cuda = string_at(x, {"python", "torch", "cuda_version"});
    fact_line(out, "torch", torch + (cuda.empty() ? "" : ", CUDA " + cuda) +
                                (avail && avail->is_boolean() ? (avail->get<bool>() ? ", CUDA available" : ", CUDA NOT available") : ""));
  }
  std::string bnb = string_at(x, {"python", "bitsandbytes", "version"});
  if (!bnb.empty()) fact_line(out, "bitsandbytes", bnb);
  return out;
}

std::string probe_lines(const nlohmann::json& x) {
  std::string out;
  const auto* probes = claims::value_at(x, {"probes"});
  if (!probes || !probes->is_object()) return out;
  for (const auto& [id, p] : probes->items()) {
    std::string status = string_at(p, {"status"}), reason = string_at(p, {"reason"});
    out += fmt::format("- probe {}: {}{}\n", markdown_inline(id), status.empty() ? "unknown" : markdown_inline(status),
                       reason.empty() ? "" : " (" + markdown_inline(reason) + ")");
  }
  return out;
}

std::string evidence_section(const claims::LoadedEvidence& le, const claims::SupportMatrix& m) {
  const auto& e = le.evidence;
  auto key = claims::platform_key(e);
  std::string state = "unknown";
  for (const auto& row : m.rows)
    if (row.key == key)
      for (const auto& g : row.gates)
        if (g.file == le.file) state = claims::to_string(g.verdict.state);
  std::string out = fmt::format("### {} on {}, {}\n\n", markdown_inline(e.gate), markdown_inline(key.platform),
                                markdown_inline(key.runtime));
  out += fmt::format("- verdict: {}\n- status: {}; tests {}, failures {}, errors {}, skipped {}\n", state,
                     evidence::to_string(e.status), e.counts.tests, e.counts.failures, e.counts.errors,
                     e.counts.skipped);
  fact_line(out, "reason", e.reason);
  fact_line(out, "generated at", e.generated_at);
  fact_line(out, "git sha", e.git_sha);
  std::string facts = platform_facts(e.extra);
  out += facts.empty() ? "- platform facts: not recorded in this evidence\n" : facts;
  out += probe_lines(e.extra);
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
      if (key == "hostname" || key == "host" || key == "nodename") o.hostnames.push_back(s);
      else if (key == "user" || key == "username" || key == "login") o.users.push_back(s);
      else if (key.find("serial") != std::string::npos || key == "uuid") o.serials.push_back(s);
    } else {
      collect_identifying(v, o, depth + 1);
    }
  }
}

}  // namespace

void add_identifying_values(const nlohmann::json& extra, SanitizeOptions& options) {
  collect_identifying(extra, options, 0);
}

std::string render_step_summary(const claims::GateSummary& s) {
  return header(s, "jetgate: conditional gates") + gate_table(s) + skipped_list(s, false);
}

std::string render_issue_body(const claims::GateSummary& s, const SanitizeOptions& options) {
  SanitizeOptions known = options;
  for (const auto& le : s.evidence) add_identifying_values(le.evidence.extra, known);
  std::string body = header(s, "jetgate evidence report") + gate_table(s) + skipped_list(s, true);
  if (!s.evidence.empty()) body += "\n## Evidence\n\n";
  for (const auto& le : s.evidence) body += evidence_section(le, s.matrix);
  body += "_Host names, user names, addresses, serial numbers, tokens, environment variables and local paths "
          "were redacted by jetgate._\n";
  return sanitize(body, known);
}

}  // namespace jetgate::report
