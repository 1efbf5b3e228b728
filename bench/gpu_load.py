# SPDX-License-Identifier: Apache-2.0
"""Loads the GPU for SECONDS (default 240) the way a busy neighbour would: a 1 GiB
device-to-device copy loop and a bf16 8192x8192 matrix product, with PyTorch. Used by
bench/gpu_e2e.sh and bench/gpu_fleet_e2e.sh to show that a loaded GPU does not pass
silently.

Usage: python3 bench/gpu_load.py [SECONDS]
"""
import sys
import time

import torch

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 240.0
a = torch.randn(1 << 29, device="cuda", dtype=torch.float16)  # 1 GiB
b = torch.empty_like(a)
m = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + seconds
while time.time() < end:
    for _ in range(20):
        b.copy_(a)
    m @ m
    torch.cuda.synchronize()
