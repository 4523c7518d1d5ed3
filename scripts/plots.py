#!/usr/bin/env python3
"""Plots of the iptnl benches, as plain SVG files (Python 3 standard library only).

Reads the figures the benches write, one JSON object per line, in
`<dir>/<bench>.jsonl` (see benches/common/mod.rs): `{"bench", "size", "series",
"metric", "value", "unix", "load1"}`. Of several figures with the same (bench, size,
series, metric) the last one counts. Writes into `docs/`:

  bench-restore.svg        full load time vs ruleset size, every tool and the kernel floor
  bench-memory.svg         peak RSS of a full load vs ruleset size
  bench-rule-model.svg     parse+encode and decode+print against the kernel and iptables-nft-save
  bench-commands.svg       one process per command at the largest size: iptables-nft, iptnl, served
  bench-commands-size.svg  some of those commands vs ruleset size
  bench-ops.svg            operations through a warm IpTables handle vs ruleset size
  bench-group-commit.svg   appends per second vs concurrent callers, per ruleset size

A plot whose figures are missing is skipped (and said so). Also prints a summary table
of every figure read, in Markdown, with `--table`.

Usage:
  scripts/plots.py [--in DIR] [--out DIR] [--table]
  scripts/plots.py --check      renders a small built-in sample into a temporary
                                directory and validates the SVG (XML, axes, one path per series)

DIR defaults to $IPTNL_BENCH_OUT, else $CARGO_TARGET_DIR/iptnl-bench, else target/iptnl-bench.
"""

import argparse
import json
import math
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"]

W, H = 800, 440
ML, MR, MT, MB = 78, 230, 48, 62  # margins: the legend sits on the right


