// SPDX-License-Identifier: Apache-2.0
// `jetgate run GATE --every DURATION`: the long-running validator of a
// DaemonSet, one process without a shell (docs/kubernetes.md). The pieces
// that are not the gate run itself: the duration grammar, the dated copies of
// the evidence that `history ingest` reads, and the wait between runs that a
// signal ends at once.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jetgate::cli {

// "90s", "30m", "6h", "1d", "1h30m": whole numbers with units d, h, m, s, each unit
// at most once and in that order; nullopt for anything else (no unit, "0s" is 0).
std::optional<std::chrono::seconds> parse_duration(const std::string& text);
// 21600 s -> "6h", 5400 s -> "1h30m", 0 -> "0s".
std::string duration_text(std::chrono::seconds d);

// The name of a run's directory of kept evidence: its UTC start, 20261207T203000Z.
std::string run_stamp(std::chrono::system_clock::time_point t);
// Whether NAME is such a stamp, as a whole (the only names pruning may remove).
bool is_run_stamp(const std::string& name);

// Copies EVIDENCE_DIR/GATE.json (and GATE.dsse.json when present) into
// EVIDENCE_DIR/runs/STAMP/, then removes the oldest run directories beyond
// `keep`. Returns the directory written, or why not (the run's own evidence is
// untouched either way). Removed directories are appended to `removed`.
std::string keep_run(const std::string& evidence_dir, const std::string& gate,
                     const std::string& stamp, int keep, std::vector<std::string>& removed,
                     std::string& error);

// Waits `d`, or until SIGINT/SIGTERM/SIGHUP arrives inside the active
// InterruptScope; true when it was a signal.
bool wait_or_interrupt(std::chrono::milliseconds d);

}  // namespace jetgate::cli
