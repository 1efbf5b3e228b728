// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/nvhost_ctrl.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "jetgate/proc/child.hpp"

namespace jetgate::probes {
namespace {

// The argument layouts of include/uapi/linux/nvhost_ioctl.h (magic 'H'), as the
// header declares them; the sizes are part of each request number.
struct SyncptReadArgs {
  std::uint32_t id;
  std::uint32_t value;
};
struct GetParamArgs {
  std::uint32_t value;
};
struct SyncptWaitmexArgs {
  std::uint32_t id;
  std::uint32_t thresh;
  std::int32_t timeout;  // ms
  std::uint32_t value;
  std::uint32_t tv_sec;
  std::uint32_t tv_nsec;
  std::uint32_t clock_id;
  std::uint32_t reserved;
};
struct SyncFenceInfo {
  std::uint32_t id;
  std::uint32_t thresh;
};
struct SyncFenceCreateArgs {
  std::uint32_t num_pts;
  std::int32_t fence_fd;
  std::uint64_t pts;   // SyncFenceInfo*
  std::uint64_t name;  // const char*
};
struct Characteristics {
  std::uint64_t flags;
  std::uint32_t num_mlocks;
  std::uint32_t num_syncpts;
  std::uint32_t syncpts_base;
  std::uint32_t syncpts_limit;
  std::uint32_t num_hw_pts;
  std::uint32_t padding;
};
struct GetCharacteristicsArgs {
  std::uint64_t buf_size;
  std::uint64_t buf_addr;
};
struct PollFdCreateArgs {
  std::int32_t fd;
  std::uint32_t padding;
};
struct SyncFileExtractArgs {
  std::int32_t fd;
  std::uint32_t num_fences;
  std::uint64_t fences_ptr;  // SyncFenceInfo*
};

constexpr char kMagic = 'H';
// NVHOST_SUBMIT_VERSION_MAX_SUPPORTED of the header (V2): what nvhost answers
// to GET_VERSION; anything above it is an interface jetgate does not know.
constexpr std::uint32_t kMaxKnownVersion = 2;

const unsigned long kGetVersion = _IOR(kMagic, 7, GetParamArgs);
const unsigned long kGetCharacteristics = _IOWR(kMagic, 14, GetCharacteristicsArgs);
const unsigned long kSyncptRead = _IOWR(kMagic, 1, SyncptReadArgs);
const unsigned long kSyncptReadMax = _IOWR(kMagic, 8, SyncptReadArgs);
const unsigned long kSyncptWaitmex = _IOWR(kMagic, 9, SyncptWaitmexArgs);
const unsigned long kSyncFenceCreate = _IOWR(kMagic, 11, SyncFenceCreateArgs);
const unsigned long kSyncFileExtract = _IOWR(kMagic, 19, SyncFileExtractArgs);
const unsigned long kPollFdCreate = _IOR(kMagic, 16, PollFdCreateArgs);

// What a failed request means, without predicting speed: the sync_path probe
// measures how CUDA's waits behave on this machine.
constexpr const char* kPolling =
    "the runtime cannot use this node for syncpoint waits; whether CUDA's waits then poll "
    "is what `jetgate probe --cuda --probe sync_path` measures";

IoctlCheck check(const char* name, unsigned nr, unsigned long request) {
  IoctlCheck c;
  c.name = name;
  c.nr = nr;
  c.request = request;
  return c;
}

// The outcome of a failed call from its errno.
void failed(IoctlCheck& c, int err, const std::string& for_cuda) {
  c.error = err;
  // ENOSYS: what qemu-user answers for an ioctl it does not translate, and
  // what some drivers return for a request they do not implement.
  if (err == ENOTTY || err == EINVAL || err == ENOSYS) {
    c.outcome = IoctlOutcome::not_implemented;
    c.detail = fmt::format("{} ({}): the node does not implement request {}",
                           err == ENOTTY   ? "ENOTTY"
                           : err == EINVAL ? "EINVAL"
                                           : "ENOSYS",
                           std::strerror(err), c.nr);
  } else if (err == EPERM || err == EACCES) {
    c.outcome = IoctlOutcome::refused;
    c.detail = fmt::format(
        "{} ({}): this process may not use it (device-node permissions, "
        "or a security module)",
        err == EPERM ? "EPERM" : "EACCES", std::strerror(err));
  } else {
    c.outcome = IoctlOutcome::failed;
    c.detail = fmt::format("errno {} ({})", err, std::strerror(err));
  }
  c.for_cuda = for_cuda;
}

void wrong(IoctlCheck& c, const std::string& detail, const std::string& for_cuda) {
  c.outcome = IoctlOutcome::wrong;
  c.detail = detail;
  c.for_cuda = for_cuda;
}

void answered(IoctlCheck& c, const std::string& detail) {
  c.outcome = IoctlOutcome::answered;
  c.detail = detail;
}

// a is at or after b on a 32-bit counter that wraps (host1x syncpoints do).
bool at_or_after(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::int32_t>(a - b) >= 0;
}

int do_ioctl(int fd, unsigned long request, void* arg) {
  int rc = 0;
  do {
    rc = ::ioctl(fd, request, arg);
  } while (rc < 0 && errno == EINTR);
  return rc < 0 ? errno : 0;
}

// What a path that is not the driver's character device is, in words.
const char* file_type_words(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m)) return "a block device";
  return "not a device node";
}

}  // namespace

