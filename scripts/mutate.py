#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation testing of jetgate's verdict-critical code (gate, claims, evidence, facts).

Plants each bug of MUTANTS below, one at a time, in a copy of the tree, rebuilds the
test binary incrementally and runs it. A mutant the suite does not fail on
"survives": a plausible bug no test would catch. Prints every survivor and the kill
ratio; exits 1 when any mutant survives (or with --allow-survivors, 0).

Usage: scripts/mutate.py [--work DIR] [--only ID[,ID...]] [--jobs N] [--shards N]
                         [--timeout S] [--allow-survivors] [--list]

A mutant whose original text is no longer in its file is reported STALE (the code
moved on: update the mutant) and counts neither way; one that no longer compiles is
reported as such and counts neither way either.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutant:
    id: str
    path: str  # relative to the repository root
    old: str   # must occur exactly once in the file
    new: str
    why: str   # the plausible bug it stands for


MUTANTS = [
    # --- evidence -------------------------------------------------------------------
    Mutant("sha-39-digits", "src/jetgate/evidence/git_sha.cpp",
           "if (s.size() != 40) return false;", "if (s.size() < 39 || s.size() > 40) return false;",
           "a 39-digit GITHUB_SHA accepted as a commit"),
    Mutant("sha-uppercase", "src/jetgate/evidence/git_sha.cpp",
           "(c >= 'a' && c <= 'f')", "(c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')",
           "upper-case hex accepted, so one commit has two spellings"),
    Mutant("sha-github-ignored", "src/jetgate/evidence/git_sha.cpp",
           'for (const char* name : {"GITHUB_SHA", "CI_COMMIT_SHA"})',
           'for (const char* name : {"CI_COMMIT_SHA"})',
           "GITHUB_SHA ignored: evidence names git HEAD of a merge ref instead"),
    Mutant("write-in-place", "src/jetgate/fs/atomic_write.cpp",
           'std::string tmp = fmt::format(".{}.{}.{}.tmp", name, ::getpid(), random_hex(16));\n'
           '    int fd = ::openat(f.dir_fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,\n'
           '                      0644);',
           # (random_hex() still called, as the original does)
           'std::string tmp = random_hex(16).empty() ? std::string() : name;\n'
           '    int fd = ::openat(f.dir_fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);',
           "evidence written in place (through a symlink, under a reader) instead of temp + rename"),
    Mutant("rename-wrong-name", "src/jetgate/fs/atomic_write.cpp",
           "if (::renameat(dir_fd_, tmp_.c_str(), dir_fd_, name_.c_str()) != 0) {",
           "if (::renameat(dir_fd_, tmp_.c_str(), dir_fd_, (name_ + \".new\").c_str()) != 0) {",
           "the temporary file renamed to the wrong name: the evidence never appears"),
    Mutant("schema-version-any", "src/jetgate/evidence/evidence.cpp",
           'if (!integer_in_range(j["schema_version"], 1, 1))',
           'if (!integer_in_range(j["schema_version"], 1, 99))',
           "evidence of a newer, unknown schema read as version 1"),
    Mutant("negative-count", "src/jetgate/evidence/evidence.cpp",
           "auto n = integer_in_range(v, 0, std::numeric_limits<std::int64_t>::max());",
           "auto n = integer_in_range(v, std::numeric_limits<std::int64_t>::min(), "
           "std::numeric_limits<std::int64_t>::max());",
           "negative counts accepted (failures = -1 hides a failure)"),
    Mutant("leap-day", "src/jetgate/evidence/dates.cpp",
           "if (!date.ok()) return std::nullopt;", "",
           "impossible dates (2026-02-30) accepted as evidence dates"),
    # --- claims ---------------------------------------------------------------------
    Mutant("passed-with-skips", "src/jetgate/claims/evidence_verdict.cpp",
           "if (c.skipped > 0)\n    return fmt::format(\"status passed with {} skipped tests",
           "if (c.skipped < 0)\n    return fmt::format(\"status passed with {} skipped tests",
           "a passed gate with skipped tests backs a claim"),
    Mutant("passed-no-tests", "src/jetgate/claims/evidence_verdict.cpp",
           "if (c.tests <= 0) return", "if (c.tests < 0) return",
           "a passed gate that ran no tests backs a claim"),
    Mutant("passed-with-errors", "src/jetgate/claims/evidence_verdict.cpp",
           "if (c.failures > 0 || c.errors > 0)", "if (c.failures > 0)",
           "a passed gate whose counts record JUnit errors backs a claim"),
    Mutant("local-backs-claim", "src/jetgate/claims/evidence_verdict.cpp",
           "if (!evidence::is_commit_sha(e.git_sha)) {",
           "if (e.git_sha.empty()) {",
           "evidence with git_sha \"local\" backs a public claim"),
    Mutant("other-commit-ok", "src/jetgate/claims/evidence_verdict.cpp",
           "} else if (!rules.candidate_sha.empty() && e.git_sha != rules.candidate_sha &&",
           "} else if (!rules.candidate_sha.empty() && e.git_sha == rules.candidate_sha &&",
           "evidence for another commit backs the candidate"),
    Mutant("stale-off-by-one", "src/jetgate/claims/evidence_verdict.cpp",
           "} else if (v.age_days > rules.max_age_days) {",
           "} else if (v.age_days > rules.max_age_days + 1) {",
           "evidence one day older than the limit still fresh"),
    Mutant("future-accepted", "src/jetgate/claims/evidence_verdict.cpp",
           "} else if (v.age_days < 0) {", "} else if (v.age_days < -1) {",
           "evidence dated tomorrow (wrong runner clock) counts as fresh"),
    Mutant("exit-code-ignored", "src/jetgate/claims/evidence_verdict.cpp",
           "if (e.exit_code && *e.exit_code != 0)",
           "if (e.exit_code && *e.exit_code < 0)",
           "passed evidence with a non-zero exit code backs a claim"),
    Mutant("recorded-backs-claim", "src/jetgate/claims/evidence_verdict.cpp",
           'if (source == "live") return {};', 'if (source != "") return {};',
           "evidence whose facts came from a recorded root backs a claim"),
    Mutant("dirty-backs-claim", "src/jetgate/claims/evidence_verdict.cpp",
           "  } else if (dirty && *dirty) {",
           "  } else if (dirty && *dirty && false) {",
           "evidence from a dirty checkout backs a claim"),
    Mutant("unreadable-is-missing", "src/jetgate/claims/gate_decision.cpp",
           "verdict_without_evidence(GateState::unreadable, \"evidence is unreadable: \" + s.why);",
           "verdict_without_evidence(GateState::missing, \"evidence is unreadable: \" + s.why);",
           "a corrupt evidence file reported as missing, hiding the corruption"),
    Mutant("board-hides-board", "src/jetgate/claims/gate_decision.cpp",
           "    if (!backs_claim(f->unsigned_verdict)) {\n      newest_red = f;",
           "    if (false) {\n      newest_red = f;",
           "in a board matrix a newer green run on one board hides another board's failure"),
    Mutant("green-signature-unchecked", "src/jetgate/claims/gate_decision.cpp",
           "      if (!set.backs(*newest[i])) return newest[i];",
           "      if (!backs_claim(newest[i]->unsigned_verdict)) return newest[i];",
           "the newest green file's signature never checked: forged evidence backs a claim"),
    Mutant("tie-goes-green", "src/jetgate/claims/gate_decision.cpp",
           "      if (!set.backs(**f)) return *f;", "      if (false) return *f;",
           "of two runs at the same instant on one board, the green one decides"),
    Mutant("signature-not-first", "src/jetgate/claims/evidence_verdict.cpp",
           "  v.state = GateState::untrusted;\n", "",
           "an unsigned or forged file keeps its green state (the problem only listed)"),
    Mutant("tag-unchecked", "src/jetgate/claims/evidence_set.cpp",
           "if (!ctx.trusted.empty() && trust::content_tag(ctx.tag_key, *text) != le.tag) return changed(le);",
           "if (!ctx.trusted.empty() && trust::content_tag(ctx.tag_key, *text) == le.tag + 1) return changed(le);",
           "a file swapped after it was judged has its signature checked over the other bytes"),
    Mutant("reread-unchecked", "src/jetgate/claims/evidence_set.cpp",
           "      v.state != le.unsigned_verdict.state || v.problems != le.unsigned_verdict.problems ||",
           "      v.problems.size() > 1000000 ||",
           "the summary shows facts of a file that changed since it was judged"),
    Mutant("keep-drops-definition", "src/jetgate/claims/evidence_set.cpp",
           "      path(keys::kGateDefinitionSha256),\n", "",
           "the loader drops the gate's definition: evidence of another definition holds"),
    Mutant("keep-drops-driver", "src/jetgate/claims/evidence_set.cpp",
           "      path(keys::kDriverLoaded),\n", "",
           "the loader drops whether the driver loaded: requires.cuda never met (or met wrongly)"),
    # --- gate -----------------------------------------------------------------------
    Mutant("threshold-inclusive", "src/jetgate/gate/thresholds.cpp",
           "if ((c.min && !(v >= *c.min)) || (c.max && !(v <= *c.max)))",
           "if ((c.min && v < *c.min) || (c.max && v > *c.max))",
           "a NaN metric passes a threshold"),
    Mutant("skip-not-counted", "src/jetgate/gate/thresholds.cpp",
           "    if (o.status == Outcome::skip) ++c.skipped;", "",
           "skipped probes not counted, so a gate of skips is green"),
    Mutant("warn-is-pass", "src/jetgate/gate/thresholds.cpp",
           "if (c.status && r.status != ProbeStatus::pass)",
           "if (c.status && r.status == ProbeStatus::fail)",
           "status: PASS accepts WARN"),
    Mutant("when-ignored", "src/jetgate/gate/thresholds.cpp",
           "    if (!check_applies(c, platform)) continue;\n", "",
           "a floor for one Jetson module and power mode holds every board to it"),
    Mutant("when-any-part", "src/jetgate/gate/thresholds.cpp",
           "policy::all_met(policy::evaluate_requirements(c.when, platform, nullptr))",
           "[&] { auto o = policy::evaluate_requirements(c.when, platform, nullptr); "
           "return std::any_of(o.begin(), o.end(), [](const auto& x) { return x.met; }); }()",
           "a module's floor applies in every power mode (one part of \"when\" is enough)"),
    Mutant("when-platform-dropped", "src/jetgate/gate/gate_runner.cpp",
           "evaluate_probe_checks(gate.probes, st.results, st.platform)",
           "evaluate_probe_checks(gate.probes, st.results)",
           "jetgate run never applies a module's own floor"),
    Mutant("junit-error-ignored", "src/jetgate/gate/junit.cpp",
           "  else if (tc.child(\"error\"))\n    c.errors = 1;", "",
           "a JUnit <error> is not counted"),
    Mutant("junit-attr-floor", "src/jetgate/gate/junit.cpp",
           "sum.failures = std::max(sum.failures, attrs->failures);", "",
           "a suite whose attributes say failures=\"1\" with no <failure> child is clean"),
    Mutant("junit-skip-attr-floor", "src/jetgate/gate/junit.cpp",
           "sum.skipped = std::max(sum.skipped, attrs->skipped);", "",
           "a suite whose attributes say skipped=\"3\" with no <skipped> child has no skips"),
    # --- facts ----------------------------------------------------------------------
    Mutant("l4t-row", "data/l4t-jetpack.json",
           '["35.4.1", ["5.1.2"]', '["35.4.1", ["5.1.3"]',
           "one L4T -> JetPack row maps to the wrong JetPack"),
    Mutant("l4t-row-thor", "data/l4t-jetpack.json",
           '["38.2.1", ["7.0"]', '["38.2.1", ["7.1"]',
           "a JetPack 7 L4T row maps to the wrong JetPack"),
    Mutant("l4t-row-old", "data/l4t-jetpack.json",
           '["32.7.3", ["4.6.3"]', '["32.7.3", ["4.6.2"]',
           "a JetPack 4 L4T row maps to the wrong JetPack"),
    Mutant("dpkg-config-files", "src/jetgate/facts/l4t.cpp",
           'return state == "installed" ||', 'return state == "installed" || state == "config-files" ||',
           "a removed package (config-files) read as installed"),
    Mutant("dpkg-hold-ignored", "src/jetgate/facts/l4t.cpp",
           'if (!wants.count(want) || flag != "ok") return false;',
           'if (want != "install" || flag != "ok") return false;',
           "a held package (apt-mark hold nvidia-l4t-core) read as not installed"),
    Mutant("dpkg-half-installed", "src/jetgate/facts/l4t.cpp",
           'return state == "installed" ||', 'return state.find("installed") != std::string::npos ||',
           "a half-installed package read as installed"),
    Mutant("tegra-release-revision", "src/jetgate/facts/l4t.cpp",
           'return m->str(1) + "." + r->str(1) + "." + (r->matched(2) ? r->str(2) : std::string("0"));',
           'return m->str(1) + "." + r->str(1) + ".0";',
           "the L4T patch level dropped (36.4.3 read as 36.4.0)"),
    # --- issue "Holds means the project's own gate ran": the classes planted bugs survived
    Mutant("definition-ignored", "src/jetgate/claims/evidence_verdict.cpp",
           "if (!made_by.empty() && !same_identifier(made_by, want.sha256)) {",
           "if (made_by.empty() && !same_identifier(made_by, want.sha256)) {",
           "evidence of another definition of the gate (same id) backs the policy's gate"),
    Mutant("requirements-not-rechecked", "src/jetgate/claims/evidence_verdict.cpp",
           "    if (!o.met)\n      out.push_back({GateState::requirements_unmet,",
           "    if (!o.met && false)\n      out.push_back({GateState::requirements_unmet,",
           "x86_64 evidence holds under a policy that requires aarch64 and Tegra"),
    Mutant("missing-probe-ok", "src/jetgate/claims/evidence_verdict.cpp",
           "if (!result || !result->is_object() || !result->contains(\"status\"))",
           "if (false && (!result || !result->is_object()))",
           "evidence in which a probe the gate names never ran holds"),
    Mutant("missing-command-ok", "src/jetgate/claims/evidence_verdict.cpp",
           "if (!command || !command->is_object() || !command->contains(\"exit_code\"))",
           "if (!command && false)",
           "evidence in which the gate's command never ran holds"),
    Mutant("dirty-null-backs-claim", "src/jetgate/claims/evidence_verdict.cpp",
           "      !dirty && (jetgate_written || dirty_recorded)) {",
           "      !dirty && (jetgate_written || dirty_recorded) && false) {",
           "a tree git could not inspect (dirty: null) counts as clean"),
    Mutant("dirty-unknown-after-ignored", "src/jetgate/gate/gate_runner.cpp",
           "    else if (!c.after.dirty && dirty == false)\n      dirty = std::nullopt;",
           "    else if (!c.after.dirty && dirty == false && c.before.head.has_value() == false)\n      dirty = std::nullopt;",
           "git failing after the command leaves the evidence claiming a clean tree"),
    Mutant("ci-sha-mismatch-ignored", "src/jetgate/gate/gate_runner.cpp",
           "if (!c.before.head || *c.before.head == c.sha.sha) return std::nullopt;",
           "if (!c.before.head || c.before.head->substr(0, 12) == c.sha.sha.substr(0, 12)) return std::nullopt;",
           "GITHUB_SHA naming another commit than HEAD wins (compared by a 12-digit prefix)"),
    Mutant("module-prefix", "src/jetgate/policy/requirements.cpp",
           "return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {",
           "return a.size() >= b.size() && std::equal(b.begin(), b.end(), a.begin(), [](char x, char y) {",
           "requires.module \"Jetson AGX Orin\" met by \"Jetson AGX Orin 64GB\""),
    Mutant("version-common-prefix", "src/jetgate/policy/requirements.cpp",
           "    long vi = i < v->size() ? (*v)[i] : 0;",
           "    if (i >= v->size()) break;\n    long vi = (*v)[i];",
           "driver \"12\" meets a minimum of \"12.2\" (compared on the common prefix)"),
    Mutant("memory-strict", "src/jetgate/policy/requirements.cpp",
           "best >= min, why};", "best > min, why};",
           "a device with exactly the required memory is refused"),
    Mutant("memory-loose", "src/jetgate/policy/requirements.cpp",
           "best >= min, why};", "best + 1 >= min, why};",
           "a device one byte short of the requirement meets it"),
    Mutant("cuda-zero-devices", "src/jetgate/policy/requirements.cpp",
           "*gpu.device_count > 0;", "*gpu.device_count >= 0;",
           "requires.cuda met by a driver that sees no device"),
    Mutant("junit-suppressed-passes", "src/jetgate/gate/junit.cpp",
           ' || result == "suppressed";', ";",
           "GoogleTest's result=\"suppressed\" counted as a pass"),
    Mutant("readme-dates-back", "src/jetgate/report/support_markdown.cpp",
           "  return claims::describe(g.verdict.state);\n}",
           "  return fmt::format(\"{} (evidence of {})\", claims::describe(g.verdict.state),\n                     g.verdict.evidence_date);\n}",
           "a date in the committed block: --verify goes red every new day"),
    # --- untrusted code and text (issue 21, the hostile review of stop 36) ------------
    Mutant("evidence-by-path", "src/jetgate/gate/gate_runner.cpp",
           "auto path = evidence::write_evidence(*evidence_dir, e);",
           "auto path = evidence::write_evidence(options.evidence_dir, e);",
           "evidence written by path after the command ran: a link it left redirects root's write"),
    Mutant("lock-unlinked-by-path", "src/jetgate/evidence/evidence_dir.cpp",
           "::unlinkat(dir_fd_, name_.c_str(), 0);", "::unlink(path_.c_str());",
           "the lock file removed by path: a link the command left removes another file"),
    Mutant("junit-second-root", "src/jetgate/gate/junit.cpp",
           "if (type == pugi::node_element && ++roots == 1) continue;",
           "if (type == pugi::node_element && ++roots >= 1) continue;",
           "a second <testsuite> root (holding the failures) is ignored and the gate passes"),
    Mutant("junit-text-after-root", "src/jetgate/gate/junit.cpp",
           "pugi::parse_default | pugi::parse_fragment,", "pugi::parse_default,",
           "text after the root element goes unseen: a report jetgate cannot read fully passes"),
    Mutant("neutralise-only-on-actions", "src/cli/safe_streams.cpp",
           "r.workflow_commands = true;\n  r.controls = true;",
           "r.workflow_commands = false;\n  r.controls = false;",
           "workflow commands and controls pass when GITHUB_ACTIONS is lost (docker, sudo, ssh)"),
    Mutant("usage-error-raw", "src/cli/main.cpp",
           'std::cerr << terminal_safe(e.what()) << "\\n";', 'std::cerr << e.what() << "\\n";',
           "CLI11's usage error echoes an argument's ESC, BEL, bidi and LF raw"),
    Mutant("negative-int-zero", "src/jetgate/core/json_text.cpp",
           'if (text.substr(i, literal_end - i) != "-0") return true;',
           'if (text.substr(i, literal_end - i) != "-0 ") return true;',
           "the integer -0 is read as 0 (its sign lost) instead of refused"),
    Mutant("negative-int-zero-fast", "src/jetgate/core/fast_json.cpp",
           "if (negative_integer_zero_at(text)) return std::nullopt;", "",
           "the fast parser accepts -0 where the slow one refuses it"),
    Mutant("junit-out-raw", "src/jetgate/report/junit_xml.cpp",
           "OutputLineRules{/*workflow_commands=*/true,", "OutputLineRules{/*workflow_commands=*/false,",
           "a test name starting '::' reaches the JUnit report as a workflow command"),
    Mutant("badge-raw", "src/jetgate/report/badge.cpp",
           "message = terminal_safe(*platforms.begin());",
           "message = to_valid_utf8(*platforms.begin());",
           "the badge draws a platform name's bidi and zero-width characters"),
    Mutant("issue-ref-linked", "src/jetgate/report/text_escape.cpp",
           "if (issue_reference) out += kAtBreak;", "(void)issue_reference;",
           "'#12' from evidence links an issue from the README block or the issue body"),
    Mutant("db-device-opened", "src/jetgate/history/store.cpp",
           "kind != stdfs::file_type::regular &&", "kind == stdfs::file_type::socket &&",
           "history --db /dev/null or a FIFO is handed to SQLite"),
    # --- outputs are never inputs; readers never write (issue: hostile input) ----------
    Mutant("output-input-by-text", "src/jetgate/fs/command_files.cpp",
           "    if (in.entry == *entry)\n", "    if (in.path == path)\n",
           "an output compared with the inputs as text: ./fleet.db or a link to its "
           "directory overwrites the database"),
    Mutant("output-bare-suffix", "src/jetgate/fs/command_files.cpp",
           "return name.size() > suffix.size() &&", "return name.size() >= suffix.size() &&",
           "'.json' alone (a hidden file the readers skip) refused as evidence"),
    Mutant("output-dir-flat", "src/jetgate/fs/command_files.cpp",
           "if (!inside && dir.recursive)", "if (!inside && !dir.recursive)",
           "history ingest --db ev/sub/x.json accepted although the walk reads it"),
    Mutant("outputs-not-distinct", "src/jetgate/fs/command_files.cpp",
           "  outputs_.push_back({*entry, option, path});\n", "",
           "--junit F --prometheus F: the second overwrites the first"),
    Mutant("reader-opens-rw", "src/jetgate/history/store.cpp",
           "auto db = open_checked(path, SQLITE_OPEN_READONLY, empty);",
           "auto db = open_checked(path, SQLITE_OPEN_READWRITE, empty);",
           "history show opens the database to write: a stray -wal is checkpointed into it"),
    Mutant("wal-before-identity", "src/jetgate/history/store.cpp",
           "  if (auto st = check_identity(raw, path, empty); !st) return st.error();\n  return db;",
           "  if (!(flags & SQLITE_OPEN_READWRITE))\n"
           "    if (auto st = check_identity(raw, path, empty); !st) return st.error();\n  return db;",
           "a foreign database is switched to WAL before it is refused: its bytes change"),
    Mutant("validator-with-command", "src/jetgate/history/store.cpp",
           "if (mount && mount->is_object() && (!command || command->is_null()))",
           "if (mount && mount->is_object())",
           "a gate with a command run under --host-root escapes its claim's verdict"),
    Mutant("validator-verdict-amber", "src/jetgate/report/history_html.cpp",
           'if (verdict == history::kNodeValidatorVerdict) return "verdict-validator";',
           "",
           "a node validator's healthy node is amber in the fleet report"),
    Mutant("container-node-modprobe-only", "src/jetgate/facts/node_access.cpp",
           "if (!contained) contained = devices_in_container(ctx);",
           "if (!contained) contained = false;",
           "a node missing in a pod says modprobe, not which injection to check"),
    Mutant("walk-skip-silent", "src/jetgate/history/store.cpp",
           'out.skipped.push_back({current, "directory cannot be listed: " + ec.message()});',
           "(void)0;",
           "a directory the ingest cannot list is skipped without a word"),
    Mutant("db-before-listing", "src/cli/cmd_history.cpp",
           "  auto found = history::find_evidence_files(a.dirs);\n"
           "  if (!found) return usage_error(\"history ingest\", found.error().message());\n"
           "  auto store = history::Store::open(a.db, /*create=*/true);\n"
           "  if (!store) return usage_error(\"history ingest\", store.error().message());\n",
           "  auto store = history::Store::open(a.db, /*create=*/true);\n"
           "  if (!store) return usage_error(\"history ingest\", store.error().message());\n"
           "  auto found = history::find_evidence_files(a.dirs);\n"
           "  if (!found) return usage_error(\"history ingest\", found.error().message());\n",
           "an ingest of a missing directory leaves an empty database behind"),
    Mutant("host-root-own-process", "src/jetgate/fs/root_fs.cpp",
           "    if (fd >= 0 && is_own_process_file(static_cast<int>(fd))) {",
           "    if (fd >= 0 && false && is_own_process_file(static_cast<int>(fd))) {",
           "a host file linking to /proc/self/environ puts jetgate's environment in the evidence"),
    Mutant("future-run-stored", "src/jetgate/history/store.cpp",
           "if (*seconds > now + kFutureSlack)", "if (*seconds > now + 100 * kFutureSlack)",
           "a run dated 2099 by a clock that ran ahead sorts last for good and hides the node"),
    Mutant("clock-unset-run-stored", "src/jetgate/history/store.cpp",
           "if (*seconds < kEarliestEvidence)", "if (*seconds < 0)",
           "a failed run dated 1970 (no real-time clock) sorts first and is never shown"),
    Mutant("identity-two-snapshots", "src/jetgate/history/store.cpp",
           '"SELECT (SELECT user_version FROM pragma_user_version), "\n'
           '               "(SELECT count(*) FROM sqlite_schema)"',
           '"SELECT (SELECT user_version FROM pragma_user_version), 0"',
           "the schema check ignores tables: another application's database is taken over"),
    # --- the fleet: silence and peers (issue 41) -----------------------------------------
    Mutant("silent-never", "src/jetgate/history/regressions.cpp",
           "s.silent = s.age_seconds > o.silent_after_seconds;",
           "s.silent = s.age_seconds > o.silent_after_seconds * 30;",
           "a node silent for days is not reported (the limit read in the wrong unit)"),
    Mutant("silent-age-zero", "src/jetgate/history/regressions.cpp",
           "s.age_seconds = report.now - r->unix_time;",
           "s.age_seconds = 0;",
           "a node's age is not counted to now"),
    Mutant("below-peers-latest-unchecked", "src/jetgate/history/regressions.cpp",
           "if (!(v->second.first < limit)) break;",
           "if (false) break;",
           "below its peers since runs that were not below the limit"),
    Mutant("below-peers-repeats-drop", "src/jetgate/history/regressions.cpp",
           "        dropped = true;",
           "        dropped = false;",
           "a probe that dropped against its own past is reported twice"),
    Mutant("watched-drop-any-speed", "src/jetgate/probes/registry.cpp",
           "if (speed && better == Better::higher) watch = Watch::drop;",
           "if (speed && better != Better::neither) watch = Watch::drop;",
           "every lower-is-better speed (a latency, a CPU share) watched for a drop"),

    # --- issue 39: one typed evidence record --------------------------------------------
    Mutant("unknown-state-green", "src/jetgate/claims/evidence_verdict.cpp",
           'return {"unknown_state", Outcome::fail,',
           'return {"unknown_state", Outcome::pass,',
           "a verdict state without a row reads as a pass"),
    Mutant("record-drops-wrong-type", "src/jetgate/record/codec.cpp",
           "if (field && rest) erase_at(*rest, pointer);",
           "if (rest) erase_at(*rest, pointer);",
           "a member of an unexpected type is lost on the round trip instead of kept as it came"),
    Mutant("container-l4t-always-file", "src/cli/cmd_container.cpp",
           "return HostRelease{*l4t.version, where_from(*root, l4t.source.value_or(\"\"))};",
           "return HostRelease{*l4t.version, root->display(\"/etc/nv_tegra_release\")};",
           "jetgate container says the host's L4T came from /etc/nv_tegra_release when dpkg said it"),

    # --- issue 43: badge, coverage paths, one cause one finding ------------------------
    Mutant("badge-counts-any-gpu", "src/jetgate/report/badge.cpp",
           'if (jetson_only && row.key.facts.value("kind", "") != "jetson") continue;',
           "(void)jetson_only;",
           "the Jetson badge counts an H200 as a Jetson platform"),
    Mutant("glob-unchecked", "src/jetgate/policy/policy.cpp",
           "if (!glob_matches_a_file(p.repo_root, path))", "if (false)",
           "a coverage glob that matches no file passes check"),
    Mutant("not-run-said-per-probe", "src/jetgate/claims/evidence_verdict.cpp",
           "if (p.compare(0, missing_probe.size(), missing_probe) == 0) {",
           "if (false) {",
           "a gate that did not run repeats each probe without a result in full, not as one detail"),
    Mutant("run-stamp-prefix", "src/cli/run_every.cpp",
           "if (name.size() != 16 || name[8] != 'T' || name[15] != 'Z') return false;",
           "if (name.size() < 16 || name[8] != 'T' || name[15] != 'Z') return false;",
           "run --every's pruning removes a directory whose name merely starts with a stamp"),
    Mutant("run-every-interrupted-publishes", "src/cli/cmd_run.cpp",
           "if (in_loop && proc::interrupt_signal() != 0) {",
           "if (in_loop && proc::interrupt_signal() < 0) {",
           "a run cut short by SIGTERM (a rollout) replaces the node's labels and metrics"),
    Mutant("k8s-modules-required", "src/jetgate/init/init_kubernetes.cpp",
           '{"host-modules", "/lib/modules", "/host/lib/modules", true, "", "", ""}',
           '{"host-modules", "/lib/modules", "/host/lib/modules", true, "Directory", "", ""}',
           "a node without /lib/modules never starts the pods instead of jetgate reporting it"),
    # --- the GPU stack table (data/gpu-stack.json, issue 38) ------------------------
    Mutant("stack-node-prefix-match", "src/jetgate/core/identifier.cpp",
           "if (pattern.empty() || pattern.back() != '*') return same_identifier(pattern, path);",
           "if (pattern.empty() || pattern.back() != '*') return path.rfind(pattern, 0) == 0;",
           "/dev/nvhost-ctrl-gpu taken for /dev/nvhost-ctrl (prefix match)"),
    Mutant("stack-pattern-any-suffix", "src/jetgate/core/identifier.cpp",
           "return std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });",
           "return !rest.empty();",
           "renderD128x or renderDfoo counted as a render node"),
    Mutant("stack-l4t-upper-open", "src/jetgate/facts/gpu_stack.cpp",
           "if (major >= *s.l4t_low && major <= *s.l4t_high) return &s;",
           "if (major >= *s.l4t_low) return &s;",
           "an L4T 36 board judged by the L4T 35 rule (the first row whose low bound fits)"),
    Mutant("stack-mainline-without-selector", "src/jetgate/facts/gpu_stack.cpp",
           "} else if (major == 0 && s.selected_by && present(*s.selected_by)) {",
           "} else if (major == 0 && s.selected_by && (present(*s.selected_by) || true)) {",
           "any Orin without an L4T release taken for the nvgpu mainline stack"),
    Mutant("cdi-only-nvhost-ctrl", "src/jetgate/facts/node_access.cpp",
           "      if (!n.is_object() || n.value(\"present\", true)) continue;\n      ++absent;",
           "      if (!n.is_object() || n.value(\"present\", true) ||\n          n.value(\"host_path\", \"\") != \"/dev/nvhost-ctrl\")\n        continue;\n      ++absent;",
           "only a missing /dev/nvhost-ctrl in a CDI spec is reported, not the other absent nodes"),
    Mutant("cdi-dirs-defaults-only", "src/jetgate/facts/cdi_dirs.cpp",
           "    for (const auto& d : *found) add(d, path);",
           "    (void)found;",
           "containerd's cdi_spec_dirs ignored: Talos's /var/cdi/static specs never read"),
    Mutant("missing-cuda-node-silent", "src/jetgate/facts/node_access.cpp",
           "    if (!n.is_object() || n.value(\"present\", true) || !n.value(\"expected\", false)) continue;",
           "    if (!n.is_object() || n.value(\"present\", true) || n.value(\"expected\", false)) continue;",
           "a node this stack's CUDA opens is absent and nothing says so"),
    Mutant("unknown-symbol-untraced", "src/jetgate/facts/module_provenance.cpp",
           "          else if (!owner_loaded)",
           "          else if (owner_loaded)",
           "'Unknown symbol X' not traced to the unloaded module that exports X"),
    Mutant("mainline-uninstalled-skipped", "src/jetgate/facts/module_provenance.cpp",
           "    if (by_installed && !is_installed && !is_loaded && !e.cuda) continue;",
           "    if (by_installed && !is_installed && !is_loaded) continue;",
           "a module CUDA needs that the mainline kernel did not install is never named"),
    Mutant("nvhost-extract-required", "src/jetgate/probes/nvhost_ctrl.cpp",
           "      if (extract.outcome == IoctlOutcome::not_implemented) {",
           "      if (extract.outcome == IoctlOutcome::refused) {",
           "an L4T 32 or early L4T 35 driver without SYNC_FILE_EXTRACT fails the probe"),
    Mutant("nvhost-absent-node-fails", "src/jetgate/probes/nvhost_ctrl.cpp",
           "      r.status = ProbeStatus::pass;\n      r.details[\"applies\"] = false;",
           "      r.status = ProbeStatus::skip;\n      r.details[\"applies\"] = false;",
           "stock JetPack 6 fails `probe --probe nvhost_ctrl` for a node its stack does not have"),
    Mutant("cuinit-name-prefix", "src/jetgate/facts/gpu_stack.cpp",
           "    if (c.name == name) return cuinit_causes(c.code, stack);",
           "    if (name.rfind(c.name, 0) == 0) return cuinit_causes(c.code, stack);",
           "a cuInit error whose name only starts with a known one gets that one's causes"),
    Mutant("polling-causes-unmeasured", "src/jetgate/evidence/gpu_facts.cpp",
           "  if (!polling) return;\n  const auto* stack = facts::select_gpu_stack(platform);",
           "  (void)polling;\n  const auto* stack = facts::select_gpu_stack(platform);",
           "polling causes named although sync_path did not measure polling (a prediction)"),
    # --- issue 42 class 8: identifiers match whole (core/identifier.hpp) -----------
    Mutant("identifier-prefix", "src/jetgate/core/identifier.cpp",
           "return a.size() == b.size() && a == b;", "return a.substr(0, b.size()) == b;",
           "the whole-match helper compares a prefix: every identifier near miss passes"),
    Mutant("first-field-prefix", "src/jetgate/core/identifier.cpp",
           "return same_identifier(text.substr(0, text.find_first_of(separators)), id);",
           "return (void)separators, text.substr(0, id.size()) == id;",
           "a vermagic's first field matched by prefix (5.15.148-tegra-rt taken for 5.15.148-tegra)"),
    Mutant("definition-digest-12", "src/jetgate/claims/evidence_verdict.cpp",
           "if (!made_by.empty() && !same_identifier(made_by, want.sha256)) {",
           "if (!made_by.empty() && made_by.substr(0, 12) != want.sha256.substr(0, 12)) {",
           "a gate definition's digest compared on the 12 digits the message shows"),
    Mutant("evidence-gate-prefix", "src/jetgate/claims/evidence_set.cpp",
           "if (!same_identifier(stem, e->gate)) {", "if (e->gate.rfind(stem, 0) != 0) {",
           "an evidence file accepted when the gate it records merely starts with its name"),
    Mutant("vermagic-prefix", "src/jetgate/facts/module_provenance.cpp",
           "first_field_is(p[\"vermagic\"].get<std::string>(), *release);",
           "p[\"vermagic\"].get<std::string>().rfind(*release, 0) == 0;",
           "a module built for 5.15.148-tegra taken for kernel 5.15.148 (vermagic by prefix)"),
    # --- issue 42 class 8: statistics at their edges ---------------------------------
    Mutant("median-even-upper", "src/jetgate/history/regressions.cpp",
           "return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;", "return v[n / 2];",
           "an even count's median taken as the upper middle value"),
    Mutant("mad-sigma-one", "src/jetgate/history/regressions.cpp",
           "constexpr double kMadToSigma = 1.4826;", "constexpr double kMadToSigma = 1.0;",
           "the MAD used as sigma without the normal-consistency factor 1.4826"),
    Mutant("not-run-breaks-streak", "src/jetgate/history/regressions.cpp",
           'if (r->status == "not_run") continue;',
           'if (r->status == "not_run" && streak == 0) continue;',
           "a run that did not run inside a failing streak ends the streak"),
    # --- issue 42 class 8: fast paths keep the slow path's rules ----------------------
    Mutant("label-fast-path-newline", "src/jetgate/report/prometheus.cpp",
           "return static_cast<unsigned char>(c) < 0x80 && c != '\\\\' && c != '\"' && c != '\\n';",
           "return static_cast<unsigned char>(c) < 0x80 && c != '\\\\' && c != '\"';",
           "the label escaper's ASCII fast path lets a raw newline through"),
    Mutant("gbps-gibibytes", "src/jetgate/evidence/probe_values.cpp",
           '{"GB/s", "bytes_per_second", 1e9},', '{"GB/s", "bytes_per_second", 1073741824.0},',
           "GB/s converted with 2^30 bytes"),
    Mutant("people-gbps-gibibytes", "src/jetgate/report/history_text.cpp",
           'if (base_unit == "bytes_per_second") return {1e9, "GB/s"};',
           'if (base_unit == "bytes_per_second") return {1073741824.0, "GB/s"};',
           "bytes per second divided by 2^30 and labelled GB/s"),
    # --- issue 42 class 8: counters and errors -----------------------------------------
    Mutant("syncpoint-wrap-backwards", "src/jetgate/probes/nvhost_ctrl.cpp",
           "return static_cast<std::int32_t>(a - b) >= 0;", "return a >= b;",
           "a syncpoint wrapping from 0xffffffff to 0 reported as going backwards"),
    Mutant("extract-thresh-unchecked", "src/jetgate/probes/nvhost_ctrl.cpp",
           "} else if (e.num_fences < 1 || got.id != syncpt || got.thresh != r2.value)",
           "} else if (e.num_fences < 1 || got.id != syncpt)",
           "SYNC_FILE_EXTRACT's threshold left unchecked"),
    Mutant("open-error-is-absent", "src/jetgate/probes/nvhost_ctrl.cpp",
           'doc[0].contains("errno") && doc[0]["errno"] == ENOENT) {',
           'doc[0].contains("errno") && doc[0]["errno"].is_number()) {',
           "every open error of the node taken as \"does not exist\""),
    Mutant("read-only-group-join", "src/jetgate/facts/node_access.cpp",
           "if ((a.info.mode & 0060u) == 0060u)", "if ((a.info.mode & 0060u) != 0)",
           "a group that may only read (0640) is told to join the group"),
    # --- issue 42 class 8: layout and scope --------------------------------------------
    Mutant("usr-lib-modules-check-dropped", "src/jetgate/fs/host_root.cpp",
           'if (!is_dir(under(dir, "/lib/modules")) && !is_dir(under(dir, "/usr/lib/modules")))',
           'if (!is_dir(under(dir, "/lib/modules")))',
           "a merged-/usr host mount with only /usr/lib/modules called missing its modules"),
    Mutant("usr-lib-modules-unread", "src/jetgate/facts/module_provenance.cpp",
           '    moddir = "/usr/lib/modules/" + *release;', '    moddir = "/lib/modules/" + *release;',
           "the merged-/usr fallback not read: provenance unknown with /usr/lib/modules only"),
    Mutant("job-node-pins-daemonset", "src/jetgate/init/init_kubernetes.cpp",
           "if (p.job && k.node) {", "if (k.node) {",
           "--node meant for the Job also pins the DaemonSet to one node"),
    # --- issue 42 class 4: limits in total --------------------------------------------
    Mutant("module-files-unbounded", "src/jetgate/facts/module_provenance.cpp",
           "} else if (files_read >= kMaxModuleFilesRead || bytes_read + size > kMaxModuleBytesTotal) {",
           "} else if (files_read >= 100000) {",
           "module files read without a bound on the reader as a whole (2000 x 40 MB)"),
    Mutant("provenance-entries-unbounded", "src/jetgate/facts/module_provenance.cpp",
           "if (provenance.size() >= kMaxProvenanceModules) {",
           "if (provenance.size() >= 100000) {",
           "every listed module gets a provenance entry, however many are listed"),
    Mutant("evidence-writer-unbounded", "src/jetgate/evidence/evidence.cpp",
           "if (text.size() > kMaxEvidenceBytes)", "if (text.size() > 2 * kMaxEvidenceBytes)",
           "evidence written over the size every reader refuses"),
    Mutant("cdi-kept-unbounded", "src/jetgate/facts/gpu_stack_facts.cpp",
           "if (kept + bytes > kMaxCdiKeptBytes) return false;",
           "if (kept + bytes > 64 * kMaxCdiKeptBytes) return false;",
           "the CDI facts keep every device name of every spec (21 MB evidence)"),
    # --- issue 42 class 7: messages say what is there ----------------------------------
    Mutant("oversized-module-size-omitted", "src/jetgate/facts/module_provenance.cpp",
           "if (st.type == fs::NodeType::regular && size > kMaxModuleBytes) {",
           "if (st.type == fs::NodeType::missing && size > kMaxModuleBytes) {",
           "an oversized module's error omits its size and the limit"),
    Mutant("nvhost-fifo-asked-for-ioctls", "src/jetgate/probes/nvhost_ctrl.cpp",
           "} else if (::stat(o.node.c_str(), &st) == 0 && !S_ISCHR(st.st_mode)) {",
           "} else if (::stat(o.node.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {",
           "a FIFO or a regular file at the node's path called a node missing ioctls"),
    Mutant("nvhost-dangling-does-not-exist", "src/jetgate/probes/nvhost_ctrl.cpp",
           "if (S_ISLNK(lst.st_mode) && ::stat(o.node.c_str(), &st) != 0 && errno == ENOENT) {",
           "if (S_ISLNK(lst.st_mode) && ::stat(o.node.c_str(), &st) != 0 && errno == EPERM) {",
           "a dangling link at the node's path said to \"not exist\""),
    Mutant("prometheus-recording-as-host", "src/cli/cmd_probe.cpp",
           "if (!live && !a.prometheus.empty() && a.node.empty()) {",
           "if (!live && !a.prometheus.empty() && a.node.empty() && a.quiet) {",
           "probe --root publishes a recording's platform as this host's metrics"),
    # --- issue 42 class 2: a signer is what the signature shows ------------------------
    Mutant("modinfo-signer-trusted", "src/jetgate/facts/module_provenance.cpp",
           "compressed ? info->count(\"sig_id\") > 0 : module_signature_of(**bytes).has_value();",
           "compressed ? info->count(\"sig_id\") > 0\n                         : module_signature_of(**bytes).has_value() || info->count(\"signer\") > 0;",
           "a .modinfo signer= text taken as a signature"),
    Mutant("signature-magic-loose", "src/jetgate/facts/module_provenance.cpp",
           "if (bytes.substr(bytes.size() - kMagic.size()) != kMagic) return std::nullopt;",
           "if (bytes.substr(bytes.size() - 1) != \"\\n\") return std::nullopt;",
           "any file ending in a newline taken to carry a signature trailer"),
    Mutant("signature-id-type-any", "src/jetgate/facts/module_provenance.cpp",
           "if (ms[2] != kPkeyIdPkcs7 || ms[0] != 0",
           "if ((ms[2] != kPkeyIdPkcs7 && false) || ms[0] != 0",
           "a trailer of another id_type (not PKCS#7) taken as the kernel's signature"),
]


