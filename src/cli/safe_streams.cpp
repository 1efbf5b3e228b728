// SPDX-License-Identifier: Apache-2.0
#include "cli/safe_streams.hpp"

#include <iostream>
#include <streambuf>
#include <string>

#include "jetgate/report/output_line.hpp"

namespace jetgate::cli {
namespace {

// Collects a line, then writes it, made safe, to the stream's own buffer.
class LineFilter : public std::streambuf {
 public:
  LineFilter(std::streambuf* target, report::OutputLineRules rules)
      : target_(target), rules_(rules) {}

  std::streambuf* target() const { return target_; }

  // Whatever is pending: at the end, as it is; before a raw line, ended, so
  // that the raw line starts a line.
  void flush_pending(bool end_line) {
    if (!pending_.empty()) {
      emit(pending_);
      if (end_line) target_->sputc('\n');
    }
    pending_.clear();
    target_->pubsync();
  }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    char c = traits_type::to_char_type(ch);
    if (c == '\n') {
      emit(pending_);
      target_->sputc('\n');
      pending_.clear();
    } else {
      pending_ += c;
      // A line that never ends still reaches the screen, in safe pieces.
      if (pending_.size() >= kMaxPending) {
        emit(pending_);
        pending_.clear();
      }
    }
    return ch;
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
    return n;
  }

  // A flush (std::endl, std::flush) passes complete lines on; a partial line
  // waits for its end, so that no check sees half of a line.
  int sync() override { return target_->pubsync(); }

 private:
  static constexpr std::size_t kMaxPending = 1u << 16;

  void emit(const std::string& line) {
    std::string safe = report::safe_output_line(line, rules_);
    target_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
  }

  std::streambuf* target_;
  report::OutputLineRules rules_;
  std::string pending_;
};

LineFilter* out_filter = nullptr;
LineFilter* err_filter = nullptr;

// Every stream, whatever the environment says: no line starts a workflow
// command, and controls (CR, ESC, C1, bidi, zero-width) take their visible
// form. The runner reads jetgate's output through `docker run`, sudo (which
// drops GITHUB_ACTIONS), ssh to a board, or a file a later step prints, and
// the runner ends a line at CR, so the two go together (report/output_line).
// The escapes keep a JSON document the same document.
report::OutputLineRules rules_for() {
  report::OutputLineRules r;
  r.workflow_commands = true;
  r.controls = true;
  return r;
}

}  // namespace

SafeStreams::SafeStreams() {
  out_filter = new LineFilter(std::cout.rdbuf(), rules_for());
  err_filter = new LineFilter(std::cerr.rdbuf(), rules_for());
  std::cout.rdbuf(out_filter);
  std::cerr.rdbuf(err_filter);
}

SafeStreams::~SafeStreams() {
  for (auto* stream : {&std::cout, &std::cerr}) stream->flush();
  for (LineFilter** f : {&out_filter, &err_filter}) (*f)->flush_pending(false);
  std::cout.rdbuf(out_filter->target());
  std::cerr.rdbuf(err_filter->target());
  delete out_filter;
  delete err_filter;
  out_filter = err_filter = nullptr;
}

void write_workflow_command(std::ostream& os, std::string_view line) {
  os.flush();
  LineFilter* f = &os == &std::cout ? out_filter : &os == &std::cerr ? err_filter : nullptr;
  std::streambuf* target = f ? f->target() : os.rdbuf();
  if (f) f->flush_pending(true);
  // The line itself is jetgate's; its data was escaped when it was built, so
  // no CR or LF can end it early.
  std::string text(line);
  for (char& c : text)
    if (c == '\r' || c == '\n') c = ' ';
  text += '\n';
  target->sputn(text.data(), static_cast<std::streamsize>(text.size()));
  target->pubsync();
}

}  // namespace jetgate::cli
