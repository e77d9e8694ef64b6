"""The pii stage's scrub vs datatrove's PIIFormatter on the same Parquet parts, at 1 and 2 workers.

    python bench/pii_speed.py --work DIR [--input PARTS_DIR] [--workers 1 2] [--repeat 2]

Without --input, the parts are made from real text of the mirror (TinyStories, WikiText-2
paragraphs, GSM8K train, EnterprisePII passages, NLTK webtext in 10-line documents, and the
labelled PII documents of bench/pii_labelled.py), 2,000 documents per part as in the demo. Each
run is one `bench/peers_datatrove.py pii` process (block wall only: reading, scrubbing and writing
the parts; pool start-up and engine construction in the workers included, for both). Prints wall
times, docs/s and the ratio ours/datatrove (target: <= 3).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pii_labelled as pl
from common import BENCH, PY, mirror_dir, write_results

PART_DOCS = 2000


def real_texts(mirror: Path) -> list[str]:
    with zipfile.ZipFile(pl.mirror_path(mirror, pl.WEBTEXT)) as z:
        web = []
        for member in sorted(n for n in z.namelist() if n.endswith(".txt")):
            lines = [x for x in io.TextIOWrapper(z.open(member), encoding="latin-1").read().splitlines() if x.strip()]
            web += ["\n".join(lines[i:i + 10]) for i in range(0, len(lines), 10)]
    return (pl.tinystories(mirror) + pl.wikitext(mirror) + pl.gsm8k_train(mirror) + pl.enterprise_clean_passages(mirror)
            + web + [d["text"] for d in pl.labelled_set(mirror)])


def write_parts(texts: list[str], folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for k in range(0, len(texts), PART_DOCS):
        chunk = texts[k:k + PART_DOCS]
        ids = [f"bench:{k + i}" for i in range(len(chunk))]
        pq.write_table(pa.table({"id": ids, "text": chunk}), folder / f"part-{k // PART_DOCS:05d}.parquet")


def run(impl: str, workers: int, parts: Path, work: Path) -> dict:
    out = work / f"pii-{impl}-w{workers}.json"
    subprocess.run([PY, str(BENCH / "peers_datatrove.py"), "pii", "--impl", impl, "--workers", str(workers),
                    "--input", str(parts), "--work", str(work / f"{impl}-w{workers}"), "--json", str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--input", type=Path, help="folder of part-*.parquet with a text column")
    ap.add_argument("--mirror", type=Path, default=mirror_dir())
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=2, help="keep the fastest of this many runs")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    parts = args.input
    if parts is None:
        parts = args.work / "parts"
        if not any(parts.glob("part-*.parquet")):
            write_parts(real_texts(args.mirror), parts)
    rows = []
    for w in args.workers:
        best = {impl: min((run(impl, w, parts, args.work) for _ in range(args.repeat)), key=lambda r: r["wall_s"])
                for impl in ("ours", "datatrove")}
        o, t = best["ours"], best["datatrove"]
        rows.append({"workers": w, "docs": o["docs"], "text_mb": o["text_mb"], "ours_wall_s": o["wall_s"],
                     "datatrove_wall_s": t["wall_s"], "ours_docs_per_s": o["docs_per_s"],
                     "datatrove_docs_per_s": t["docs_per_s"], "ratio": o["wall_s"] / t["wall_s"],
                     "ours_docs_changed": o.get("docs_changed")})
    print(f"{'workers':>7} {'docs':>7} {'MB':>6} {'ours s':>7} {'dt s':>7} {'ours docs/s':>11} {'dt docs/s':>10} {'ratio':>6}")
    for r in rows:
        print(f"{r['workers']:7d} {r['docs']:7d} {r['text_mb']:6.1f} {r['ours_wall_s']:7.2f} {r['datatrove_wall_s']:7.2f} "
              f"{r['ours_docs_per_s']:11.0f} {r['datatrove_docs_per_s']:10.0f} {r['ratio']:6.2f}")
    write_results(args.json, {"parts": str(parts), "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
