#!/usr/bin/env python3
"""The tolerance study behind fixtures/gemm-w4a16-awq (its notes.md cites
this script's output): a numpy model of the ways libraries dequantise AWQ's
4-bit weights, measured against the exact reference the fixture uses, at
the fixture's correctness sizes and input distributions.

For each tolerance candidate (atol, rtol, terms_rtol; terms = sum_k |x| *
(q + z) * s, as fixtures/gemm-w4a16-awq/reference.c writes them) it prints
the smallest and largest, over the ten size/distribution pairs, of the
worst |y - ref| / tolerance of:

  exact        weights (q - z) * s exact in float32, float32 accumulation
  marlin       (q - z) * s rounded to float16 once (Marlin, the PyTorch fallback)
  hfma         q * s - fp16(z * s) as one float16 fused multiply-add
               (AutoAWQ's and exllama's kernels)
  fp16acc      float16 weights and a float16 accumulator (a pitfall)
  bf16dequant  weights rounded to bfloat16 (a pitfall)

A correct dequantisation must stay well below 1 and the pitfalls above it.
numpy only; deterministic (seeded); a few seconds:

    python3 scripts/w4a16-dequant-margins.py
"""
import numpy as np

SIZES = [(1, 1024, 512), (16, 256, 1024), (5, 512, 4096), (33, 64, 384), (7, 136, 256)]
GROUP = 128


def f16(a):
    return np.asarray(a).astype(np.float16).astype(np.float64)


def bf16(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def run(rng, m, n, k, dist):
    x = f16(rng.uniform(-1, 1, (m, k)) if dist == 0 else rng.normal(0, 1, (m, k)))
    q = rng.integers(0, 16, (k, n)).astype(np.float64)
    z = np.repeat(rng.integers(0, 16, (k // GROUP, n)), GROUP, 0).astype(np.float64)
    s = np.repeat(f16(rng.uniform(0.001, 0.02, (k // GROUP, n))), GROUP, 0)
    w = (q - z) * s
    ref = x @ w
    terms = np.abs(x) @ ((q + z) * s)

    def gemm(wt, acc16=False):
        if not acc16:
            return f16(x.astype(np.float32) @ wt.astype(np.float32))
        acc = np.zeros((m, n), np.float16)
        for kk in range(k):
            acc = (acc + (x[:, kk:kk + 1] * wt[kk:kk + 1, :]).astype(np.float16)).astype(np.float16)
        return acc.astype(np.float64)

    outs = {
        "exact": gemm(w),
        "marlin": gemm(f16(w)),
        "hfma": gemm(f16(q * s - f16(z * s))),
        "fp16acc": gemm(f16(w), True),
        "bf16dequant": gemm(bf16(w)),
    }
    return outs, ref, terms


def main():
    rng = np.random.default_rng(3)
    cases = [run(rng, m, n, k, d) for (m, n, k) in SIZES for d in (0, 1)]
    for atol, rtol, trt in [(1e-3, 2**-9, 0), (1e-3, 2**-9, 2**-12), (1e-3, 2**-9, 2**-13)]:
        cols = []
        for name in ["exact", "marlin", "hfma", "fp16acc", "bf16dequant"]:
            worst = [(np.abs(o[name] - r) / (atol + rtol * np.abs(r) + trt * t)).max() for o, r, t in cases]
            cols.append("%s %.3f..%.3f" % (name, min(worst), max(worst)))
        print("atol %g rtol 2^%d terms_rtol %s:  %s" % (atol, round(np.log2(rtol)),
              "0" if trt == 0 else "2^%d" % round(np.log2(trt)), "  ".join(cols)))


if __name__ == "__main__":
    main()
