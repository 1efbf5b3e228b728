#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Peers of jetgate's decode probe on the same shapes, with random weights.

- torch_graph: a plain PyTorch decode step (the Hugging Face order of
  operations: separate q/k/v projections, rotate_half rotary embedding, SDPA
  over a static KV cache, SwiGLU MLP, argmax on the GPU) captured once in a
  CUDA graph and replayed per token; the token id comes back to the host
  (.item()) every token, as jetgate's probe does.
- hf_eager / hf_static: transformers' own greedy generate() with its default
  (dynamic) cache and with cache_implementation="static", no compile.
- torch_read: not a decoder but the memory-side reference: PyTorch's own
  read bandwidth (a sum over an fp16 tensor as large as the model's weights,
  timed with CUDA events). Divided by the bytes a token reads, it is the
  decode rate the memory allows as PyTorch measures it, independent of
  jetgate's own read kernel.

Prints one JSON line per (model, peer): median tok/s over the timed tokens
(torch_read: read_gbps and the bytes it read).
Usage: decode_torch_peers.py MODEL DTYPE [--peers torch_read,torch_graph,hf_eager,hf_static]
       [--tokens N] [--hf-tokens N]
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

# The public config.json of each model (see src/jetgate/cuda/decode_presets.cpp).
PRESETS = {
    "qwen2.5-0.5b": dict(arch="qwen2", hidden=896, layers=24, heads=14, kv=2, hd=64, inter=4864,
                         vocab=151936, tied=True, bias=True, eps=1e-6, theta=1e6),
    "qwen2.5-1.5b": dict(arch="qwen2", hidden=1536, layers=28, heads=12, kv=2, hd=128, inter=8960,
                         vocab=151936, tied=True, bias=True, eps=1e-6, theta=1e6),
    "llama-3.2-1b": dict(arch="llama", hidden=2048, layers=16, heads=32, kv=8, hd=64, inter=8192,
                         vocab=128256, tied=True, bias=False, eps=1e-5, theta=500000.0,
                         llama3=dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0,
                                     high_freq_factor=4.0,
                                     original_max_position_embeddings=8192)),
    "tinyllama-1.1b": dict(arch="llama", hidden=2048, layers=22, heads=32, kv=4, hd=64, inter=5632,
                           vocab=32000, tied=False, bias=False, eps=1e-5, theta=10000.0),
}
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def inv_freq(p):
    f = [1.0 / (p["theta"] ** (2 * i / p["hd"])) for i in range(p["hd"] // 2)]
    s = p.get("llama3")
    if not s:
        return f
    lo = s["original_max_position_embeddings"] / s["low_freq_factor"]
    hi = s["original_max_position_embeddings"] / s["high_freq_factor"]
    out = []
    for x in f:
        w = 2 * math.pi / x
        if w > lo:
            x = x / s["factor"]
        elif w >= hi:
            sm = (s["original_max_position_embeddings"] / w - s["low_freq_factor"]) / (
                s["high_freq_factor"] - s["low_freq_factor"])
            x = (1 - sm) * x / s["factor"] + sm * x
        out.append(x)
    return out


class TorchDecoder:
    """One decode step in plain PyTorch ops, static shapes, graph-capturable."""

    def __init__(self, p, dtype, max_ctx):
        self.p, self.dtype, dev = p, dtype, "cuda"
        gen = torch.Generator(device=dev).manual_seed(0)

        def rnd(*shape, scale):
            t = torch.rand(*shape, device=dev, generator=gen, dtype=torch.float32)
            return t.mul_(2).sub_(1).mul_(scale).to(dtype)

        H, KV, D, h, I = p["heads"], p["kv"], p["hd"], p["hidden"], p["inter"]
        self.layers = []
        for _ in range(p["layers"]):
            L = dict(an=1 + rnd(h, scale=0.25), mn=1 + rnd(h, scale=0.25),
                     wq=rnd(H * D, h, scale=h ** -0.5 * 1.7), wk=rnd(KV * D, h, scale=h ** -0.5 * 1.7),
                     wv=rnd(KV * D, h, scale=h ** -0.5 * 1.7), wo=rnd(h, H * D, scale=(H * D) ** -0.5 * 1.7),
                     wg=rnd(I, h, scale=h ** -0.5 * 1.7), wu=rnd(I, h, scale=h ** -0.5 * 1.7),
                     wd=rnd(h, I, scale=I ** -0.5 * 1.7))
            if p["bias"]:
                L.update(bq=rnd(H * D, scale=0.06), bk=rnd(KV * D, scale=0.06), bv=rnd(KV * D, scale=0.06))
            self.layers.append(L)
        self.fn = 1 + rnd(h, scale=0.25)
        self.embed = rnd(p["vocab"], h, scale=0.125)
        self.lm = self.embed if p["tied"] else rnd(p["vocab"], h, scale=0.125)
        self.kc = [torch.zeros(1, KV, max_ctx, D, device=dev, dtype=dtype) for _ in self.layers]
        self.vc = [torch.zeros(1, KV, max_ctx, D, device=dev, dtype=dtype) for _ in self.layers]
        f = torch.tensor(inv_freq(p), device=dev, dtype=torch.float32)
        ang = torch.arange(max_ctx, device=dev, dtype=torch.float32)[:, None] * f[None, :]
        emb = torch.cat([ang, ang], dim=-1)
        self.cos, self.sin = emb.cos().to(dtype), emb.sin().to(dtype)
        self.slots = torch.arange(max_ctx, device=dev)
        self.tok = torch.ones(1, dtype=torch.long, device=dev)
        self.pos = torch.zeros(1, dtype=torch.long, device=dev)

    def rms(self, x, w):
        xf = x.float()
        return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.p["eps"])).to(self.dtype)

    @staticmethod
    def rotate(x, cos, sin):
        half = x.shape[-1] // 2
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin

    def step(self):
        p = self.p
        H, KV, D = p["heads"], p["kv"], p["hd"]
        x = self.embed[self.tok]
        cos, sin = self.cos[self.pos], self.sin[self.pos]
        mask = (self.slots <= self.pos).view(1, 1, 1, -1)
        for L, kc, vc in zip(self.layers, self.kc, self.vc):
            h = self.rms(x, L["an"])
            q = F.linear(h, L["wq"], L.get("bq")).view(1, 1, H, D).transpose(1, 2)
            k = F.linear(h, L["wk"], L.get("bk")).view(1, 1, KV, D).transpose(1, 2)
            v = F.linear(h, L["wv"], L.get("bv")).view(1, 1, KV, D).transpose(1, 2)
            q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
            kc.index_copy_(2, self.pos, k)
            vc.index_copy_(2, self.pos, v)
            o = F.scaled_dot_product_attention(q, kc, vc, attn_mask=mask, enable_gqa=True)
            x = x + F.linear(o.transpose(1, 2).reshape(1, H * D), L["wo"])
            h = self.rms(x, L["mn"])
            x = x + F.linear(F.silu(F.linear(h, L["wg"])) * F.linear(h, L["wu"]), L["wd"])
        logits = F.linear(self.rms(x, self.fn), self.lm)
        self.tok.copy_(logits.argmax(-1))
        self.pos.add_(1)


