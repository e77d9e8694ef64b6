"""Figures as deterministic SVG data URIs: matplotlib's Agg-era SVG backend with a fixed hash salt per
figure (ids in the SVG), no date in the metadata, a fixed font, text kept as text (no font embedding)."""

from __future__ import annotations

import base64
import io
import math

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot: never a GUI backend

import numpy as np  # noqa: E402
from matplotlib import rc_context  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

WIDE = 10.6  # inches: about the page's content width, so figures show near their natural size
KEPT, DROPPED, THRESH, INK, MUTED = "#2b6cb0", "#dd6b20", "#c53030", "#1a202c", "#718096"
GROUP_COLORS = {"kept": "#2f855a", "lang": "#805ad5", "gopher": "#dd6b20", "repetition": "#d69e2e",
                "ppl": "#b83280", "dedup": "#3182ce", "empty": "#a0aec0"}
STYLE = {
    "font.family": "DejaVu Sans", "font.size": 8.5, "axes.titlesize": 9, "axes.labelsize": 8.5,
    "axes.edgecolor": "#a0aec0", "axes.labelcolor": INK, "xtick.color": "#4a5568", "ytick.color": "#4a5568",
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.color": "#e2e8f0",
    "grid.linewidth": 0.6, "axes.axisbelow": True, "legend.frameon": False, "legend.fontsize": 8,
    "svg.fonttype": "none", "path.simplify": True, "svg.image_inline": True,
}


def to_data_uri(fig: Figure, name: str) -> str:
    buf = io.BytesIO()
    with rc_context({**STYLE, "svg.hashsalt": f"corpus-report:{name}"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.05)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figure(w: float, h: float) -> Figure:
    with rc_context(STYLE):
        return Figure(figsize=(w, h), dpi=100)


def _styled(fn):
    def wrapper(*a, **k):
        with rc_context(STYLE):
            return fn(*a, **k)
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


def _si(x: float, _pos=None) -> str:
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            v = x / div
            return f"{v:.0f}{suffix}" if v >= 10 or v == int(v) else f"{v:.1f}{suffix}"
    return f"{x:g}"


@_styled
def funnel_chart(labels: list[str], docs: list[int], chars: list[int | None]) -> str:
    """Documents and characters after each stage, as a share of what was fetched."""
    fig = figure(WIDE, 2.6)
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    d0 = docs[0] or 1
    c0 = chars[0] or 1
    dp = [100 * d / d0 for d in docs]
    cp = [100 * (c or 0) / c0 for c in chars]
    ax.bar(x - 0.2, dp, 0.38, color=KEPT, label="documents")
    ax.bar(x + 0.2, cp, 0.38, color="#81a9d6", label="characters")
    for i, (d, c) in enumerate(zip(docs, chars)):
        ax.text(i - 0.2, dp[i] + 2, f"{d:,}", ha="center", va="bottom", fontsize=7, color=INK)
        ax.text(i + 0.2, cp[i] + 2, _si(c) if c is not None else "?", ha="center", va="bottom", fontsize=7,
                color=MUTED)
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 118)
    ax.set_ylabel("% of fetched")
    ax.legend(loc="upper right", ncols=2)
    ax.grid(axis="x", visible=False)
    return to_data_uri(fig, "funnel")


@_styled
def fate_chart(sources: list[str], fates: list[dict[str, int]], groups: list[str]) -> str:
    """Per source, where its fetched documents went (shares, stacked)."""
    fig = figure(WIDE, 0.34 * len(sources) + 0.9)
    ax = fig.add_subplot()
    y = np.arange(len(sources))[::-1]
    left = np.zeros(len(sources))
    for g in groups:
        total = np.array([max(1, sum(f.values())) for f in fates], dtype=float)
        vals = np.array([f.get(g, 0) for f in fates], dtype=float) / total * 100
        if not vals.any():
            continue
        ax.barh(y, vals, left=left, color=GROUP_COLORS.get(g, "#a0aec0"), label=g, height=0.7)
        left += vals
    ax.set_yticks(y, [f"{s}  ({sum(f.values()):,})" for s, f in zip(sources, fates)])
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the source's fetched documents")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=len(groups))
    return to_data_uri(fig, "fate")


def _shares(values, bins: np.ndarray) -> np.ndarray:
    """Percent of the values in each bin (the last bin closed, as numpy's histogram)."""
    counts, _ = np.histogram(np.asarray(values, dtype=float), bins=bins)
    return counts * (100.0 / max(1, len(values)))