def load(dirname):
    """{(bench, size, series, metric): value}, the last figure of each key."""
    figs = {}
    meta = {}
    if not os.path.isdir(dirname):
        return figs, meta
    for name in sorted(os.listdir(dirname)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(dirname, name), encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue
                key = (r["bench"], int(r["size"]), r["series"], r["metric"])
                figs[key] = float(r["value"])
                meta[key] = (r.get("unix", 0), r.get("load1", 0.0))
    return figs, meta


def fmt(v):
    """A tick label."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6 and a % 1e6 == 0:
        return "%gM" % (v / 1e6)
    if a >= 1e3 and a % 1e3 == 0:
        return "%gk" % (v / 1e3)
    if a >= 100:
        return "%.0f" % v
    if a >= 1:
        return "%g" % round(v, 2)
    return "%g" % round(v, 3)


def nice_ticks(lo, hi, n=6):
    if hi <= lo:
        hi = lo + 1
    span = hi - lo
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


def log_ticks(lo, hi):
    a = math.floor(math.log10(lo))
    b = math.ceil(math.log10(hi))
    return [10.0 ** e for e in range(a, b + 1)]


class Axis:
    def __init__(self, lo, hi, log, a, b):
        self.log = log
        if log:
            ticks = log_ticks(lo, hi)
            self.lo, self.hi = ticks[0], ticks[-1]
        else:
            ticks = nice_ticks(lo, hi)
            self.lo, self.hi = ticks[0], ticks[-1]
        self.ticks = ticks
        self.a, self.b = a, b  # pixel positions of lo and hi

    def __call__(self, v):
        if self.log:
            v = max(v, self.lo)
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.a + f * (self.b - self.a)


def svg_open(title, subtitle=None):
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">' % (W, H, W, H),
           '<rect x="0" y="0" width="%d" height="%d" fill="white"/>' % (W, H),
           '<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>' % (ML, escape(title))]
    if subtitle:
        out.append('<text x="%d" y="38" font-size="11" fill="#555">%s</text>' % (ML, escape(subtitle)))
    return out


def frame(out, xa, ya, xlabel, ylabel, xticks=None, xlabels=None):
    x0, x1 = ML, W - MR
    y0, y1 = H - MB, MT
    out.append('<g stroke="#ddd" stroke-width="1">')
    for t in ya.ticks:
        y = ya(t)
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>' % (x0, y, x1, y))
    out.append('</g>')
    out.append('<g class="axes" stroke="#333" stroke-width="1">'
               '<line x1="%d" y1="%d" x2="%d" y2="%d"/>'
               '<line x1="%d" y1="%d" x2="%d" y2="%d"/></g>' % (x0, y0, x1, y0, x0, y0, x0, y1))
    for t in ya.ticks:
        y = ya(t)
        out.append('<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>'
                   % (x0 - 6, y, fmt(t)))
    for i, t in enumerate(xticks if xticks is not None else xa.ticks):
        x = xa(t)
        lab = xlabels[i] if xlabels else fmt(t)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>' % (x, y0, x, y0 + 4))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x, y0 + 18, escape(lab)))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
               % ((x0 + x1) / 2, H - 18, escape(xlabel)))
    out.append('<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">%s</text>'
               % ((y0 + y1) / 2, (y0 + y1) / 2, escape(ylabel)))


def legend(out, entries):
    """entries: (label, color, dashed, kind) with kind 'line' or 'box'."""
    x = W - MR + 16
    y = MT + 4
    for label, color, dashed, kind in entries:
        if kind == "box":
            out.append('<rect x="%d" y="%d" width="18" height="10" fill="%s"/>' % (x, y - 5, color))
        else:
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"%s/>'
                       % (x, y, x + 22, y, color, ' stroke-dasharray="6 4"' if dashed else ""))
        out.append('<text x="%d" y="%d" dominant-baseline="middle">%s</text>' % (x + 28, y, escape(label)))
        y += 18


def line_chart(title, subtitle, xlabel, ylabel, series, xlog=False, ylog=False, ymin0=True,
               extra_legend=None):
    """series: list of (label, [(x, y)], color, dashed)."""
    series = [(l, sorted(p), c, d) for l, p, c, d in series if p]
    xs = [x for _, p, _, _ in series for x, _ in p]
    ys = [y for _, p, _, _ in series for _, y in p if (y > 0 or not ylog)]
    out = svg_open(title, subtitle)
    if not xs or not ys:
        return None
    ylo = min(ys) if (ylog or not ymin0) else 0.0
    xa = Axis(min(xs) if xlog else 0.0, max(xs), xlog, ML, W - MR)
    ya = Axis(ylo, max(ys), ylog, H - MB, MT)
    xticks = sorted(set(xs)) if not xlog else None
    frame(out, xa, ya, xlabel, ylabel, xticks=xticks)
    for label, pts, color, dashed in series:
        pts = [(x, y) for x, y in pts if y > 0 or not ylog]
        d = " ".join(("M" if i == 0 else "L") + "%.1f %.1f" % (xa(x), ya(y)) for i, (x, y) in enumerate(pts))
        out.append('<path class="series" d="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>'
                   % (d, color, ' stroke-dasharray="6 4"' if dashed else ""))
        for x, y in pts:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s, %s</title></circle>'
                       % (xa(x), ya(y), color, escape(label), fmt(x), fmt(y)))
    legend(out, extra_legend or [(l, c, d, "line") for l, _, c, d in series if l])
    out.append("</svg>")
    return "\n".join(out)


def hbar_chart(title, subtitle, xlabel, categories, groups, values, log=True):
    """Horizontal grouped bars. values[(category, group)] = v; groups: [(label, color)]."""
    vals = [v for v in values.values() if v > 0]
    if not vals or not categories:
        return None
    global H
    saved = H
    ng = len(groups)
    row = 6 + 11 * ng
    H = MT + MB + row * len(categories) + 10
    left = 230
    out = svg_open(title, subtitle)
    xa = Axis(min(vals), max(vals), log, left, W - MR)
    y0, y1 = H - MB, MT
    out.append('<g stroke="#ddd">')
    for t in xa.ticks:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>' % (xa(t), y0, xa(t), y1))
    out.append('</g>')
    out.append('<g class="axes" stroke="#333"><line x1="%d" y1="%d" x2="%d" y2="%d"/>'
               '<line x1="%d" y1="%d" x2="%d" y2="%d"/></g>' % (left, y0, W - MR, y0, left, y0, left, y1))
    for t in xa.ticks:
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (xa(t), y0 + 18, fmt(t)))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((left + W - MR) / 2, H - 18, escape(xlabel)))
    for i, cat in enumerate(categories):
        top = MT + 5 + i * row
        out.append('<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>'
                   % (left - 6, top + 11 * ng / 2, escape(cat)))
        for j, (g, color) in enumerate(groups):
            v = values.get((cat, g))
            if v is None or v <= 0:
                continue
            x = xa(v)
            out.append('<rect class="series" x="%d" y="%.1f" width="%.1f" height="9" fill="%s">'
                       '<title>%s, %s: %s</title></rect>' % (left, top + 11 * j, max(x - left, 1), color,
                                                              escape(cat), escape(g), fmt(v)))
            out.append('<text x="%.1f" y="%.1f" font-size="9" dominant-baseline="middle">%s</text>'
                       % (x + 3, top + 11 * j + 4.5, fmt(v)))
    legend(out, [(g, c, False, "box") for g, c in groups])
    out.append("</svg>")
    H = saved
    return "\n".join(out)


def pick(figs, bench, series=None, metric=None):
    """{size: value} for one series and metric."""
    return {s: v for (b, s, se, m), v in figs.items()
            if b == bench and (series is None or se == series) and (metric is None or m == metric)}


def run_info(meta, bench):
    keys = [k for k in meta if k[0] == bench]
    if not keys:
        return ""
    import time
    ts = [meta[k][0] for k in keys]
    loads = [meta[k][1] for k in keys]
    day = time.strftime("%Y-%m-%d", time.gmtime(max(ts)))
    return "measured %s; 1-minute load average %.1f-%.1f as its figures were written" % (day, min(loads), max(loads))


def plots(figs, meta):
    """{file name: svg text}."""
    res = {}

    # Full load.
    names = [("iptnl", "iptnl iptables-restore", False),
             ("kernel_alone", "kernel floor", True),
             ("iptables-nft-restore", "iptables-nft-restore", False),
             ("iptables-legacy-restore", "iptables-legacy-restore", False),
             ("nft -f", "nft -f", False)]
    series = []
    for i, (s, label, dashed) in enumerate(names):
        p = pick(figs, "restore", s, "ms")
        series.append((label, [(k, v / 1e3) for k, v in p.items()], COLORS[i], dashed))
    res["bench-restore.svg"] = line_chart(
        "Full load of a kube-proxy ruleset", run_info(meta, "restore"),
        "rules in the ruleset", "seconds (median)", series)

    # Memory.
    names = [("iptnl", "iptnl (restore_file)"), ("iptables-nft-restore", "iptables-nft-restore"),
             ("iptables-legacy-restore", "iptables-legacy-restore"), ("nft -f", "nft -f")]
    series = [(label, sorted(pick(figs, "restore", s, "peak_rss_mib").items()), COLORS[i], False)
              for i, (s, label) in enumerate(names)]
    series.append(("iptnl's netlink batch", sorted(pick(figs, "restore", "batch", "mib").items()),
                   COLORS[7], True))
    res["bench-memory.svg"] = line_chart(
        "Peak RSS of a full load", run_info(meta, "restore"),
        "rules in the ruleset", "MiB (VmHWM)", series)

    # Rule model.
    rm = {}
    size = max(pick(figs, "rule_model").keys(), default=None)
    if size is not None:
        for s, label in [("parse_encode", "parse + encode"),
                         ("parse_encode_wire", "parse + encode + netlink bytes"),
                         ("kernel_commit", "kernel commit"),
                         ("decode_print", "decode + print"),
                         ("iptables-nft-save", "iptables-nft-save")]:
            v = figs.get(("rule_model", size, s, "ms"))
            if v is not None:
                rm[(label, "ms (commit and save: one run)")] = v
        cats = [c for c, _ in rm]
        res["bench-rule-model.svg"] = hbar_chart(
            "Rule model, %s kube-proxy rules" % format(size, ","), run_info(meta, "rule_model"),
            "milliseconds (median)", cats, [("ms (commit and save: one run)", COLORS[0])], rm, log=False)

    # Cold commands.
    cold = {}
    for (b, s, se, m), v in figs.items():
        if b == "cold" and m == "ms" and "|" in se:
            cmd, tool = se.split("|", 1)
            cold.setdefault(s, {})[(cmd, tool)] = v
    tools = [("iptables-nft", COLORS[1]), ("iptnl", COLORS[0]), ("iptnl served", COLORS[2])]
    if cold:
        top = max(cold)
        cats = []
        for (cmd, _tool) in cold[top]:
            if cmd not in cats:
                cats.append(cmd)
        order = ["-S KUBE-SERVICES", "-L KUBE-SERVICES -n", "-C KUBE-SERVICES (exists)",
                 "-A KUBE-SERVICES", "-D KUBE-SERVICES spec", "-I KUBE-SERVICES 1",
                 "-D KUBE-SERVICES 1", "-N chain", "-X chain", "restore --noflush 1 rule",
                 "-S (nat table)", "iptables-save"]
        cats.sort(key=lambda c: order.index(c) if c in order else len(order))
        res["bench-commands.svg"] = hbar_chart(
            "One process per command, beside %s kube-proxy rules" % fmt(top),
            run_info(meta, "cold"), "milliseconds per command (median, log scale)",
            cats, tools, cold[top], log=True)
        series = []
        for i, cmd in enumerate(["-A KUBE-SERVICES", "-D KUBE-SERVICES 1", "-S KUBE-SERVICES",
                                 "-S (nat table)", "iptables-save"]):
            for tool, dashed in [("iptnl", False), ("iptables-nft", True), ("iptnl served", None)]:
                if dashed is None:
                    continue
                pts = [(s, d[(cmd, tool)]) for s, d in cold.items() if (cmd, tool) in d]
                series.append(("%s, %s" % (cmd, tool), pts, COLORS[i], dashed))
        entries = [(lab.split(", ")[0], c, False, "box") for lab, _, c, d in series if not d]
        entries += [("iptnl", "#333", False, "line"), ("iptables-nft", "#333", True, "line")]
        res["bench-commands-size.svg"] = line_chart(
            "One process per command vs ruleset size",
            run_info(meta, "cold"), "rules in the ruleset", "ms per command (median, log scale)",
            series, ylog=True, extra_legend=entries)

    # Handle operations.
    ops = {}
    for (b, s, se, m), v in figs.items():
        if b == "ops" and m == "wall_ms":
            ops.setdefault(se, []).append((s, v))
    series = [(op, pts, COLORS[i % len(COLORS)], i >= len(COLORS))
              for i, (op, pts) in enumerate(sorted(ops.items()))]
    if series:
        res["bench-ops.svg"] = line_chart(
            "Operations through a warm IpTables handle (wall time)", run_info(meta, "ops"),
            "rules in the ruleset", "ms per operation (median, log scale)", series, ylog=True)

    # Group commit.
    gc = {}
    for (b, s, se, m), v in figs.items():
        if b == "group_commit" and m == "appends_per_s" and se.startswith("K="):
            gc.setdefault(s, []).append((int(se[2:]), v))
    series = [("%s rules" % fmt(s), pts, COLORS[i], False) for i, (s, pts) in enumerate(sorted(gc.items()))]
    if series:
        res["bench-group-commit.svg"] = line_chart(
            "Group commit: K callers append at once through one handle", run_info(meta, "group_commit"),
            "K concurrent callers (log scale)", "appends per second (log scale)", series,
            xlog=True, ylog=True)
    return {k: v for k, v in res.items() if v}


def table(figs, meta):
    rows = ["| bench | size | series | metric | value | load1 |", "|---|---|---|---|---|---|"]
    for k in sorted(figs):
        rows.append("| %s | %d | %s | %s | %.3f | %.2f |" % (k[0], k[1], k[2], k[3], figs[k], meta[k][1]))
    return "\n".join(rows)


def validate(svg_text, name):
    root = ET.fromstring(svg_text)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg", name
    assert root.findall(".//%sg[@class='axes']" % ns), name + ": no axes"
    n = len([e for e in root.iter() if e.get("class") == "series"])
    assert n > 0, name + ": no series"
    texts = [e.text for e in root.iter(ns + "text") if e.text]
    assert len(texts) >= 5, name + ": too few labels"
    return n


SAMPLE = [
    ("restore", s, se, "ms", v) for s, row in {
        10000: {"iptnl": 90, "kernel_alone": 80, "iptables-nft-restore": 300,
                "iptables-legacy-restore": 150, "nft -f": 1200},
        200000: {"iptnl": 1800, "kernel_alone": 1600, "iptables-nft-restore": 5000,
                 "iptables-legacy-restore": 2900, "nft -f": 30000}}.items()
    for se, v in row.items()] + [
    ("restore", 10000, "iptnl", "peak_rss_mib", 12.0), ("restore", 200000, "iptnl", "peak_rss_mib", 141.0),
    ("restore", 10000, "batch", "mib", 6.0), ("restore", 200000, "batch", "mib", 124.0),
    ("rule_model", 200053, "parse_encode", "ms", 150.0), ("rule_model", 200053, "kernel_commit", "ms", 1800.0),
    ("cold", 10000, "-A KUBE-SERVICES|iptnl", "ms", 3.0), ("cold", 10000, "-A KUBE-SERVICES|iptables-nft", "ms", 4.0),
    ("cold", 200000, "-A KUBE-SERVICES|iptnl", "ms", 160.0),
    ("cold", 200000, "-A KUBE-SERVICES|iptables-nft", "ms", 190.0),
    ("cold", 200000, "-A KUBE-SERVICES|iptnl served", "ms", 120.0),
    ("ops", 0, "append", "wall_ms", 0.2), ("ops", 200000, "append", "wall_ms", 140.0),
    ("group_commit", 10000, "K=1", "appends_per_s", 85.0), ("group_commit", 10000, "K=100", "appends_per_s", 3138.0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="indir")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs"))
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.check:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "sample.jsonl"), "w") as f:
                for b, s, se, m, v in SAMPLE:
                    f.write(json.dumps({"bench": b, "size": s, "series": se, "metric": m,
                                        "value": v, "unix": 0, "load1": 1.0}) + "\n")
            figs, meta = load(d)
            res = plots(figs, meta)
            expect = {"bench-restore.svg", "bench-memory.svg", "bench-rule-model.svg", "bench-commands.svg",
                      "bench-commands-size.svg", "bench-ops.svg", "bench-group-commit.svg"}
            missing = expect - set(res)
            assert not missing, "not drawn: %s" % sorted(missing)
            for name, text in sorted(res.items()):
                n = validate(text, name)
                print("ok %-26s %d series elements" % (name, n))
        assert fmt(200000) == "200k" and fmt(0.5) == "0.5" and fmt(1500) == "1500"
        print("plots.py --check: ok")
        return 0
    indir = a.indir or os.environ.get("IPTNL_BENCH_OUT") or os.path.join(
        os.environ.get("CARGO_TARGET_DIR", "target"), "iptnl-bench")
    figs, meta = load(indir)
    if not figs:
        print("no figures in %s (run the benches first: scripts/bench-report.sh)" % indir, file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    res = plots(figs, meta)
    for name, text in sorted(res.items()):
        validate(text, name)
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            f.write(text + "\n")
        print("wrote %s" % os.path.normpath(os.path.join(a.out, name)))
    if a.table:
        print(table(figs, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