const char* to_string(IoctlOutcome o) {
  switch (o) {
    case IoctlOutcome::answered:
      return "answered";
    case IoctlOutcome::not_implemented:
      return "not_implemented";
    case IoctlOutcome::absent:
      return "absent";
    case IoctlOutcome::refused:
      return "refused";
    case IoctlOutcome::wrong:
      return "wrong";
    case IoctlOutcome::failed:
      return "failed";
    case IoctlOutcome::not_tried:
      return "not_tried";
  }
  return "not_tried";
}

nlohmann::json to_json(const IoctlCheck& c) {
  return {{"name", c.name},
          {"nr", c.nr},
          {"request", fmt::format("0x{:08x}", c.request)},
          {"outcome", to_string(c.outcome)},
          {"errno", c.error == 0 ? nlohmann::json(nullptr) : nlohmann::json(c.error)},
          {"detail", c.detail},
          {"for_cuda", c.for_cuda.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.for_cuda)},
          {"optional", c.optional}};
}

std::vector<IoctlCheck> run_nvhost_ctrl_checks(const NvhostCtrlOptions& o) {
  std::vector<IoctlCheck> out;
  int fd = ::open(o.node.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    IoctlCheck c = check("open", 0, 0);
    failed(c, err, kPolling);
    c.detail = fmt::format("open({}): {}", o.node, c.detail);
    out.push_back(c);
    return out;
  }
  const int wait_ms = static_cast<int>(o.wait_ms.count());

  IoctlCheck version = check("GET_VERSION", 7, kGetVersion);
  GetParamArgs v{};
  if (int err = do_ioctl(fd, kGetVersion, &v))
    failed(version, err, kPolling);
  else if (v.value > kMaxKnownVersion)
    wrong(version,
          fmt::format("version {}; the L4T header's newest is {} "
                      "(NVHOST_SUBMIT_VERSION_MAX_SUPPORTED)",
                      v.value, kMaxKnownVersion),
          "libnvrm_host1x may refuse an interface version it does not know; then " +
              std::string(kPolling));
  else
    answered(version, fmt::format("version {}", v.value));
  out.push_back(version);

  IoctlCheck chars = check("GET_CHARACTERISTICS", 14, kGetCharacteristics);
  Characteristics ch{};
  GetCharacteristicsArgs ca{sizeof ch, reinterpret_cast<std::uintptr_t>(&ch)};
  std::uint32_t syncpt = 1;  // id 0 is the invalid syncpoint on Orin (ERRATA_SYNCPT_INVALID_ID_0)
  bool have_chars = false;
  if (int err = do_ioctl(fd, kGetCharacteristics, &ca)) {
    failed(chars, err,
           "the runtime learns how many syncpoints exist here; " + std::string(kPolling));
  } else if (ch.num_syncpts == 0 || ch.syncpts_base > ch.syncpts_limit ||
             ch.syncpts_limit > ch.num_syncpts) {
    wrong(chars,
          fmt::format("num_syncpts {}, syncpts_base {}, syncpts_limit {}: no usable range",
                      ch.num_syncpts, ch.syncpts_base, ch.syncpts_limit),
          "without a syncpoint range the runtime cannot use syncpoints; " + std::string(kPolling));
  } else {
    have_chars = true;
    if (ch.syncpts_base > 0) syncpt = ch.syncpts_base;
    answered(chars, fmt::format("num_syncpts {}, syncpts_base {}, syncpts_limit {}, num_hw_pts {}",
                                ch.num_syncpts, ch.syncpts_base, ch.syncpts_limit, ch.num_hw_pts));
  }
  out.push_back(chars);
  (void)have_chars;

  // Reads of one syncpoint (read-only): twice, a counter never goes backwards.
  IoctlCheck rd = check("SYNCPT_READ", 1, kSyncptRead);
  SyncptReadArgs r1{syncpt, 0}, r2{syncpt, 0};
  bool have_value = false;
  if (int err = do_ioctl(fd, kSyncptRead, &r1)) {
    failed(rd, err, "completion is checked by reading syncpoints; " + std::string(kPolling));
  } else if (int err2 = do_ioctl(fd, kSyncptRead, &r2)) {
    failed(rd, err2, "completion is checked by reading syncpoints; " + std::string(kPolling));
  } else if (!at_or_after(r2.value, r1.value)) {
    wrong(
        rd,
        fmt::format("syncpoint {} read {} then {}: it went backwards", syncpt, r1.value, r2.value),
        "a syncpoint that goes backwards makes waits end early (wrong results) or never");
  } else {
    have_value = true;
    answered(rd, fmt::format("syncpoint {} = {}", syncpt, r2.value));
  }
  out.push_back(rd);

  IoctlCheck read_max = check("SYNCPT_READ_MAX", 8, kSyncptReadMax);
  SyncptReadArgs m{syncpt, 0};
  if (int err = do_ioctl(fd, kSyncptReadMax, &m))
    failed(read_max, err,
           "the runtime cannot tell how far a syncpoint will go; " + std::string(kPolling));
  else if (have_value && !at_or_after(m.value, r2.value))
    wrong(read_max,
          fmt::format("max {} is below the value {} of syncpoint {}", m.value, r2.value, syncpt),
          "a maximum below the value makes the runtime think work is still pending");
  else
    answered(read_max, fmt::format("syncpoint {} max = {}", syncpt, m.value));
  out.push_back(read_max);

  // A wait on a threshold already passed must return at once.
  IoctlCheck wt = check("SYNCPT_WAITMEX", 9, kSyncptWaitmex);
  if (!have_value) {
    wt.detail = "not tried: no syncpoint value was read";
  } else {
    SyncptWaitmexArgs w{};
    w.id = syncpt;
    w.thresh = r2.value;
    w.timeout = wait_ms;
    if (int err = do_ioctl(fd, kSyncptWaitmex, &w)) {
      if (err == ETIMEDOUT || err == EAGAIN)
        wrong(wt,
              fmt::format("a wait for threshold {} of syncpoint {}, already passed, timed out "
                          "after {} ms",
                          w.thresh, syncpt, wait_ms),
              "cudaStreamSynchronize with blocking sync waits like this: every wait would time "
              "out or hang");
      else
        failed(wt, err, "blocking waits are unavailable; " + std::string(kPolling));
    } else {
      answered(wt, fmt::format("returned at once with value {}", w.value));
    }
  }
  out.push_back(wt);

  // A fence of that passed threshold: signalled, so its fd polls readable.
  IoctlCheck fence = check("SYNC_FENCE_CREATE", 11, kSyncFenceCreate);
  int fence_fd = -1;
  if (!have_value) {
    fence.detail = "not tried: no syncpoint value was read";
  } else {
    SyncFenceInfo pt{syncpt, r2.value};
    static const char kName[] = "jetgate";
    SyncFenceCreateArgs f{1, -1, reinterpret_cast<std::uintptr_t>(&pt),
                          reinterpret_cast<std::uintptr_t>(kName)};
    if (int err = do_ioctl(fd, kSyncFenceCreate, &f)) {
      failed(fence, err,
             "no sync-file fences of syncpoints: CUDA's fence interop and event "
             "waits fall back to polling");
    } else if (f.fence_fd < 0) {
      wrong(fence, fmt::format("returned 0 but fence_fd {}", f.fence_fd),
            "the runtime gets no fence to wait on");
    } else {
      fence_fd = f.fence_fd;
      pollfd p{fence_fd, POLLIN, 0};
      int n = ::poll(&p, 1, wait_ms);
      if (n == 1 && (p.revents & POLLIN) != 0)
        answered(fence, fmt::format("fence fd signalled (threshold {} passed)", r2.value));
      else
        wrong(fence,
              fmt::format("the fence of a passed threshold did not poll readable within {} ms "
                          "(poll returned {}, revents 0x{:x})",
                          wait_ms, n, p.revents),
              "a fence that is not pollable never signals: waits on it hang or time out");
    }
  }
  out.push_back(fence);

  IoctlCheck extract = check("SYNC_FILE_EXTRACT", 19, kSyncFileExtract);
  extract.optional = true;
  if (fence_fd < 0) {
    extract.detail = "not tried: no fence fd";
  } else {
    SyncFenceInfo got{0xffffffffu, 0};
    SyncFileExtractArgs e{fence_fd, 1, reinterpret_cast<std::uintptr_t>(&got)};
    if (int err = do_ioctl(fd, kSyncFileExtract, &e)) {
      failed(extract, err, "the runtime cannot turn a sync file back into syncpoints");
      if (extract.outcome == IoctlOutcome::not_implemented) {
        extract.outcome = IoctlOutcome::absent;
        extract.detail += fmt::format(
            ": this driver predates SYNC_FILE_EXTRACT (the L4T 32 header ends at request 17, an "
            "early L4T 35 dispatcher at 18; it arrived in late L4T 35), and CUDA runs on those "
            "drivers, so its absence is not a failure");
        extract.for_cuda.clear();
      }
    } else if (e.num_fences < 1 || got.id != syncpt || got.thresh != r2.value)
      wrong(extract,
            fmt::format("extracted {} fence(s), first {{id {}, thresh {}}}; expected {{id {}, "
                        "thresh {}}}",
                        e.num_fences, got.id, got.thresh, syncpt, r2.value),
            "the runtime would wait on the wrong syncpoint");
    else
      answered(extract, fmt::format("{{id {}, thresh {}}}", got.id, got.thresh));
    ::close(fence_fd);
  }
  out.push_back(extract);

  IoctlCheck poll_fd = check("POLL_FD_CREATE", 16, kPollFdCreate);
  PollFdCreateArgs pf{-1, 0};
  if (int err = do_ioctl(fd, kPollFdCreate, &pf)) {
    failed(poll_fd, err, "no fd to poll syncpoint events: waits spin instead of sleeping");
  } else if (pf.fd < 0) {
    wrong(poll_fd, fmt::format("returned 0 but fd {}", pf.fd), "no fd to poll syncpoint events");
  } else {
    answered(poll_fd, "poll fd created");
    ::close(pf.fd);
  }
  out.push_back(poll_fd);
  ::close(fd);
  return out;
}

