# SPDX-License-Identifier: Apache-2.0
"""Device-to-device copy bandwidth through PyTorch (tensor.copy_, a kernel),
timed with CUDA events, median of samples, counting bytes read + written as
jetgate's bandwidth probe does. Prints one JSON line per buffer size."""
import json
import statistics
import sys

import torch


def measure(nbytes, copies=8, samples=5):
    a = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    results = []
    for i in range(samples + 1):
        torch.cuda.synchronize()
        start.record()
        for _ in range(copies):
            b.copy_(a)
        end.record()
        end.synchronize()
        if i:
            results.append(2 * nbytes * copies / (start.elapsed_time(end) * 1e-3) / 1e9)
    return statistics.median(results)


for mib in [int(x) for x in sys.argv[1:]] or [512]:
    print(json.dumps({"buffer_mib": mib, "torch_d2d_gbps": measure(mib << 20)}))
