// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/readme_block.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "jetgate/claims/support_table.hpp"

namespace jetgate::claims {
namespace {

// The complete command is the caller's to print (it knows the options):
// `support --verify` prints it once after the differences.
constexpr const char* kRegenerate = "regenerate the block (the command below) and commit it";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

struct Line {
  std::string_view text;  // without the line ending (and without a BOM on line 1)
  std::size_t begin = 0;  // byte offset of the line
  std::size_t end = 0;    // byte offset after its newline
  int number = 0;
  bool crlf = false;
};

std::vector<Line> split_lines(std::string_view text, std::size_t skip_first = 0) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  int number = 1;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    std::size_t stop = nl == std::string_view::npos ? text.size() : nl;
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    bool crlf = stop > pos && text[stop - 1] == '\r';
    std::size_t from = number == 1 ? std::min(pos + skip_first, stop) : pos;
    lines.push_back({text.substr(from, stop - (crlf ? 1 : 0) - from), pos, end, number++, crlf});
    pos = end;
  }
  return lines;
}

std::string line_list(const std::vector<int>& numbers) {
  std::string out;
  for (int n : numbers) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

// ---- Which lines are code (CommonMark fences and indented code) ----

// Columns of leading whitespace (a tab advances to the next multiple of 4).
std::size_t indent_columns(std::string_view s) {
  std::size_t cols = 0;
  for (char c : s) {
    if (c == ' ')
      ++cols;
    else if (c == '\t')
      cols += 4 - cols % 4;
    else
      break;
  }
  return cols;
}

struct Fence {
  char ch = '`';
  std::size_t length = 0;
  int line = 0;
};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// Drops what may stand before a fence inside containers: indentation, block
// quote markers and (for an opening fence) list item markers.
std::string_view strip_containers(std::string_view s, bool list_items) {
  for (;;) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    if (!s.empty() && s.front() == '>') {
      s.remove_prefix(1);
      continue;
    }
    if (!list_items || s.empty()) return s;
    std::size_t n = 0;
    if (s.front() == '-' || s.front() == '*' || s.front() == '+')
      n = 1;
    else {
      while (n < s.size() && n < 9 && s[n] >= '0' && s[n] <= '9') ++n;
      if (n == 0 || n >= s.size() || (s[n] != '.' && s[n] != ')')) return s;
      ++n;
    }
    if (n >= s.size() || !is_space(s[n])) return s;
    s.remove_prefix(n);
  }
}

std::size_t run_of(std::string_view s, char c) {
  std::size_t n = 0;
  while (n < s.size() && s[n] == c) ++n;
  return n;
}

std::optional<Fence> opening_fence(std::string_view line, int number) {
  std::string_view s = strip_containers(line, true);
  if (s.empty() || (s.front() != '`' && s.front() != '~')) return std::nullopt;
  char ch = s.front();
  std::size_t n = run_of(s, ch);
  if (n < 3) return std::nullopt;
  // A backtick fence's info string cannot hold a backtick (that is inline code).
  if (ch == '`' && s.substr(n).find('`') != std::string_view::npos) return std::nullopt;
  return Fence{ch, n, number};
}

bool closes(std::string_view line, const Fence& fence) {
  std::string_view s = strip_containers(line, false);
  std::size_t n = run_of(s, fence.ch);
  return n >= fence.length && trim_blanks(s.substr(n)).empty();
}

enum class Marker { none, begin, end };

Marker marker_in(std::string_view text) {
  std::string_view t = trim_blanks(text);
  if (t == kBeginMarker) return Marker::begin;
  if (t == kEndMarker) return Marker::end;
  return Marker::none;
}

struct MarkerScan {
  std::vector<Line> begins, ends;
  std::vector<int> in_code;       // marker lines inside code, which do not count
  std::optional<Fence> unclosed;  // a fence still open at the end of the file
};

