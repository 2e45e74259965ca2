#!/usr/bin/env python3
"""Whole-command throughput of exactvmaf against another VMAF CLI (e.g. an
upstream libvmaf `vmaf` built elsewhere) on the same raw 4:2:0 pairs.

  bench/compare_cli.py --exactvmaf build/tools/exactvmaf --upstream /path/to/vmaf \\
      --pair 1920x1080:REF.yuv:DIST.yuv --pair 3840x2160:REF.yuv:DIST.yuv \\
      --features null psnr float_psnr --threads 1 2 --repeat 7

--models NAME... adds rows for whole VMAF models (upstream `--model
version=NAME`, ours `-m version=NAME`); feature rows run ours with `-n`, as
upstream's `--no_prediction` (both CLIs otherwise add vmaf_v0.6.1).
--interleave alternates the two tools' timed runs, so that load from other
processes hits both alike; --times prints every run's seconds to stderr.

Wall time of the whole process (start, reading, features, output), best of
--repeat runs after one warm-up that fills the page cache; fps = frames /
best time. Prints a Markdown table.
"""
import argparse
import os
import subprocess
import sys
import time


def frames_in(path, w, h):
    return os.path.getsize(path) // (w * h * 3 // 2)


def command(exe, kind, w, h, ref, dist, feature, threads, model=False):
    c = [exe, "-r", ref, "-d", dist, "-w", str(w), "-h", str(h), "-p", "420", "-b", "8",
         "-q", "--threads", str(threads)]
    if model:
        c += ["--model" if kind == "upstream" else "-m", "version=" + feature]
    else:
        c += ["--feature", feature, "--no_prediction" if kind == "upstream" else "-n"]
    if kind != "upstream":
        c += ["-o", os.devnull]  # upstream writes nothing without -o
    return c


def fps(x):
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def run_once(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def best_times_interleaved(cmds, repeat):
    for cmd in cmds:
        run_once(cmd)  # warm-up
    runs = [[] for _ in cmds]
    for _ in range(repeat):
        for i, cmd in enumerate(cmds):
            runs[i].append(run_once(cmd))
    return runs


def best_time(cmd, repeat):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exactvmaf", required=True)
    ap.add_argument("--upstream")
    ap.add_argument("--pair", action="append", required=True, help="WxH:REF:DIST")
    ap.add_argument("--features", nargs="*", default=["null", "psnr", "float_psnr"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--models", nargs="+", default=[], help="VMAF model versions, e.g. vmaf_float_v0.6.1")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--interleave", action="store_true")
    ap.add_argument("--times", action="store_true")
    a = ap.parse_args()
    print("| size | frames | feature | threads | exactvmaf fps | upstream fps | ratio |")
    print("|---|---|---|---|---|---|---|")
    for pair in a.pair:
        size, ref, dist = pair.split(":")
        w, h = (int(x) for x in size.split("x"))
        n = frames_in(ref, w, h)
        for feature, model in [(f, False) for f in a.features] + [(m, True) for m in a.models]:
            for t in a.threads:
                cmds = [command(a.exactvmaf, "ours", w, h, ref, dist, feature, t, model)]
                if a.upstream:
                    cmds.append(command(a.upstream, "upstream", w, h, ref, dist, feature, t, model))
                if a.interleave:
                    runs = best_times_interleaved(cmds, a.repeat)
                    best = [min(r) for r in runs]
                    if a.times:
                        for name, r in zip(["exactvmaf", "upstream"], runs):
                            print(f"{size} {feature} t{t} {name}: " + ", ".join(f"{x:.3f}" for x in r),
                                  file=sys.stderr, flush=True)
                else:
                    best = [best_time(c, a.repeat) for c in cmds]
                ours = n / best[0]
                if a.upstream:
                    up = n / best[1]
                    print(f"| {size} | {n} | {feature} | {t} | {fps(ours)} | {fps(up)} | {ours / up:.2f} |", flush=True)
                else:
                    print(f"| {size} | {n} | {feature} | {t} | {fps(ours)} | - | - |", flush=True)


if __name__ == "__main__":
    main()
