// SPDX-License-Identifier: Apache-2.0
/* A stand-in for /dev/nvhost-ctrl, preloaded (LD_PRELOAD) into jetgate by the
 * nvhost_ctrl probe's tests. open() of "/dev/nvhost-ctrl" gives a descriptor of
 * /dev/null that this library remembers; ioctl() on it answers the requests of
 * NVIDIA's L4T uapi header include/uapi/linux/nvhost_ioctl.h (magic 'H') the way
 * a working nvhost interface does: a syncpoint that stays at 42, a range of 704
 * syncpoints (Orin), fences that are signalled eventfds. FAKE_NVHOST_MODE picks a
 * broken variant:
 *   good            (default) every request answered
 *   no_extract      SYNC_FILE_EXTRACT answers ENOTTY (a shim without it)
 *   wrong_version   GET_VERSION answers 99
 *   never_signals   SYNCPT_WAITMEX times out, fences never signal
 *   backwards       SYNCPT_READ goes down by one each call
 *   eperm           every request answers EPERM
 *   hang            SYNCPT_WAITMEX never returns
 *   l4t32           NVIDIA's L4T 32 driver: its dispatcher ends at request 17
 *                   (POLL_FD_TRIGGER_EVENT), anything beyond answers ENOTTY
 *   l4t35_early     an early L4T 35 driver: its dispatcher ends at request 18,
 *                   before SYNC_FILE_EXTRACT (19) arrived in late L4T 35
 * (OE4T linux-tegra-4.9 and linux-tegra-5.10, drivers/video/tegra/host/host1x/
 * host1x.c: requests above NVHOST_IOCTL_CTRL_LAST answer -ENOIOCTLCMD, which
 * user space sees as ENOTTY.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fake_fd = -1;
static uint32_t reads;

static const char* mode(void) {
  const char* m = getenv("FAKE_NVHOST_MODE");
  return m ? m : "good";
}
static int is_mode(const char* m) {
  return strcmp(mode(), m) == 0;
}

static int open_fake(const char* path) {
  if (!path || strcmp(path, "/dev/nvhost-ctrl") != 0) return -2;
  /* The node's open errors: permission (EACCES), and one that is neither that nor ENOENT. */
  if (is_mode("open_eacces") || is_mode("open_eio")) {
    errno = is_mode("open_eacces") ? EACCES : EIO;
    return -1;
  }
  int (*real_open)(const char*, int, ...) =
      (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open");
  fake_fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);
  return fake_fd;
}

int open(const char* path, int flags, ...) {
  int fd = open_fake(path);
  if (fd != -2) return fd;
  mode_t m = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    m = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int (*real_open)(const char*, int, ...) =
      (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open");
  return real_open(path, flags, m);
}
int open64(const char* path, int flags, ...) {
  int fd = open_fake(path);
  if (fd != -2) return fd;
  mode_t m = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    m = (mode_t)va_arg(ap, int);
    va_end(ap);
  }
  int (*real)(const char*, int, ...) = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open64");
  return real(path, flags, m);
}
int __open_2(const char* path, int flags) {
  int fd = open_fake(path);
  if (fd != -2) return fd;
  int (*real)(const char*, int) = (int (*)(const char*, int))dlsym(RTLD_NEXT, "__open_2");
  return real(path, flags);
}
int __open64_2(const char* path, int flags) {
  int fd = open_fake(path);
  if (fd != -2) return fd;
  int (*real)(const char*, int) = (int (*)(const char*, int))dlsym(RTLD_NEXT, "__open64_2");
  return real(path, flags);
}

struct read_args {
  uint32_t id, value;
};
struct param_args {
  uint32_t value;
};
struct waitmex_args {
  uint32_t id, thresh;
  int32_t timeout;
  uint32_t value, tv_sec, tv_nsec, clock_id, reserved;
};
struct fence_info {
  uint32_t id, thresh;
};
struct fence_create_args {
  uint32_t num_pts;
  int32_t fence_fd;
  uint64_t pts, name;
};
struct characteristics {
  uint64_t flags;
  uint32_t num_mlocks, num_syncpts, syncpts_base, syncpts_limit, num_hw_pts, padding;
};
struct get_characteristics {
  uint64_t buf_size, buf_addr;
};
struct poll_fd_args {
  int32_t fd;
  uint32_t padding;
};
struct extract_args {
  int32_t fd;
  uint32_t num_fences;
  uint64_t fences_ptr;
};

static int fail(int e) {
  errno = e;
  return -1;
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (fd != fake_fd || fake_fd < 0) {
    int (*real)(int, unsigned long, ...) =
        (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    return real(fd, request, arg);
  }
  if (_IOC_TYPE(request) != 'H') return fail(ENOTTY);
  if (is_mode("eperm")) return fail(EPERM);
  if (is_mode("l4t32") && _IOC_NR(request) > 17) return fail(ENOTTY);
  if (is_mode("l4t35_early") && _IOC_NR(request) > 18) return fail(ENOTTY);
  switch (_IOC_NR(request)) {
    case 7: {
      if (_IOC_SIZE(request) != sizeof(struct param_args)) return fail(EINVAL);
      ((struct param_args*)arg)->value = is_mode("wrong_version") ? 99 : 2;
      return 0;
    }
    case 14: {
      struct get_characteristics* g = arg;
      struct characteristics c = {0, 1, 704, 1, 704, 704, 0};
      if (g->buf_size < sizeof c) return fail(EINVAL);
      memcpy((void*)(uintptr_t)g->buf_addr, &c, sizeof c);
      return 0;
    }
    case 1: {
      struct read_args* r = arg;
      /* "wraps": the 32-bit counter passes 0xffffffff between the two reads. */
      if (is_mode("wraps"))
        r->value = reads++ == 0 ? 0xffffffffu : 0;
      else
        r->value = is_mode("backwards") ? 42 - (reads++) : 42;
      return 0;
    }
    case 8: {
      ((struct read_args*)arg)->value = is_mode("wraps") ? 0 : 42;
      return 0;
    }
    case 9: {
      struct waitmex_args* w = arg;
      if (is_mode("hang"))
        for (;;) pause();
      if (is_mode("never_signals")) {
        usleep((useconds_t)(w->timeout > 0 ? w->timeout : 0) * 1000u);
        return fail(EAGAIN);
      }
      w->value = is_mode("wraps") ? 0 : 42;
      return 0;
    }
    case 11: {
      struct fence_create_args* f = arg;
      f->fence_fd = eventfd(is_mode("never_signals") ? 0 : 1, EFD_CLOEXEC);
      return f->fence_fd < 0 ? -1 : 0;
    }
    case 19: {
      if (is_mode("no_extract")) return fail(ENOTTY);
      struct extract_args* e = arg;
      /* "extract_other_thresh": the fence comes back with another threshold. */
      struct fence_info fi = {1, is_mode("wraps")                  ? 0u
                                 : is_mode("extract_other_thresh") ? 41u
                                                                   : 42u};
      if (e->num_fences >= 1) memcpy((void*)(uintptr_t)e->fences_ptr, &fi, sizeof fi);
      e->num_fences = 1;
      return 0;
    }
    case 16: {
      ((struct poll_fd_args*)arg)->fd = eventfd(0, EFD_CLOEXEC);
      return 0;
    }
    default:
      return fail(ENOTTY);
  }
}