MarkerScan scan_markers(std::string_view readme) {
  MarkerScan scan;
  std::optional<Fence> fence;
  std::size_t bom = readme.substr(0, kUtf8Bom.size()) == kUtf8Bom ? kUtf8Bom.size() : 0;
  for (const auto& l : split_lines(readme, bom)) {
    Marker m = marker_in(l.text);
    if (fence) {
      if (closes(l.text, *fence))
        fence.reset();
      else if (m != Marker::none)
        scan.in_code.push_back(l.number);
      continue;
    }
    if (m == Marker::none) {
      fence = opening_fence(l.text, l.number);
      continue;
    }
    if (indent_columns(l.text) >= 4)
      scan.in_code.push_back(l.number);
    else
      (m == Marker::begin ? scan.begins : scan.ends).push_back(l);
  }
  scan.unclosed = fence;
  return scan;
}

std::string why_markers_did_not_count(const MarkerScan& scan) {
  std::string out;
  if (!scan.in_code.empty())
    out += fmt::format(
        " (line{} {} hold{} a marker inside code, a fenced or indented code example, which does "
        "not "
        "count)",
        scan.in_code.size() == 1 ? "" : "s", line_list(scan.in_code),
        scan.in_code.size() == 1 ? "s" : "");
  if (scan.unclosed)
    out += fmt::format(
        " (the code fence opened on line {} is never closed, so everything after it is code)",
        scan.unclosed->line);
  return out;
}

// ---- Verification ----

const MatrixRow* find_row(const SupportMatrix& m, const std::string& platform,
                          const std::string& runtime) {
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
  if (!row->key.identified)
    return "the evidence does not name the platform (" + row->key.missing + ")";
  const GateEntry* entry = find_gate(*row, claim.gate);
  if (!entry) return "no evidence for this gate on this platform combination";
  if (!backs_claim(entry->verdict))
    return fmt::format("its newest evidence ({}) is {}: {}", entry->file,
                       to_string(entry->verdict.state), entry->verdict.detail);
  if (!claim.evidence_date.empty() && claim.evidence_date > entry->verdict.evidence_date)
    return fmt::format(
        "the block cites evidence of {}, but the newest fresh green evidence is of {}",
        claim.evidence_date, entry->verdict.evidence_date);
  return {};
}

