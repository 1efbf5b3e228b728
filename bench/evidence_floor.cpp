// SPDX-License-Identifier: Apache-2.0
// The floors bench/evidence-scale.sh prints beside jetgate: what reading the
// evidence files costs, and what a bare parse of them costs (simdjson's DOM
// or nlohmann's), with nothing judged and nothing kept.
//
// Usage: evidence_floor read|simdjson|nlohmann THREADS DIRS_FILE
//   DIRS_FILE: directories, one a line; every DIR/*.json that is not *.dsse.json is read.
// Built by bench/evidence-scale.sh: g++ -O2 -std=c++20 evidence_floor.cpp [-DWITH_SIMDJSON
// -lsimdjson]
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>
#ifdef WITH_SIMDJSON
#include <simdjson.h>
#endif

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: evidence_floor read|simdjson|nlohmann THREADS DIRS_FILE\n";
    return 2;
  }
  const std::string mode = argv[1];
  const unsigned threads = static_cast<unsigned>(std::stoul(argv[2]));
  std::vector<std::string> files;
  std::ifstream dirs(argv[3]);
  for (std::string dir; std::getline(dirs, dir);)
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() == ".json" && name.find(".dsse.") == std::string::npos)
        files.push_back(e.path().string());
    }
  std::atomic<std::size_t> next{0}, bytes{0}, bad{0};
  auto work = [&] {
#ifdef WITH_SIMDJSON
    simdjson::dom::parser parser;
#endif
    std::string text;
    for (std::size_t i = next++; i < files.size(); i = next++) {
      int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        ++bad;
        continue;
      }
      text.clear();
      char buf[1 << 16];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<std::size_t>(n));
      ::close(fd);
      bytes += text.size();
      if (mode == "nlohmann") {
        auto j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded()) ++bad;
      } else if (mode == "simdjson") {
#ifdef WITH_SIMDJSON
        simdjson::dom::element root;
        if (parser.parse(text.data(), text.size(), true).get(root)) ++bad;
#else
        std::cerr << "built without simdjson\n";
        std::exit(2);
#endif
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::printf("%s: %zu files, %zu bytes, %zu unreadable or unparsable\n", mode.c_str(),
              files.size(), bytes.load(), bad.load());
  return bad ? 1 : 0;
}
