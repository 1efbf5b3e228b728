// SPDX-License-Identifier: Apache-2.0
// The files one command reads, so that none of its outputs is one of them.
//
// An output is written by renaming a new file over the directory entry its path
// names (atomic_write.hpp). So two paths name the same file for jetgate when they
// lead to the same entry: the same directory (its device and inode, after every
// link in the path is followed) and the same name in it. Comparing paths as text
// misses `./fleet.db`, `../x/fleet.db`, a link to the directory and a bind mount;
// comparing entries catches all of them. A link AT the output's name is replaced
// and its target left alone, so only the links above the name are followed there,
// while an input's path is followed to the end (that is what its reader opens).
//
// `history report --html fleet.db` used to overwrite the database it read, `run
// --prometheus policy.json` the policy and `--nfd-features ev/unit.json` the evidence
// the run itself wrote; each command now names its inputs here and checks every
// output against them before any work starts.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::fs {

// Where a path's last name lives: its directory's device and inode, and the name.
struct Entry {
  dev_t dir_dev = 0;
  ino_t dir_ino = 0;
  std::string name;
  bool operator==(const Entry& other) const {
    return dir_dev == other.dir_dev && dir_ino == other.dir_ino && name == other.name;
  }
};

// The entry PATH names once every link in it is followed (follow_last) or every link
// but its last name (an output: a link there is replaced, not written through).
// Nothing when the directory does not exist or cannot be reached.
std::optional<Entry> entry_of(const std::string& path, bool follow_last);

class CommandFiles {
 public:
  // A file the command reads, or reads and rewrites in place (a README block); role
  // says which, for the message ("the database", "the policy"). It need not exist
  // yet (`history ingest` creates its database).
  void add_input(const std::string& path, std::string role);
  // A directory whose files ending in one of suffixes the command reads or writes
  // (an evidence directory: *.json, and the gate's .log); with recursive, those of
  // every directory below it too (`history ingest` walks the tree).
  void add_input_dir(const std::string& path, std::string role, std::vector<std::string> suffixes,
                     bool recursive = false);

  // Whether PATH, named by option, may be written: it is not an input, not a file
  // of an input directory's kinds, and not an output already accepted (two options
  // naming one file would leave only the last one's text). An accepted output is
  // remembered. An empty path (option not given) is always accepted.
  Status check_output(const std::string& option, const std::string& path);

 private:
  struct Input {
    Entry entry;
    std::string path, role;
  };
  struct InputDir {
    dev_t dev = 0;
    ino_t ino = 0;
    std::string path, role;
    std::vector<std::string> suffixes;
    bool recursive = false;
  };
  struct Output {
    Entry entry;
    std::string option, path;
  };
  std::vector<Input> inputs_;
  std::vector<InputDir> dirs_;
  std::vector<Output> outputs_;
};

}  // namespace jetgate::fs
