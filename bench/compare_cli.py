#!/usr/bin/env python3
"""Whole-command throughput of exactvmaf against another VMAF CLI (e.g. an
upstream libvmaf `vmaf` built elsewhere) on the same raw 4:2:0 pairs.

  bench/compare_cli.py --exactvmaf build/tools/exactvmaf --upstream /path/to/vmaf \\
      --pair 1920x1080:REF.yuv:DIST.yuv --pair 3840x2160:REF.yuv:DIST.yuv \\
      --features null psnr float_psnr --threads 1 2 --repeat 7

Wall time of the whole process (start, reading, features, output), best of
--repeat runs after one warm-up that fills the page cache; fps = frames /
best time. Prints a Markdown table.
"""
import argparse
import os
import subprocess
import time


def frames_in(path, w, h):
    return os.path.getsize(path) // (w * h * 3 // 2)


def command(exe, kind, w, h, ref, dist, feature, threads):
    c = [exe, "-r", ref, "-d", dist, "-w", str(w), "-h", str(h), "-p", "420", "-b", "8",
         "-q", "--feature", feature, "--threads", str(threads)]
    if kind == "upstream":
        c.append("--no_prediction")  # writes nothing without -o
    else:
        c += ["-o", os.devnull]
    return c


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
    ap.add_argument("--features", nargs="+", default=["null", "psnr", "float_psnr"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    print("| size | frames | feature | threads | exactvmaf fps | upstream fps | ratio |")
    print("|---|---|---|---|---|---|---|")
    for pair in a.pair:
        size, ref, dist = pair.split(":")
        w, h = (int(x) for x in size.split("x"))
        n = frames_in(ref, w, h)
        for feature in a.features:
            for t in a.threads:
                ours = n / best_time(command(a.exactvmaf, "ours", w, h, ref, dist, feature, t), a.repeat)
                if a.upstream:
                    up = n / best_time(command(a.upstream, "upstream", w, h, ref, dist, feature, t), a.repeat)
                    print(f"| {size} | {n} | {feature} | {t} | {ours:.0f} | {up:.0f} | {ours / up:.2f} |")
                else:
                    print(f"| {size} | {n} | {feature} | {t} | {ours:.0f} | - | - |")


if __name__ == "__main__":
    main()
