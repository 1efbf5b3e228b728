// SPDX-License-Identifier: Apache-2.0
// jetgate's front: parses the command line and hands over to the core library.
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "cli/safe_streams.hpp"
#include "jetgate/core/did_you_mean.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/version_text.hpp"

namespace {

// Where the signing key lies never reaches what `run` starts: the gate's
// command runs as jetgate's child and could read jetgate's command line
// (/proc/PPID/cmdline) and the environment it inherits. Once parsed, the
// --sign-key value is blanked in argv (what /proc shows), JETGATE_SIGNING_KEY
// is blanked in the original environment block and removed from the one
// children inherit, and jetgate stops being dumpable (PR_SET_DUMPABLE 0):
// processes of the same user can then neither ptrace it nor read its
// /proc/PID/environ or memory. docs/trust.md says what remains.
void hide_signing_key_source(int argc, char** argv) {
  bool found = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a(argv[i]);
    if (a == "--") break;
    char* value = nullptr;
    if (a == "--sign-key" && i + 1 < argc) value = argv[i + 1];
    if (a.rfind("--sign-key=", 0) == 0) value = argv[i] + std::strlen("--sign-key=");
    if (value) {
      std::memset(value, 0, std::strlen(value));
      found = true;
    }
  }
  if (char* v = std::getenv("JETGATE_SIGNING_KEY")) {
    std::memset(v, 0, std::strlen(v));
    ::unsetenv("JETGATE_SIGNING_KEY");
    found = true;
  }
  if (found) ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// After a usage error: a misspelt subcommand or long option named with the
// nearest one that exists (core/did_you_mean), one line each.
std::string misspelt(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> subcommands;
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    subcommands.push_back(sub->get_name());
  auto long_names = [](const CLI::App& a) {
    std::vector<std::string> names;
    for (const auto* opt : a.get_options())
      for (const auto& l : opt->get_lnames()) names.push_back(l);
    return names;
  };
  CLI::App* scope = nullptr;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (scope == nullptr && !a.empty() && a[0] != '-') {
      for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == a) scope = sub;
      if (scope == nullptr) {
        if (auto m = jetgate::closest_match(a, subcommands))
          out += "jetgate: unknown command " + a + " (did you mean " + *m + "?)\n";
        break;
      }
      continue;
    }
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    auto name = a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2);
    auto names = long_names(app);
    if (scope != nullptr)
      for (auto& n : long_names(*scope)) names.push_back(n);
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    if (auto m = jetgate::closest_match(name, names))
      out += "jetgate" + (scope ? " " + scope->get_name() : std::string()) + ": unknown option --" +
             name + " (did you mean --" + *m + "?)\n";
  }
  return out;
}

int run(int argc, char** argv) {
  using namespace jetgate;
  CLI::App app{
      "jetgate: does GPU compute really work on this NVIDIA Jetson or CUDA machine, at full "
      "speed, and may our project claim support for it? Answers with evidence.",
      "jetgate"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", report::version_text(),
                       "Print the version and the CUDA toolkit the kernels were built with");
  app.footer(
      "Exit status: 0 ok, 1 the thing checked does not hold, 2 unusable input or usage.\n"
      "Docs: docs/evidence-schema.md, docs/gates.md (in the source tree).");

  std::vector<cli::Command> commands = {cli::add_probe_command(app), cli::add_run_command(app),
                                        cli::add_check_command(app), cli::add_support_command(app),
                                        cli::add_summary_command(app)};
  commands.push_back(cli::add_keygen_command(app));
  commands.push_back(cli::add_container_command(app));
  commands.push_back(cli::add_init_command(app));
  commands.push_back(cli::add_history_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's message quotes the argument as given: it is outside text, so it
    // is shown as one line with its controls (LF, ESC, bidi) in visible form.
    std::cerr << terminal_safe(e.what()) << "\n";
    std::istringstream hints(misspelt(app, argc, argv));
    for (std::string line; std::getline(hints, line);) std::cerr << terminal_safe(line) << "\n";
    std::cerr << "Run 'jetgate --help' for usage.\n";
    return kExitUsage;
  }
  // JETGATE_PARSE_ONLY=1: the arguments were parsed exactly as for a real run
  // (exit 2 above on a usage error); stop before the command does anything.
  // Tests use it to check every jetgate line of a generated workflow.
  if (const char* parse_only = std::getenv("JETGATE_PARSE_ONLY");
      parse_only != nullptr && std::string(parse_only) == "1")
    return kExitOk;
  for (auto& c : commands)
    if (c.app->parsed()) {
      hide_signing_key_source(argc, argv);
      return c.run();
    }
  std::cout << app.help();
  return kExitUsage;
}

}  // namespace

// Every input error is a value with its exit code; an exception reaching here is
// a bug (or no memory left). Say so and keep the exit-code contract rather than abort.
int main(int argc, char** argv) {
  jetgate::cli::SafeStreams safe_streams;
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "jetgate: internal error (a bug, please report it): "
              << jetgate::terminal_safe(e.what()) << "\n";
  } catch (...) {
    std::cerr << "jetgate: internal error (a bug, please report it): unknown exception\n";
  }
  return jetgate::kExitUsage;
}