std::string normalise_newlines(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      out += '\n';
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

enum class Table { none, claims, not_claimed };
enum class Kind { blank, prose, header, separator, row };

// Which of jetgate's tables a line belongs to, as Markdown reads them: a
// table starts at its header and ends at the first line that is not a row.
class TableTracker {
 public:
  std::pair<Table, Kind> next(std::string_view raw) {
    std::string_view text = trim_blanks(raw);
    if (!split_row(text)) {
      table_ = Table::none;
      return {Table::none, text.empty() ? Kind::blank : Kind::prose};
    }
    if (text == kClaimsHeader || text == kNotClaimedHeader) {
      table_ = text == kClaimsHeader ? Table::claims : Table::not_claimed;
      expect_separator_ = true;
      return {table_, Kind::header};
    }
    if (table_ != Table::none && expect_separator_) {
      expect_separator_ = false;
      return {table_, Kind::separator};
    }
    return {table_, Kind::row};
  }

 private:
  Table table_ = Table::none;
  bool expect_separator_ = false;
};

constexpr std::size_t kMissingLinesShown = 5;

class BlockVerifier {
 public:
  BlockVerifier(const std::string& where, const SupportMatrix& m, std::string_view generated)
      : where_(where), matrix_(m) {
    TableTracker tables;
    for (const auto& l : split_lines(generated)) {
      auto [table, kind] = tables.next(l.text);
      if (kind != Kind::blank) expected_.insert({{table, std::string(l.text)}, l.number});
    }
  }

  void line(std::string_view text, int number) {
    auto [table, kind] = tables_.next(text);
    if (kind == Kind::blank) return;
    auto it = expected_.find({table, std::string(text)});
    if (it != expected_.end()) {
      expected_.erase(it);
      return;
    }
    explain(table, kind, text, number);
  }

  // Generated lines the block lacks. One changed row is one difference: a
  // generated row of a table where a README row of the same table was
  // reported is said on that row's line, as what the evidence generates
  // instead; the rest are reported on the end marker's line.
  void missing(int end_line) {
    std::vector<std::tuple<int, Table, std::string>> lines;
    for (const auto& [key, generated_line] : expected_)
      lines.push_back({generated_line, key.first, key.second});
    std::sort(lines.begin(), lines.end());
    std::size_t shown = 0, left = 0;
    for (const auto& line : lines) {
      // Named copies: clang 14 cannot capture structured bindings in a lambda.
      const Table table = std::get<1>(line);
      const std::string& text = std::get<2>(line);
      auto row = std::find_if(unpaired_rows_.begin(), unpaired_rows_.end(),
                              [table](const auto& r) { return r.table == table; });
      if (row != unpaired_rows_.end() && table != Table::none) {
        notes_[row->violation] += "; the evidence generates instead: \"" + text + "\"";
        unpaired_rows_.erase(row);
        continue;
      }
      if (shown++ < kMissingLinesShown)
        violation(end_line, "the block lacks a line the evidence generates: \"" + text + "\"");
      else
        ++left;
    }
    if (left > 0) violation(end_line, fmt::format("and {} more generated lines", left));
  }

  void violation(int number, const std::string& what) {
    numbers_.push_back(number);
    notes_.push_back(what);
  }

  // A reported README row of `table`, which a missing generated row of the
  // same table may pair with.
  void row_violation(Table table, int number, const std::string& what) {
    unpaired_rows_.push_back({table, notes_.size()});
    violation(number, what);
  }

  std::vector<std::string> take() {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < notes_.size(); ++i)
      out.push_back(fmt::format("{}:{}: {}; {}", where_, numbers_[i], notes_[i], kRegenerate));
    return out;
  }

  bool empty() const { return notes_.empty(); }

 private:
  void explain(Table table, Kind kind, std::string_view text, int number) {
    if (kind == Kind::prose)
      return violation(number,
                       "text jetgate does not generate, so --verify cannot tell what it claims");
    if (table == Table::none)
      return violation(
          number, "a table row outside jetgate's tables, so --verify cannot tell what it claims");
    auto cells = *split_row(trim_blanks(text));
    if (kind == Kind::separator) {
      auto separator = table == Table::claims ? kClaimsSeparator : kNotClaimedSeparator;
      // The right separator under a header that was already reported needs no line of its own.
      if (trim_blanks(text) != separator)
        violation(number, "expected the table's separator row " + std::string(separator));
      return;
    }
    if (kind == Kind::header)
      return violation(number, "a table the evidence does not generate here");
    if (table == Table::not_claimed) return not_claimed_row(cells, number);
    claim_row(cells, number);
  }

  void not_claimed_row(const std::vector<std::string>& cells, int number) {
    std::string what = "a row of the not-claimed table that the evidence does not generate";
    if (cells.size() == 4)
      what +=
          fmt::format(" (gate {} on \"{}\" with \"{}\": \"{}\")", unescape_cell(cells[2]),
                      unescape_cell(cells[0]), unescape_cell(cells[1]), unescape_cell(cells[3]));
    row_violation(Table::not_claimed, number, what);
  }

  void claim_row(const std::vector<std::string>& cells, int number) {
    if (cells.size() != 3)
      return violation(number,
                       fmt::format("a claims row needs 3 cells, this one has {}", cells.size()));
    std::string platform = unescape_cell(cells[0]), runtime = unescape_cell(cells[1]);
    auto gates = parse_gate_cell(cells[2]);
    if (!gates) return violation(number, "cannot read the gates cell: " + gates.error().what);
    const MatrixRow* row = find_row(matrix_, platform, runtime);
    // One row, one line: every gate it claims without backing, said together.
    std::string unbacked;
    for (const auto& g : *gates) {
      std::string why = unbacked_reason(row, g);
      if (why.empty()) continue;
      unbacked += fmt::format("{}claims gate {} on \"{}\" with \"{}\", but {}",
                              unbacked.empty() ? "" : "; it also ", g.gate, platform, runtime, why);
    }
    if (!unbacked.empty())
      row_violation(Table::claims, number, unbacked);
    else
      row_violation(Table::claims, number,
                    "this claims row is not the one the evidence generates today (its gates or "
                    "dates differ)");
  }

  const std::string& where_;
  const SupportMatrix& matrix_;
  TableTracker tables_;
  // (table, line) -> its line number in the generated block
  std::multimap<std::pair<Table, std::string>, int> expected_;
  struct UnpairedRow {
    Table table;
    std::size_t violation;
  };
  std::vector<UnpairedRow> unpaired_rows_;
  std::vector<int> numbers_;
  std::vector<std::string> notes_;
};

}  // namespace