ProbeResult probe_nvhost_ctrl(const NvhostCtrlOptions& o) {
  ProbeResult r;
  r.id = "nvhost_ctrl";
  // What is at the path, before anything opens it: the driver's node is a character
  // device; a FIFO or a file in its place is not "a node missing ioctls", and a link
  // whose target is gone is not a node that "does not exist".
  std::string absent_words = o.node + " does not exist";
  struct stat lst {};
  if (::lstat(o.node.c_str(), &lst) == 0) {
    struct stat st {};
    if (S_ISLNK(lst.st_mode) && ::stat(o.node.c_str(), &st) != 0 && errno == ENOENT) {
      std::string target(4096, '\0');
      auto n = ::readlink(o.node.c_str(), target.data(), target.size() - 1);
      target.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      absent_words = fmt::format("{} is a dangling symbolic link (to {}, which does not exist)",
                                 o.node, target.empty() ? "?" : target);
    } else if (::stat(o.node.c_str(), &st) == 0 && !S_ISCHR(st.st_mode)) {
      r.status = ProbeStatus::fail;
      r.details["node"] = o.node;
      r.details["node_type"] = file_type_words(st.st_mode);
      r.reason = fmt::format(
          "{} is {}, not the character device the nvhost driver creates: no ioctl was asked "
          "of it, and CUDA cannot use it either",
          o.node, file_type_words(st.st_mode));
      r.next = fmt::format(
          "see what put it there (`ls -l {}`: a file created in /dev, or a bind mount in a "
          "container); remove it so devtmpfs/udev can create the node, or pass the host's node in",
          o.node);
      return r;
    }
  }
  proc::ChildLimits limits;
  limits.timeout = o.timeout;
  auto outcome = proc::run_in_child(
      [&] {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& c : run_nvhost_ctrl_checks(o)) list.push_back(to_json(c));
        return list.dump();
      },
      limits);
  r.duration_ms = outcome.wall_ms;
  auto doc = nlohmann::json::parse(outcome.output, nullptr, false);
  if (outcome.kind != proc::ChildOutcome::Kind::exited || outcome.exit_code != 0 ||
      !doc.is_array()) {
    r.status = ProbeStatus::fail;
    r.reason = fmt::format(
        "the child asking {} was {}: an ioctl hung or crashed (a wait that never returns "
        "hangs CUDA's synchronisation the same way)",
        o.node, outcome.describe());
    r.next = "run `dmesg | grep -i -e host1x -e nvhost` for what the driver logged during the hang";
    return r;
  }
  if (doc.size() == 1 && doc[0].is_object() && doc[0].value("name", "") == "open" &&
      doc[0].contains("errno") && doc[0]["errno"] == ENOENT) {
    r.details["node"] = o.node;
    r.details["stack"] =
        o.stack_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.stack_name);
    if (o.node_in_stack == false) {
      // Nothing this stack needs is missing: the question is answered, and asking for
      // the probe here must not make `probe` fail (a SKIP would: probe_holds).
      r.status = ProbeStatus::pass;
      r.details["applies"] = false;
      r.values["nvhost_ioctls_answered"] = {0, "count"};
      r.values["nvhost_ioctls_checked"] = {0, "count"};
      r.reason = fmt::format(
          "{}, and it is not part of {}: NVIDIA's device list for this stack has "
          "no {} (the nvhost interface there names its nodes nvhost-ctrl-<engine>); nothing to "
          "check, nothing missing. Source: {}",
          absent_words, o.stack_name, o.node, o.stack_source);
    } else if (o.node_in_stack == true) {
      r.status = ProbeStatus::fail;
      r.reason = fmt::format(
          "{}, but it is part of {}: NVIDIA's device list for this stack names "
          "it and CUDA opens it there. Source: {}",
          absent_words, o.stack_name, o.stack_source);
      r.next =
          "check the kernel log for the nvhost driver (`dmesg | grep -i -e host1x -e nvhost`) and "
          "that devtmpfs/udev created the node; in a container, pass the node in";
    } else {
      r.status = ProbeStatus::skip;
      r.reason = fmt::format(
          "{}; jetgate's table (data/gpu-stack.json) has no row for this "
          "platform, so whether the node belongs here is not known (it is part of L4T 32-35, "
          "not of stock L4T 36 and later)",
          absent_words);
    }
    return r;
  }
  r.details["node"] = o.node;
  r.details["header"] =
      "include/uapi/linux/nvhost_ioctl.h of NVIDIA's L4T kernel sources (request numbers 1-17 as "
      "in L4T 32's, 19 as in late L4T 35's and nvidia-oot's)";
  r.details["stack"] =
      o.stack_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.stack_name);
  r.details["ioctls"] = doc;
  int answered_n = 0, checked = 0;
  int absent_n = 0;
  std::string problems, absent;
  for (const auto& c : doc) {
    if (!c.is_object()) continue;
    ++checked;
    std::string outcome_s = c.value("outcome", "");
    if (outcome_s == "answered") {
      ++answered_n;
      continue;
    }
    if (outcome_s == "not_tried") continue;
    if (outcome_s == "absent") {
      absent += (absent.empty() ? "" : ", ") + c.value("name", std::string("?"));
      ++absent_n;  // an optional request the driver predates: information, not a failure
      continue;
    }
    problems += fmt::format("{}{} {}: {}", problems.empty() ? "" : "; ", c.value("name", "?"),
                            outcome_s, c.value("detail", ""));
    if (c.contains("for_cuda") && c["for_cuda"].is_string())
      problems += " (" + c["for_cuda"].get<std::string>() + ")";
  }
  r.values["nvhost_ioctls_answered"] = {static_cast<double>(answered_n), "count"};
  r.values["nvhost_ioctls_checked"] = {static_cast<double>(checked), "count"};
  if (problems.empty() && answered_n + absent_n == checked) {
    r.status = ProbeStatus::pass;
    r.reason = absent.empty()
                   ? fmt::format("{} answered all {} requests, each plausibly", o.node, checked)
                   : fmt::format(
                         "{} answered {} of {} requests plausibly; {} absent: this driver "
                         "predates it, which is information, not a failure",
                         o.node, answered_n, checked, absent);
  } else {
    r.status = ProbeStatus::fail;
    r.reason =
        fmt::format("{}: {}", o.node, problems.empty() ? "some ioctls were not tried" : problems);
    r.next =
        "see which module provides the node (/platform/tegra/driver/provenance: the built-in "
        "nvhost driver of L4T 32-35, a shim such as nvhost_ctrl_shim elsewhere) and whether it "
        "implements the requests above; `jetgate probe --cuda --probe sync_path` measures how "
        "CUDA's waits behave here";
  }
  return r;
}

}  // namespace jetgate::probes