def _bins(values: list[float], threshold: float, log: bool, n: int = 36) -> np.ndarray:
    vals = [v for v in values if v is not None and math.isfinite(v)] + [threshold]
    lo, hi = min(vals), max(vals)
    if log:
        lo, hi = max(lo, 1.0), max(hi, 1.0)
        if hi <= lo:
            hi = lo * 10
        return np.geomspace(lo, hi * 1.0001, n)
    if hi <= lo:
        hi = lo + 1.0
    return np.linspace(lo, hi + (hi - lo) * 1e-6, n)


@_styled
def rule_grid(name: str, rules: list, kept: dict, dropped: dict, counts: dict, log_rules: set[str]) -> str:
    """One panel per rule: shares of kept (sample) and dropped documents over the measured value, the
    threshold drawn and the dropped side shaded."""
    cols = min(3, len(rules))
    rows = math.ceil(len(rules) / cols)
    fig = figure(WIDE / 3 * cols, 2.35 * rows)
    for i, rule in enumerate(rules):
        ax = fig.add_subplot(rows, cols, i + 1)
        k = [v for v in kept.get(rule.key, []) if v is not None]
        d = [v for v in dropped.get(rule.key, []) if v is not None]
        log = rule.key in log_rules
        bins = _bins(k + d, rule.threshold, log)
        clip = (lambda v: [max(x, bins[0]) for x in v]) if log else (lambda v: v)
        if k:
            ax.stairs(_shares(clip(k), bins), bins, fill=True, color=KEPT, alpha=0.55,
                      label=f"kept ({len(k):,} sampled)")
        if d:
            ax.stairs(_shares(clip(d), bins), bins, color=DROPPED, linewidth=1.6, label=f"dropped ({len(d):,})")
        ax.axvline(rule.threshold, color=THRESH, linestyle="--", linewidth=1.1)
        if rule.side == "min":
            ax.axvspan(bins[0], rule.threshold, color=THRESH, alpha=0.06, linewidth=0)
        else:
            ax.axvspan(rule.threshold, bins[-1], color=THRESH, alpha=0.06, linewidth=0)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(_si))
        ax.set_xlim(bins[0], bins[-1])
        short = rule.key.split(".", 1)[1]
        ax.set_title(f"{short}  ·  {counts.get(rule.key, 0):,} dropped", loc="left", fontsize=8.5, color=INK)
        ax.set_xlabel(f"{rule.label}  (threshold {rule.threshold:g})", fontsize=7.5)
        ax.set_ylabel("% of group", fontsize=7.5)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6.5, loc="upper right" if rule.side == "min" else "upper left")
    fig.tight_layout(h_pad=1.2, w_pad=1.0)
    return to_data_uri(fig, f"rules-{name}")


@_styled
def lang_chart(rows: list[tuple[str, int, int, int]]) -> str:
    """rows: (language, passed, dropped as another language, dropped as undetermined)."""
    fig = figure(WIDE, 0.26 * len(rows) + 0.8)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    a = np.array([r[1] for r in rows], float)
    b = np.array([r[2] for r in rows], float)
    c = np.array([r[3] for r in rows], float)
    ax.barh(y, a, color=GROUP_COLORS["kept"], label="passed the language filter", height=0.7)
    ax.barh(y, b, left=a, color=GROUP_COLORS["lang"], label="dropped: other language", height=0.7)
    ax.barh(y, c, left=a + b, color="#b794f4", label="dropped: score below min_score (best guess)", height=0.7)
    ax.set_xscale("symlog", linthresh=10)
    ax.xaxis.set_major_formatter(FuncFormatter(_si))
    ax.set_yticks(y, [r[0] for r in rows])
    ax.set_xlabel("documents (symmetric log scale)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3)
    return to_data_uri(fig, "lang")


@_styled
def cluster_chart(sizes: dict[int, int]) -> str:
    fig = figure(5.6, 2.4)
    ax = fig.add_subplot()
    xs = sorted(s for s in sizes if s > 1)
    ax.bar(range(len(xs)), [sizes[s] for s in xs], color=GROUP_COLORS["dedup"], width=0.6)
    ax.set_xticks(range(len(xs)), [str(s) for s in xs])
    ax.set_xlim(-0.8, max(len(xs), 4) - 0.2)
    for i, s in enumerate(xs):
        ax.text(i, sizes[s], f"{sizes[s]:,}", ha="center", va="bottom", fontsize=7)
    ax.set_xlabel("documents in the cluster")
    ax.set_ylabel("clusters")
    ax.grid(axis="x", visible=False)
    return to_data_uri(fig, "clusters")


@_styled
def token_length_chart(lengths: dict[str, np.ndarray]) -> str:
    fig = figure(WIDE, 2.4)
    ax = fig.add_subplot()
    allv = np.concatenate([v for v in lengths.values() if len(v)] or [np.ones(1)])
    bins = np.geomspace(max(1, allv.min()), max(2, allv.max()) * 1.0001, 48)
    colors = {"train": KEPT, "val": DROPPED}
    for split, v in lengths.items():
        if len(v):
            ax.stairs(_shares(v, bins), bins, fill=split == "train", alpha=0.55 if split == "train" else 1.0,
                      linewidth=1.5, color=colors.get(split, MUTED),
                      label=f"{split} ({len(v):,} docs, median {np.median(v):,.0f})")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(_si))
    ax.set_xlabel("document length in tokens (EOS included)")
    ax.set_ylabel("% of the split's documents")
    ax.legend(loc="upper right")
    return to_data_uri(fig, "token-lengths")


