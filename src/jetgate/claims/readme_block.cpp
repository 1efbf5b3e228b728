#include "jetgate/claims/readme_block.hpp"

#include <fmt/format.h>

#include "jetgate/claims/support_table.hpp"

namespace jetgate::claims {
namespace {

constexpr const char* kRegenerate = "regenerate the block with `jetgate support --readme`";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

struct Line {
  std::string_view text;
  std::size_t begin = 0;  // byte offset of the line
  std::size_t end = 0;    // byte offset after its newline
  int number = 0;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  int number = 1;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back({text.substr(pos, (nl == std::string_view::npos ? text.size() : nl) - pos), pos, end, number++});
    pos = end;
  }
  return lines;
}

std::string line_list(const std::vector<int>& numbers) {
  std::string out;
  for (int n : numbers) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

const MatrixRow* find_row(const SupportMatrix& m, const std::string& platform, const std::string& runtime) {
  for (const auto& row : m.rows)
    if (row.key.platform == platform && row.key.runtime == runtime) return &row;
  return nullptr;
}

const GateEntry* find_gate(const MatrixRow& row, const std::string& gate) {
  for (const auto& g : row.gates)
    if (g.gate == gate) return &g;
  return nullptr;
}

// Why this claimed gate is not backed, or "" when it is.
std::string unbacked_reason(const MatrixRow* row, const GateClaim& claim) {
  if (!row) return "no evidence was recorded on this platform combination";
  if (!row->key.identified) return "the evidence does not name the platform (" + row->key.missing + ")";
  const GateEntry* entry = find_gate(*row, claim.gate);
  if (!entry) return "no evidence for this gate on this platform combination";
  if (!backs_claim(entry->verdict))
    return fmt::format("its newest evidence ({}) is {}: {}", entry->file, to_string(entry->verdict.state),
                       entry->verdict.detail);
  if (!claim.evidence_date.empty() && claim.evidence_date > entry->verdict.evidence_date)
    return fmt::format("the block cites evidence of {}, but the newest fresh green evidence is of {}",
                       claim.evidence_date, entry->verdict.evidence_date);
  return {};
}

// The renderer's prose lines, whole: a line that merely starts with one of them could carry
// a hand-written claim after it. The claims intro embeds the age limit, any number of days.
// (Kept in step with report/support_markdown.cpp by the round-trip tests.)
constexpr std::string_view kClaimsIntroTail =
    " Each listed gate passed without skips on exactly that combination, with evidence at most ";
constexpr std::string_view kClaimsIntroEnd = " days old.";
constexpr std::string_view kNotClaimedIntroTail =
    " the evidence below is stale, failed, not run, inconsistent, dated in the future, "
    "or does not name its platform.";

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool is_claims_intro(std::string_view line) {
  if (!consume(line, kClaimsIntro) || !consume(line, kClaimsIntroTail)) return false;
  std::size_t digits = 0;
  while (digits < line.size() && digits < 6 && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits == 0) return false;
  line.remove_prefix(digits);
  return line == kClaimsIntroEnd;
}

bool is_generated_prose(std::string_view line) {
  if (line == kGeneratedComment || line == kNoClaims) return true;
  std::string_view rest = line;
  if (consume(rest, kNotClaimedIntro) && rest == kNotClaimedIntroTail) return true;
  return is_claims_intro(line);
}

enum class Table { none, claims, not_claimed };

class BlockVerifier {
 public:
  BlockVerifier(const std::string& where, const SupportMatrix& m) : where_(where), matrix_(m) {}

  void line(std::string_view raw, int number) {
    std::string_view text = trim(raw);
    auto cells = split_row(text);
    if (!cells) {
      table_ = Table::none;
      if (!text.empty() && !is_generated_prose(text))
        violation(number, "text jetgate does not generate, so --verify cannot tell what it claims");
      return;
    }
    if (text == kClaimsHeader) return start(Table::claims);
    if (text == kNotClaimedHeader) return start(Table::not_claimed);
    if (table_ == Table::none)
      return violation(number, "a table row outside jetgate's tables, so --verify cannot tell what it claims");
    if (expect_separator_) {
      expect_separator_ = false;
      auto sep = table_ == Table::claims ? kClaimsSeparator : kNotClaimedSeparator;
      if (text != sep) violation(number, "expected the table's separator row " + std::string(sep));
      return;
    }
    if (table_ == Table::claims) claim_row(*cells, number);
    // Rows of the not-claimed table claim nothing.
  }

  std::vector<std::string> take() { return std::move(violations_); }

 private:
  void start(Table t) {
    table_ = t;
    expect_separator_ = true;
  }

  void claim_row(const std::vector<std::string>& cells, int number) {
    if (cells.size() != 3)
      return violation(number, fmt::format("a claims row needs 3 cells, this one has {}", cells.size()));
    std::string platform = unescape_cell(cells[0]), runtime = unescape_cell(cells[1]);
    auto gates = parse_gate_cell(cells[2]);
    if (!gates) return violation(number, "cannot read the gates cell: " + gates.error().what);
    const MatrixRow* row = find_row(matrix_, platform, runtime);
    for (const auto& g : *gates) {
      std::string why = unbacked_reason(row, g);
      if (!why.empty())
        violation(number, fmt::format("claims gate {} on \"{}\" with \"{}\", but {}", g.gate, platform, runtime, why));
    }
  }

  void violation(int number, const std::string& what) {
    violations_.push_back(fmt::format("{}:{}: {}; {}", where_, number, what, kRegenerate));
  }

  const std::string& where_;
  const SupportMatrix& matrix_;
  Table table_ = Table::none;
  bool expect_separator_ = false;
  std::vector<std::string> violations_;
};

}  // namespace

Result<BlockSpan> find_support_block(std::string_view readme, const std::string& where) {
  std::vector<Line> begins, ends;
  for (const auto& l : split_lines(readme)) {
    if (trim(l.text) == kBeginMarker) begins.push_back(l);
    if (trim(l.text) == kEndMarker) ends.push_back(l);
  }
  auto numbers = [](const std::vector<Line>& ls) {
    std::vector<int> n;
    for (const auto& l : ls) n.push_back(l.number);
    return line_list(n);
  };
  std::string markers = fmt::format("{} and {}, each alone on its own line", kBeginMarker, kEndMarker);
  if (begins.empty() || ends.empty())
    return make_error(fmt::format("no support block: the line {} is missing",
                                  begins.empty() ? kBeginMarker : kEndMarker),
                      where, "add the two lines " + markers + ", where the support table should go");
  if (begins.size() > 1 || ends.size() > 1)
    return make_error(fmt::format("the support block markers appear more than once (begin on lines {}; end on lines {})",
                                  numbers(begins), numbers(ends)),
                      where, "keep exactly one pair: " + markers);
  if (ends.front().number < begins.front().number)
    return make_error(fmt::format("the end marker (line {}) comes before the begin marker (line {})",
                                  ends.front().number, begins.front().number),
                      where, "put " + std::string(kBeginMarker) + " first");
  return BlockSpan{begins.front().end, ends.front().begin, begins.front().number + 1};
}

std::string replace_block(std::string_view readme, const BlockSpan& span, std::string_view content) {
  std::string out(readme.substr(0, span.content_begin));
  // A begin marker on the file's last line without a newline cannot happen
  // (the end marker follows), but keep the marker on its own line regardless.
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += content;
  if (!content.empty() && content.back() != '\n') out += '\n';
  out += readme.substr(span.content_end);
  return out;
}

std::vector<std::string> verify_block(std::string_view content, int first_line, const std::string& where,
                                      const SupportMatrix& matrix) {
  BlockVerifier verifier(where, matrix);
  for (const auto& l : split_lines(content)) verifier.line(l.text, first_line + l.number - 1);
  return verifier.take();
}

}  // namespace jetgate::claims
