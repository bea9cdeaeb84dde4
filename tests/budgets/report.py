#!/usr/bin/env python3
"""Budgets of the built playground: bundle sizes (raw and gzip -9) of everything in
dist/, a size breakdown of each WebAssembly module by crate (from the name section of
wasm-bindgen's output, before any stripping), and the measured first render and seed
sweep times that the end-to-end tests wrote.

usage: report.py DIST_DIR WASM_BINDGEN_DIR OUT_DIR
"""
import gzip
import json
import os
import re
import sys
from collections import defaultdict


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def sections(b):
    i = 8
    while i < len(b):
        sid = b[i]
        size, j = leb(b, i + 1)
        yield sid, b[j : j + size]
        i = j + size


def function_sizes(path):
    """(name, body size) for each defined function, names from the name section."""
    b = open(path, "rb").read()
    imported = 0
    bodies = []
    names = {}
    for sid, data in sections(b):
        if sid == 2:  # imports: count function imports, they shift the index space
            n, i = leb(data, 0)
            for _ in range(n):
                for _ in range(2):
                    ln, i = leb(data, i)
                    i += ln
                kind = data[i]
                i += 1
                if kind == 0:
                    _, i = leb(data, i)
                    imported += 1
                elif kind == 1:
                    i += 1
                    flags, i = leb(data, i)
                    _, i = leb(data, i)
                    if flags & 1:
                        _, i = leb(data, i)
                elif kind == 2:
                    flags, i = leb(data, i)
                    _, i = leb(data, i)
                    if flags & 1:
                        _, i = leb(data, i)
                elif kind == 3:
                    i += 2
                else:
                    _, i = leb(data, i)
        elif sid == 10:
            n, i = leb(data, 0)
            for _ in range(n):
                size, j = leb(data, i)
                bodies.append(size)
                i = j + size
        elif sid == 0:
            ln, i = leb(data, 0)
            if data[i : i + ln] != b"name":
                continue
            i += ln
            while i < len(data):
                sub = data[i]
                size, j = leb(data, i + 1)
                if sub == 1:
                    n, k = leb(data, j)
                    for _ in range(n):
                        idx, k = leb(data, k)
                        ln, k = leb(data, k)
                        names[idx] = data[k : k + ln].decode("utf8", "replace")
                        k += ln
                i = j + size
    return [(names.get(imported + fi, "?"), size) for fi, size in enumerate(bodies)], len(b)


def crate_of(name):
    n = name
    for pre in ("<", "&", "_<", "core::ptr::drop_in_place<"):
        while n.startswith(pre):
            n = n[len(pre):]
    m = re.match(r"_?([A-Za-z_][A-Za-z0-9_]*)::", n)
    if m:
        return m.group(1)
    if n.startswith("__wbg") or n.startswith("__wbindgen") or n.startswith("__externref"):
        return "wasm_bindgen (glue)"
    if n in ("dlmalloc", "malloc", "free", "realloc") or "dlmalloc" in n:
        return "dlmalloc"
    return "(other/unnamed)"


def main():
    dist, wb_dir, out = sys.argv[1:4]
    print("== bundle (dist/) ==")
    total_raw = total_gz = 0
    rows = []
    for root, _, files in os.walk(dist):
        for f in files:
            p = os.path.join(root, f)
            raw = open(p, "rb").read()
            gz = len(gzip.compress(raw, 9))
            rows.append((os.path.relpath(p, dist), len(raw), gz))
    rows.sort(key=lambda r: -r[2])
    for name, raw, gz in rows:
        print(f"{name:<48}{raw:>10} B{gz:>10} B gzip")
        total_raw += raw
        total_gz += gz
    page = [r for r in rows if not r[0].startswith(("worker", "policy-worker", "seeds/"))]
    worker = [r for r in rows if r[0].startswith("worker")]
    # Loaded only when an experiment first has a kernel with a policy script.
    script = [r for r in rows if r[0].startswith("policy-worker")]
    print(f"{'total':<48}{total_raw:>10} B{total_gz:>10} B gzip")
    print(f"{'  page (html, css, js, app wasm)':<48}{sum(r[1] for r in page):>10} B{sum(r[2] for r in page):>10} B gzip")
    print(f"{'  worker (js, wasm)':<48}{sum(r[1] for r in worker):>10} B{sum(r[2] for r in worker):>10} B gzip")
    print(f"{'  script worker, loaded on first use (js, wasm)':<48}{sum(r[1] for r in script):>10} B{sum(r[2] for r in script):>10} B gzip")
    for wasm in sorted(set(
        os.path.join(r, f) for r, _, fs in os.walk(wb_dir) for f in fs if f.endswith("_bg.wasm")
    )):
        try:
            funcs, size = function_sizes(wasm)
        except Exception as e:  # a parse problem must not hide the rest of the report
            print(f"\n{wasm}: cannot parse ({e})")
            continue
        by = defaultdict(int)
        for n, s in funcs:
            by[crate_of(n)] += s
        code = sum(by.values())
        print(f"\n== {os.path.relpath(wasm, wb_dir)}: {size} B, code {code} B, by crate (function bodies) ==")
        for c, s in sorted(by.items(), key=lambda kv: -kv[1])[:14]:
            print(f"  {c:<34}{s:>9} B {100 * s / max(code, 1):5.1f}%")
    for f in ("first-render.json", "sweep-budgets.json", "import-budgets.json"):
        p = os.path.join(out, f)
        if os.path.exists(p):
            print(f"\n== {f} ==")
            print(open(p).read().strip())


if __name__ == "__main__":
    main()
