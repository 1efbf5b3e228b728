// SPDX-License-Identifier: Apache-2.0
/* Which device nodes a CUDA process holds open: prints the targets of
 * /proc/self/fd before cuInit, after it, with a context current and after the
 * context is destroyed. Build: nvcc -o cuda_open_nodes bench/cuda_open_nodes.c -lcuda
 * Run on the H200 (driver 580.159.04) on 2026-12-02, results in docs/probes.md. */
#include <cuda.h>
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned int flags, CUdevice dev);

static void dump(const char* when) {
  DIR* d = opendir("/proc/self/fd");
  struct dirent* e;
  char link[600], target[512];
  printf("== %s\n", when);
  if (!d) return;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) {
      target[n] = 0;
      printf("%s\n", target);
    }
  }
  closedir(d);
}

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  dump("before cuInit");
  if (cuInit(0)) return 1;
  dump("after cuInit");
  cuDeviceGet(&dev, 0);
  if (cuCtxCreate_v2(&ctx, 0, dev)) return 2;
  dump("with a context");
  cuCtxDestroy(ctx);
  dump("after cuCtxDestroy");
  return 0;
}