def run(cmd, cwd=None, timeout=None, env=None):
    return subprocess.run(cmd, cwd=cwd, timeout=timeout, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace")


def copy_tree(src: Path, dest: Path):
    files = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=src)
    for rel in filter(None, files.stdout.split("\0")):
        s, d = src / rel, dest / rel
        if not s.exists() and not s.is_symlink():
            continue  # deleted in the work tree, still in the index
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_symlink():
            os.symlink(os.readlink(s), d)
        else:
            shutil.copy2(s, d)


def build(tree: Path, jobs: int):
    return run(["cmake", "--build", str(tree / "build"), "-j", str(jobs), "--target", "jetgate_tests"],
               timeout=3600)


def run_tests(tree: Path, timeout: int, shards: int):
    """Runs the suite in `shards` gtest shards at once; the first failing shard ends the run."""
    binary = tree / "build" / "tests" / "jetgate_tests"
    procs = []
    for index in range(shards):
        env = dict(os.environ, JETGATE_TEST_TMP=str(tree / "build" / "tests" / "tmp"),
                   GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(index))
        procs.append(subprocess.Popen([str(binary), "--gtest_brief=1", "--gtest_fail_fast"],
                                      cwd=tree / "build" / "tests", env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, errors="replace",
                                      start_new_session=True))
    deadline = time.time() + timeout
    outcome = (True, "")
    try:
        pending = list(procs)
        while pending:
            for p in list(pending):
                if p.poll() is None:
                    continue
                pending.remove(p)
                if p.returncode != 0:
                    out = p.stdout.read()
                    failed = [l for l in out.splitlines() if l.startswith("[  FAILED  ]")]
                    outcome = (False, failed[0] if failed else f"exit {p.returncode}")
                    pending = []
                    break
            if pending and time.time() > deadline:
                outcome = (False, "timed out")
                break
            time.sleep(0.2)
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
            p.wait()
            p.stdout.close()
    return outcome


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", help="directory for the tree copy (default: a new temporary one)")
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per test run")
    ap.add_argument("--shards", type=int, default=4,
                    help="test shards run at once (many tests wait on child processes)")
    ap.add_argument("--allow-survivors", action="store_true")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = ap.parse_args()

    mutants = MUTANTS
    if args.only:
        wanted = set(args.only.split(","))
        mutants = [m for m in MUTANTS if m.id in wanted]
        unknown = wanted - {m.id for m in mutants}
        if unknown:
            sys.exit(f"mutate.py: unknown mutant id(s): {', '.join(sorted(unknown))}")
    if args.list:
        for m in mutants:
            print(f"{m.id:24} {m.path}: {m.why}")
        return 0

    repo = Path(__file__).resolve().parent.parent
    tree = Path(args.work or tempfile.mkdtemp(prefix="jetgate-mutate-"))
    if not (tree / "CMakeLists.txt").exists():
        print(f"copying the tree to {tree}", flush=True)
        copy_tree(repo, tree)
        # Some tests read the checkout's HEAD: the copy is a repository of one commit.
        git_env = dict(os.environ, GIT_AUTHOR_NAME="mutate", GIT_AUTHOR_EMAIL="mutate@localhost",
                       GIT_COMMITTER_NAME="mutate", GIT_COMMITTER_EMAIL="mutate@localhost")
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "commit", "-q", "-m", "mutation testing copy"]):
            r = run(cmd, cwd=tree, env=git_env)
            if r.returncode != 0:
                sys.exit(f"mutate.py: {' '.join(cmd)} failed in {tree}:\n{r.stdout[-2000:]}")
    # The development build's flags (docs/building.md): unoptimised code compiles
    # fastest, and with ccache every file the mutant does not touch is a cache hit.
    cmake_args = ["cmake", "-S", str(tree), "-B", str(tree / "build"), "-DCMAKE_BUILD_TYPE=None",
                  "-DCMAKE_CXX_FLAGS=-O0 -g0", "-DCMAKE_C_FLAGS=-O0 -g0", "-DJETGATE_PCH=OFF",
                  "-DJETGATE_WERROR=ON", "-DJETGATE_BUILD_TESTS=ON", "-DJETGATE_BUILD_BENCH=OFF",
                  "-DJETGATE_MAN_PAGE=OFF"]
    if shutil.which("ccache"):
        # Restoring a file after its mutant is then a cache hit, not a recompile.
        cmake_args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    r = run(cmake_args)
    if r.returncode != 0:
        sys.exit("mutate.py: configure failed:\n" + r.stdout[-4000:])
    print("baseline: building and running the unmutated suite", flush=True)
    r = build(tree, args.jobs)
    if r.returncode != 0:
        sys.exit("mutate.py: the unmutated tree does not build:\n" + r.stdout[-4000:])
    ok, detail = run_tests(tree, args.timeout, args.shards)
    if not ok:
        sys.exit(f"mutate.py: the unmutated suite fails ({detail}); fix that first")

    killed, survived, stale, broken = [], [], [], []
    for m in mutants:
        path = tree / m.path
        original = path.read_text() if path.exists() else ""
        if original.count(m.old) != 1:
            stale.append(m)
            print(f"STALE     {m.id}: the text to mutate is not in {m.path} exactly once", flush=True)
            continue
        start = time.time()
        try:
            path.write_text(original.replace(m.old, m.new))
            r = build(tree, args.jobs)
            if r.returncode != 0:
                broken.append(m)
                print(f"NO BUILD  {m.id}: the mutant does not compile; update it", flush=True)
                continue
            ok, detail = run_tests(tree, args.timeout, args.shards)
        finally:
            path.write_text(original)
        took = time.time() - start
        if ok:
            survived.append(m)
            print(f"SURVIVED  {m.id} ({took:.0f} s): {m.why} [{m.path}]", flush=True)
        else:
            killed.append(m)
            print(f"killed    {m.id} ({took:.0f} s): {detail}", flush=True)

    counted = len(killed) + len(survived)
    print()
    print(f"mutants: {len(mutants)}, killed {len(killed)}, survived {len(survived)}, "
          f"stale {len(stale)}, not compiling {len(broken)}")
    if counted:
        print(f"kill ratio: {len(killed)}/{counted} = {100.0 * len(killed) / counted:.0f}%")
    for m in survived:
        print(f"  survivor {m.id}: {m.why} ({m.path})")
    if not args.work:
        shutil.rmtree(tree, ignore_errors=True)
    return 0 if (not survived or args.allow_survivors) else 1


if __name__ == "__main__":
    sys.exit(main())