def run_torch_graph(p, dtype, tokens, warmup=16):
    dec = TorchDecoder(p, dtype, warmup + tokens + 8)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            dec.step()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        dec.step()
    dec.pos.zero_()
    dec.tok.fill_(1)
    torch.cuda.synchronize()
    lat = []
    for i in range(warmup + tokens):
        t0 = time.perf_counter()
        graph.replay()
        dec.tok.item()
        if i >= warmup:
            lat.append(time.perf_counter() - t0)
    return {"tok_s": 1 / statistics.median(lat), "tokens": tokens,
            "kernels_per_token": "one graph (plain ops)"}


def weight_bytes(p):
    """Bytes of the weights one token reads (16-bit), as jetgate counts them."""
    h, I, D = p["hidden"], p["inter"], p["hd"]
    qkv = (p["heads"] + 2 * p["kv"]) * D
    layer = 2 * h + qkv * h + (qkv if p["bias"] else 0) + p["heads"] * D * h + 3 * I * h
    return 2 * (p["layers"] * layer + h + p["vocab"] * h + h)


def run_torch_read(p, iters=20, warmup=3):
    n = weight_bytes(p) // 2
    x = torch.empty(n, dtype=torch.float16, device="cuda").uniform_(-1, 1)
    times = []
    for i in range(warmup + iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        x.sum(dtype=torch.float32)
        b.record()
        b.synchronize()
        if i >= warmup:
            times.append(a.elapsed_time(b) / 1e3)
    return {"read_gbps": 2 * n / statistics.median(times) / 1e9, "read_bytes": 2 * n,
            "samples": iters}


def hf_config(p):
    import transformers
    common = dict(vocab_size=p["vocab"], hidden_size=p["hidden"], intermediate_size=p["inter"],
                  num_hidden_layers=p["layers"], num_attention_heads=p["heads"],
                  num_key_value_heads=p["kv"], max_position_embeddings=32768,
                  rms_norm_eps=p["eps"], tie_word_embeddings=p["tied"], rope_theta=p["theta"])
    if p["arch"] == "qwen2":
        return transformers.Qwen2Config(**common)
    if p.get("llama3"):
        common["rope_scaling"] = p["llama3"]
    return transformers.LlamaConfig(head_dim=p["hd"], **common)


def run_hf(p, dtype, tokens, static):
    import transformers
    from transformers import AutoModelForCausalLM, LogitsProcessor, LogitsProcessorList

    class Stamp(LogitsProcessor):
        def __init__(self):
            self.t = []

        def __call__(self, input_ids, scores):
            self.t.append(time.perf_counter())
            return scores

    cfg = hf_config(p)
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(cfg, dtype=dtype)
        except TypeError:
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=dtype)
    model.eval()
    ids = torch.tensor([[1]], device="cuda")
    kw = dict(max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False, pad_token_id=0)
    if static:
        kw["cache_implementation"] = "static"
        # Recent transformers compile the forward pass for a static cache on
        # their own (minutes of torch.compile); this peer is the uncompiled one.
        kw["disable_compile"] = True
    with torch.no_grad():
        model.generate(ids, **dict(kw, max_new_tokens=4, min_new_tokens=4))  # warm-up
        stamp = Stamp()
        model.generate(ids, logits_processor=LogitsProcessorList([stamp]), **kw)
    gaps = [b - a for a, b in zip(stamp.t, stamp.t[1:])]
    return {"tok_s": 1 / statistics.median(gaps), "tokens": len(gaps),
            "transformers": transformers.__version__}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", choices=sorted(PRESETS))
    ap.add_argument("dtype", choices=sorted(DTYPES))
    ap.add_argument("--peers", default="torch_read,torch_graph,hf_static,hf_eager")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--hf-tokens", type=int, default=24)
    a = ap.parse_args()
    p, dtype = PRESETS[a.model], DTYPES[a.dtype]
    for peer in a.peers.split(","):
        t0 = time.perf_counter()
        try:
            if peer == "torch_read":
                r = run_torch_read(p)
            elif peer == "torch_graph":
                r = run_torch_graph(p, dtype, a.tokens)
            else:
                r = run_hf(p, dtype, a.hf_tokens, static=(peer == "hf_static"))
        except Exception as e:  # a peer that breaks is recorded, the others still run
            r = {"error": f"{type(e).__name__}: {e}"}
        r.update(model=a.model, dtype=a.dtype, peer=peer, torch=torch.__version__,
                 wall_s=round(time.perf_counter() - t0, 2))
        print(json.dumps(r), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
