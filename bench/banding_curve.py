"""P(candidate | s) = 1 - (1 - s^r)^b for LSH bandings: a Markdown table and an SVG plot.

    python bench/banding_curve.py                                   # the table, old vs new default
    python bench/banding_curve.py --svg docs/dedup-banding.svg --bandings 16x8 20x5 32x4

The curves are dedup/banding.candidate_probability; the default bandings are 16x8 (before exact
verification) and the current DEFAULT_BANDS x (DEFAULT_NUM_PERM / DEFAULT_BANDS).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from corpus.dedup.banding import candidate_probability, probability_table
from corpus.dedup.minhash import DEFAULT_BANDS, DEFAULT_NUM_PERM

SIMILARITIES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
COLOURS = ("#888888", "#d62728", "#1f77b4", "#2ca02c", "#9467bd")


def svg(bandings: list[tuple[int, int]], threshold: float = 0.8, width: int = 560, height: int = 360) -> str:
    left, right, top, bottom = 50, 150, 20, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    x = lambda s: left + s * plot_w  # noqa: E731
    y = lambda p: top + (1 - p) * plot_h  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#000"/>']
    for tick in np.linspace(0, 1, 11):
        out.append(f'<line x1="{x(tick):.1f}" y1="{top + plot_h}" x2="{x(tick):.1f}" y2="{top + plot_h + 4}" stroke="#000"/>')
        out.append(f'<text x="{x(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{tick:.1f}</text>')
        out.append(f'<line x1="{left - 4}" y1="{y(tick):.1f}" x2="{left}" y2="{y(tick):.1f}" stroke="#000"/>')
        out.append(f'<text x="{left - 7}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
    out.append(f'<line x1="{x(threshold):.1f}" y1="{top}" x2="{x(threshold):.1f}" y2="{top + plot_h}" stroke="#aaa" stroke-dasharray="4 3"/>')
    out.append(f'<line x1="{left}" y1="{y(0.995):.1f}" x2="{left + plot_w}" y2="{y(0.995):.1f}" stroke="#aaa" stroke-dasharray="2 3"/>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">exact Jaccard s of a pair</text>')
    out.append(f'<text x="12" y="{top + plot_h / 2:.1f}" transform="rotate(-90 12 {top + plot_h / 2:.1f})" '
               f'text-anchor="middle">P(candidate | s)</text>')
    s = np.linspace(0, 1, 201)
    for k, (bands, rows) in enumerate(bandings):
        colour = COLOURS[k % len(COLOURS)]
        points = " ".join(f"{x(a):.1f},{y(p):.1f}" for a, p in zip(s, candidate_probability(s, bands, rows)))
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        p = candidate_probability(threshold, bands, rows)
        out.append(f'<text x="{left + plot_w + 10}" y="{top + 14 + 16 * k}" fill="{colour}">'
                   f'{bands}×{rows}: {p:.4f} at {threshold}</text>')
    out.append(f'<text x="{left + plot_w + 10}" y="{top + 14 + 16 * len(bandings) + 8}" fill="#888">dashed: s = {threshold},</text>')
    out.append(f'<text x="{left + plot_w + 10}" y="{top + 14 + 16 * len(bandings) + 22}" fill="#888">P = 0.995</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bandings", nargs="*", default=["16x8", f"{DEFAULT_BANDS}x{DEFAULT_NUM_PERM // DEFAULT_BANDS}"])
    parser.add_argument("--svg", type=Path, default=None, help="also write the curves as an SVG here")
    args = parser.parse_args(argv)
    bandings = [tuple(int(v) for v in b.lower().split("x")) for b in args.bandings]
    print(probability_table(bandings, SIMILARITIES))
    if args.svg:
        args.svg.parent.mkdir(parents=True, exist_ok=True)
        args.svg.write_text(svg(bandings))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
