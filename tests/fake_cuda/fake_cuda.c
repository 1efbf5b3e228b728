// SPDX-License-Identifier: Apache-2.0
/* A stand-in for libcuda.so.1 so that the tests can drive every branch of
 * jetgate's driver loader, device facts and probes on machines without a GPU.
 * It exports the entry points jetgate resolves (src/jetgate/cuda/
 * driver_entry_points.hpp) with the same ABI. What it does is chosen by the
 * environment variable FAKE_CUDA_MODE:
 *   device      (default) one fake Orin-like device; memory is host memory;
 *               kernels launch but do nothing, so results come out wrong
 *   no_device   cuInit answers CUDA_ERROR_NO_DEVICE
 *   old_driver  reports CUDA 11.4 and refuses the kernel image with
 *               CUDA_ERROR_UNSUPPORTED_PTX_VERSION
 *   launch_fails cuLaunchKernel answers CUDA_ERROR_LAUNCH_FAILED
 *   hang        cuInit never returns
 *   launch_hangs cuLaunchKernel never returns (a kernel that never ends); it first
 *               creates the file FAKE_CUDA_MARK names, if set, so a test knows
 *   crash       cuInit dies of SIGSEGV
 * FAKE_CUDA_OPEN (':'-separated paths), when set, names files cuCtxCreate
 * opens and keeps open, as a real driver opens its device nodes.
 * Built twice: once complete, once without cuLaunchKernel
 * (FAKE_CUDA_OMIT_LAUNCH) to play a driver that lacks an entry point. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef void* opaque;

enum {
  OK = 0,
  INVALID_VALUE = 1,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  UNSUPPORTED_PTX_VERSION = 222,
  NOT_FOUND = 500,
  LAUNCH_FAILED = 719
};

static const char* mode(void) {
  const char* m = getenv("FAKE_CUDA_MODE");
  return m ? m : "device";
}
static int is_mode(const char* m) {
  return strcmp(mode(), m) == 0;
}
static int initialised;
static char fake_object; /* handles point here: non-null, never dereferenced */

#define FAKE_FREE_BYTES ((size_t)256 << 20)
#define FAKE_TOTAL_BYTES ((size_t)16 << 30)

CUresult cuInit(unsigned flags) {
  (void)flags;
  if (is_mode("hang"))
    for (;;) pause();
  if (is_mode("crash")) raise(SIGSEGV);
  if (is_mode("no_device")) return NO_DEVICE;
  initialised = 1;
  return OK;
}

CUresult cuDriverGetVersion(int* v) {
  *v = is_mode("old_driver") ? 11040 : 12060;
  return OK;
}

CUresult cuGetErrorName(CUresult rc, const char** name) {
  switch (rc) {
    case OK:
      *name = "CUDA_SUCCESS";
      return OK;
    case NO_DEVICE:
      *name = "CUDA_ERROR_NO_DEVICE";
      return OK;
    case UNSUPPORTED_PTX_VERSION:
      *name = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
      return OK;
    case LAUNCH_FAILED:
      *name = "CUDA_ERROR_LAUNCH_FAILED";
      return OK;
    default:
      *name = NULL;
      return INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult rc, const char** text) {
  switch (rc) {
    case NO_DEVICE:
      *text = "no CUDA-capable device is detected";
      return OK;
    case UNSUPPORTED_PTX_VERSION:
      *text = "the provided PTX was compiled with an unsupported toolchain.";
      return OK;
    case LAUNCH_FAILED:
      *text = "unspecified launch failure";
      return OK;
    default:
      *text = NULL;
      return INVALID_VALUE;
  }
}

CUresult cuDeviceGetCount(int* n) {
  if (!initialised) return NOT_INITIALIZED;
  *n = 1;
  return OK;
}

CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return INVALID_DEVICE;
  *d = 0;
  return OK;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "Fake Orin (jetgate test driver)", (size_t)len);
  name[len - 1] = '\0';
  return OK;
}

CUresult cuDeviceGetAttribute(int* v, int attr, CUdevice d) {
  (void)d;
  switch (attr) {
    case 13:
      *v = 918000;
      return OK; /* SM clock, kHz */
    case 16:
      *v = 8;
      return OK; /* SMs */
    case 18:
      *v = 1;
      return OK; /* integrated */
    case 33:
      *v = 0;
      return OK; /* PCI bus */
    case 34:
      *v = 0;
      return OK; /* PCI device */
    case 36:
      *v = 3200000;
      return OK; /* memory clock, kHz */
    case 37:
      *v = 128;
      return OK; /* bus width, bits: 102.4 GB/s as on Orin NX 16GB */
    case 38:
      *v = 4 << 20;
      return OK; /* L2 */
    case 50:
      *v = 0;
      return OK; /* PCI domain */
    case 75:
      *v = 8;
      return OK;
    case 76:
      *v = 7;
      return OK;
    case 95:
      *v = 1;
      return OK; /* cooperative launch */
    default:
      return INVALID_VALUE;
  }
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  (void)d;
  *bytes = FAKE_TOTAL_BYTES;
  return OK;
}

static void open_named_files(void) {
  const char* list = getenv("FAKE_CUDA_OPEN");
  char path[512];
  while (list && *list) {
    const char* end = strchr(list, ':');
    size_t n = end ? (size_t)(end - list) : strlen(list);
    if (n > 0 && n < sizeof path) {
      memcpy(path, list, n);
      path[n] = '\0';
      (void)open(path, O_RDONLY | O_CLOEXEC); /* kept open, like a driver's nodes */
    }
    list = end ? end + 1 : NULL;
  }
}