Result<BlockSpan> find_support_block(std::string_view readme, const std::string& where) {
  if (readme.substr(0, 2) == "\xFF\xFE" || readme.substr(0, 2) == "\xFE\xFF")
    return make_error("is UTF-16 (it starts with a UTF-16 byte order mark); jetgate reads UTF-8",
                      where, "convert it, e.g. iconv -f UTF-16 -t UTF-8");
  MarkerScan scan = scan_markers(readme);
  auto numbers = [](const std::vector<Line>& ls) {
    std::vector<int> n;
    n.reserve(ls.size());
    for (const auto& l : ls) n.push_back(l.number);
    return line_list(n);
  };
  std::string markers =
      fmt::format("{} and {}, each alone on its own line, outside code", kBeginMarker, kEndMarker);
  if (scan.begins.empty() || scan.ends.empty())
    return make_error(fmt::format("no support block: the line {} is missing{}",
                                  scan.begins.empty() ? kBeginMarker : kEndMarker,
                                  why_markers_did_not_count(scan)),
                      where,
                      "add the two lines " + markers + ", where the support table should go");
  if (scan.begins.size() > 1 || scan.ends.size() > 1)
    return make_error(
        fmt::format(
            "the support block markers appear more than once (begin on lines {}; end on lines {})",
            numbers(scan.begins), numbers(scan.ends)),
        where, "keep exactly one pair: " + markers);
  const Line& begin = scan.begins.front();
  const Line& end = scan.ends.front();
  if (end.number < begin.number)
    return make_error(
        fmt::format("the end marker (line {}) comes before the begin marker (line {})", end.number,
                    begin.number),
        where, "put " + std::string(kBeginMarker) + " first");
  return BlockSpan{begin.end, end.begin, begin.number + 1, begin.crlf};
}

std::string replace_block(std::string_view readme, const BlockSpan& span,
                          std::string_view content) {
  const char* newline = span.crlf ? "\r\n" : "\n";
  std::string out(readme.substr(0, span.content_begin));
  // A begin marker on the file's last line without a newline cannot happen
  // (the end marker follows), but keep the marker on its own line regardless.
  if (!out.empty() && out.back() != '\n') out += newline;
  for (char c : content) {
    if (c == '\n')
      out += newline;
    else if (c != '\r')
      out += c;
  }
  if (!content.empty() && content.back() != '\n') out += newline;
  out += readme.substr(span.content_end);
  return out;
}

std::vector<std::string> verify_block(std::string_view content, std::string_view generated,
                                      int first_line, const std::string& where,
                                      const SupportMatrix& matrix) {
  std::string actual = normalise_newlines(content), expected = normalise_newlines(generated);
  if (actual == expected) return {};
  BlockVerifier verifier(where, matrix, expected);
  auto lines = split_lines(actual);
  for (const auto& l : lines) verifier.line(l.text, first_line + l.number - 1);
  verifier.missing(first_line + static_cast<int>(lines.size()));
  if (verifier.empty()) {
    // Same lines in another order or with other blank lines: still not what jetgate writes.
    auto want = split_lines(expected);
    std::size_t i = 0;
    while (i < lines.size() && i < want.size() && lines[i].text == want[i].text) ++i;
    verifier.violation(
        first_line + static_cast<int>(i),
        "the block is not what the evidence generates (it differs from this line on: order or "
        "blank lines)");
  }
  return verifier.take();
}

}  // namespace jetgate::claims