@_styled
def tokens_by_source_chart(rows: list[tuple[str, int, int]]) -> str:
    """rows: (source, train tokens, val tokens)."""
    fig = figure(WIDE, 0.3 * len(rows) + 0.8)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    tr = np.array([r[1] for r in rows], float)
    va = np.array([r[2] for r in rows], float)
    ax.barh(y, tr, color=KEPT, label="train", height=0.7)
    ax.barh(y, va, left=tr, color=DROPPED, label="val", height=0.7)
    for yi, t, v in zip(y, tr, va):
        ax.text(t + v, yi, f" {_si(t + v)}", va="center", fontsize=7, color=INK)
    ax.xaxis.set_major_formatter(FuncFormatter(_si))
    ax.set_xlim(0, max(1.0, float((tr + va).max())) * 1.08)
    ax.set_yticks(y, [r[0] for r in rows])
    ax.set_xlabel("tokens")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2)
    return to_data_uri(fig, "tokens-by-source")


@_styled
def mixture_chart(name: str, rows: list[tuple[str, int, int, int | None]]) -> str:
    """rows: (source, train tokens before mixing, after, target tokens or None): one pair of bars per source,
    the target as a tick."""
    fig = figure(WIDE, 0.42 * len(rows) + 0.9)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1].astype(float)
    before = np.array([r[1] for r in rows], float)
    after = np.array([r[2] for r in rows], float)
    ax.barh(y + 0.19, before, color="#a0aec0", label="before the mix", height=0.36)
    ax.barh(y - 0.19, after, color=KEPT, label="after the mix", height=0.36)
    for yi, b, a in zip(y, before, after):
        ax.text(a, yi - 0.19, f" {_si(a)} ({a / b:.2f}x)" if b else f" {_si(a)}", va="center", fontsize=7, color=INK)
    targets = [(yi, r[3]) for yi, r in zip(y, rows) if r[3] is not None]
    if targets:
        ax.scatter([t for _, t in targets], [yi - 0.19 for yi, _ in targets], marker="|", s=260, color=THRESH,
                   label="target", zorder=3)
    top = max([1.0, float(before.max(initial=0)), float(after.max(initial=0))] + [float(t) for _, t in targets])
    ax.set_xlim(0, top * 1.15)
    ax.xaxis.set_major_formatter(FuncFormatter(_si))
    ax.set_yticks(y, [r[0] for r in rows])
    ax.set_xlabel("train tokens")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3)
    return to_data_uri(fig, f"mixture-{name}")


@_styled
def score_chart(name: str, rows: list[tuple[str, np.ndarray]], threshold: float) -> str:
    """One line per group: the share of its scored documents in each score bin; the threshold dashed. A
    classifier that sorts by source or language shows as groups piled at opposite ends."""
    fig = figure(WIDE, 2.8)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["tab10"]
    for i, (label, hist) in enumerate(rows):
        total = hist.sum()
        if not total:
            continue
        edges = np.linspace(0, 1, len(hist) + 1)
        ax.stairs(hist / total, edges, color=cmap(i % 10), linewidth=1.3, label=f"{label} ({int(total):,})")
    if math.isfinite(threshold):
        ax.axvline(threshold, color=THRESH, linestyle="--", linewidth=1)
        ax.axvspan(0, threshold, color=DROPPED, alpha=0.06, linewidth=0)
    ax.set_xlim(0, 1)
    ax.set_xlabel("quality score (probability of the positive label)")
    ax.set_ylabel("share of the group")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_data_uri(fig, f"quality-{name}")