CUresult cuCtxCreate_v2(opaque* ctx, unsigned flags, CUdevice d) {
  (void)flags;
  (void)d;
  open_named_files();
  *ctx = &fake_object;
  return OK;
}
CUresult cuCtxDestroy_v2(opaque ctx) {
  (void)ctx;
  return OK;
}
CUresult cuCtxSynchronize(void) {
  return OK;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  *free_bytes = FAKE_FREE_BYTES;
  *total = FAKE_TOTAL_BYTES;
  return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  void* m = calloc(1, bytes);
  if (!m) return 2;
  *p = (CUdeviceptr)(uintptr_t)m;
  return OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void*)(uintptr_t)p);
  return OK;
}
CUresult cuMemAllocHost_v2(void** p, size_t bytes) {
  *p = calloc(1, bytes);
  return *p ? OK : 2;
}
CUresult cuMemFreeHost(void* p) {
  free(p);
  return OK;
}

CUresult cuMemsetD32Async(CUdeviceptr p, unsigned value, size_t n, opaque s) {
  (void)s;
  uint32_t* w = (uint32_t*)(uintptr_t)p;
  for (size_t i = 0; i < n; ++i) w[i] = value;
  return OK;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void* h, size_t n) {
  memcpy((void*)(uintptr_t)d, h, n);
  return OK;
}
CUresult cuMemcpyDtoH_v2(void* h, CUdeviceptr d, size_t n) {
  memcpy(h, (const void*)(uintptr_t)d, n);
  return OK;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* h, size_t n, opaque s) {
  (void)s;
  return cuMemcpyHtoD_v2(d, h, n);
}
CUresult cuMemcpyDtoHAsync_v2(void* h, CUdeviceptr d, size_t n, opaque s) {
  (void)s;
  return cuMemcpyDtoH_v2(h, d, n);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr a, CUdeviceptr b, size_t n, opaque s) {
  (void)s;
  memcpy((void*)(uintptr_t)a, (const void*)(uintptr_t)b, n);
  return OK;
}

CUresult cuModuleLoadData(opaque* m, const void* image) {
  (void)image;
  if (is_mode("old_driver")) return UNSUPPORTED_PTX_VERSION;
  *m = &fake_object;
  return OK;
}
CUresult cuModuleUnload(opaque m) {
  (void)m;
  return OK;
}
CUresult cuModuleGetFunction(opaque* f, opaque m, const char* name) {
  (void)m;
  if (strncmp(name, "jetgate_", 8) != 0) return NOT_FOUND;
  *f = &fake_object;
  return OK;
}

#ifndef FAKE_CUDA_OMIT_LAUNCH
CUresult cuLaunchKernel(opaque f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, opaque s, void** params, void** extra) {
  (void)f;
  (void)gx;
  (void)gy;
  (void)gz;
  (void)bx;
  (void)by;
  (void)bz;
  (void)shared;
  (void)s;
  (void)params;
  (void)extra;
  if (is_mode("launch_hangs")) {
    const char* mark = getenv("FAKE_CUDA_MARK");
    int fd = mark ? open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
    if (fd >= 0) {
      if (write(fd, "launched\n", 9) != 9) abort();
      close(fd);
    }
    for (;;) pause();
  }
  return is_mode("launch_fails") ? LAUNCH_FAILED : OK;
}
#endif

CUresult cuStreamCreate(opaque* s, unsigned flags) {
  (void)flags;
  *s = &fake_object;
  return OK;
}
CUresult cuStreamDestroy_v2(opaque s) {
  (void)s;
  return OK;
}
CUresult cuStreamSynchronize(opaque s) {
  (void)s;
  return OK;
}
CUresult cuEventCreate(opaque* e, unsigned flags) {
  (void)flags;
  *e = &fake_object;
  return OK;
}
CUresult cuEventDestroy_v2(opaque e) {
  (void)e;
  return OK;
}
CUresult cuEventRecord(opaque e, opaque s) {
  (void)e;
  (void)s;
  return OK;
}
CUresult cuEventSynchronize(opaque e) {
  (void)e;
  return OK;
}
CUresult cuEventElapsedTime(float* ms, opaque a, opaque b) {
  (void)a;
  (void)b;
  *ms = 1.0f;
  return OK;
}

/* Graphs and cooperative launches (the decode probe): accepted, and like
 * cuLaunchKernel they compute nothing. */
CUresult cuLaunchCooperativeKernel(opaque f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, opaque s,
                                   void** params) {
  (void)f;
  (void)gx;
  (void)gy;
  (void)gz;
  (void)bx;
  (void)by;
  (void)bz;
  (void)shared;
  (void)s;
  (void)params;
  return is_mode("launch_fails") ? LAUNCH_FAILED : OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, opaque f, int block, size_t smem) {
  (void)f;
  (void)block;
  (void)smem;
  *n = 1;
  return OK;
}
CUresult cuStreamBeginCapture_v2(opaque s, int mode) {
  (void)s;
  (void)mode;
  return OK;
}
CUresult cuStreamEndCapture(opaque s, opaque* graph) {
  (void)s;
  *graph = &fake_object;
  return OK;
}
CUresult cuGraphInstantiate(opaque* exec, opaque graph, opaque* error_node, char* log, size_t n) {
  (void)graph;
  (void)error_node;
  (void)log;
  (void)n;
  *exec = &fake_object;
  return OK;
}
CUresult cuGraphLaunch(opaque exec, opaque s) {
  (void)exec;
  (void)s;
  return is_mode("launch_fails") ? LAUNCH_FAILED : OK;
}
CUresult cuGraphExecDestroy(opaque exec) {
  (void)exec;
  return OK;
}
CUresult cuGraphDestroy(opaque graph) {
  (void)graph;
  return OK;
}
