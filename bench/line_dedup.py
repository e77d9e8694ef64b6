"""Dedup inside documents: our [dedup.spans] against datatrove's SentenceDedup (same documents, same
order), and planted boilerplate removed by [dedup.lines] and [dedup.spans].

    python bench/line_dedup.py --json bench/results/line-dedup-<date>-<commit>.json [--pages 6000]

Documents ("pages"): seeded, built from real text only — consecutive paragraphs of the demo ledger's
text sources and of the 55 shared web pages (trafilatura), 2 to 6 per page, with boilerplate planted:
one of 8 header blocks on 40% of the pages and one of 20 footer blocks on 40% (each block ~5% or ~2%
of the pages; a block is a real web paragraph of 3+ sentences ending in . ! or ?). The pages go through our normalize
stage (filters off), so both sides read the same texts; everything runs in id (byte) order, the
order our stage keeps by, and datatrove reads the documents in that order in one task.

Measured, in one run:
1. Agreement: the share of documents whose text after datatrove's 3 steps (SentenceDedupSignature,
   SentenceFindDedups, SentenceDedupFilter; n_sentences 3, min_doc_words 0, min_num_sentences 0, so a
   document is dropped only when emptied) equals ours (a dropped document equals a dropped one).
2. Speed: datatrove's 3 steps (in process, one task) against (a) our dedup stage end to end with only
   [dedup.spans] on (`run_stage`, 1 worker: id sort, partitioned phases, Parquet out) and (b) the same
   functions in process (corpus.dedup.units / lines: keys, first occurrences, edits), wall seconds.
3. Planted boilerplate: of the planted blocks' copies (every occurrence after the first), the share
   removed, and the share of the other paragraphs (lines) or sentences (spans) removed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import REPO, write_results

N_HEADERS, N_FOOTERS, P_HEADER, P_FOOTER = 8, 20, 0.4, 0.4


def paragraphs_of(text: str) -> list[str]:
    parts = [p.strip() for p in text.split("\n\n")] if "\n\n" in text else [p.strip() for p in text.split("\n")]
    return [p for p in parts if len(p) >= 40]


def build_pages(n_pages: int, seed: int) -> tuple[list[str], list[str]]:
    """(pages, the planted blocks)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from web_rules import documents

    from corpus.dedup.units import sentence_segments

    rng = random.Random(seed)
    sets = documents(None, 3000)
    web = [p for t in sets["web"] for p in paragraphs_of(t)]
    blocks = [p for p in web if len(sentence_segments(p)) >= 3 and len(p) < 600 and p[-1] in ".!?"]
    rng.shuffle(blocks)
    planted = blocks[:N_HEADERS + N_FOOTERS]
    chunks = []
    for text in sets["ledger"] + sets["web"]:
        ps = [p for p in paragraphs_of(text) if p not in planted]
        i = 0
        while i < len(ps):
            k = rng.randint(2, 6)
            chunks.append(ps[i:i + k])
            i += k
    rng.shuffle(chunks)
    pages = []
    for body in (chunks * (1 + n_pages // max(len(chunks), 1)))[:n_pages]:
        lines = list(body)
        if rng.random() < P_HEADER:
            lines.insert(0, planted[rng.randrange(N_HEADERS)])
        if rng.random() < P_FOOTER:
            lines.append(planted[N_HEADERS + rng.randrange(N_FOOTERS)])
        pages.append("\n\n".join(lines))
    return pages, planted


def normalized_corpus(pages: list[str], work: Path) -> tuple[Path, list[tuple[str, str]]]:
    """Our pipeline through filter (filters off) on the pages; returns the config's directory and the
    (id, text) of the filter output in id (byte) order."""
    import hashlib

    import pyarrow.parquet as pq

    from corpus.commands.pipeline import run_all
    from corpus.config import load_config

    sys.path.insert(0, str(REPO / "tests"))
    from conftest import write_config, write_ledger

    src = work / "pages.jsonl"
    src.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in pages), encoding="utf-8")
    data = src.read_bytes()
    ledger = write_ledger(work / "LEDGER.jsonl", [{"source_id": "pages", "role": "corpus", "url": str(src),
                                                   "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                                                   "license_spdx": "CC-BY-SA-3.0", "format": "jsonl"}])
    for unit in ("spans", "lines"):
        tables = {"decontam": {"evals": []}, "filters.lang": {"enabled": False},
                  "filters.gopher": {"enabled": False}, "filters.repetition": {"enabled": False},
                  "dedup": {"exact": False, "near": False, "url": False},
                  f"dedup.{unit}": {"enabled": True, **({"unit": "paragraph", "min_chars": 20} if unit == "lines" else {})}}
        write_config(work / f"{unit}.toml", ledger=ledger, sources=["pages"], artifacts=work / "art", **tables)
    cfg = load_config(work / "spans.toml")
    run_all(cfg, workers=1, through="filter")
    rows = [r for p in sorted(cfg.stage_dir("03-filter").glob("part-*.parquet"))
            for r in pq.read_table(p, columns=["id", "text"]).to_pylist()]
    rows.sort(key=lambda r: r["id"].encode())
    return work, [(r["id"], r["text"]) for r in rows]


def datatrove_spans(docs: list[tuple[str, str]], work: Path) -> tuple[float, dict[str, str | None]]:
    from datatrove.data import Document
    from datatrove.pipeline.dedup.sentence_dedup import (SentDedupConfig, SentenceDedupFilter,
                                                         SentenceDedupSignature, SentenceFindDedups)

    cfg = SentDedupConfig(n_sentences=3, split_sentences=True, min_doc_words=0, min_num_sentences=0)
    sig, dups = work / "dt-sigs", work / "dt-dups"
    steps = (SentenceDedupSignature(output_folder=str(sig), config=cfg),
             SentenceFindDedups(data_folder=str(sig), output_folder=str(dups), config=cfg),
             SentenceDedupFilter(data_folder=str(dups), config=cfg))
    assert steps[0].tokenizer.tokenizer is not None  # the spaCy pipeline loaded before the clock starts (a one-time cost)
    t0 = time.perf_counter()
    steps[0].run(iter([Document(text=t, id=i) for i, t in docs]), rank=0, world_size=1)
    steps[1].run(rank=0, world_size=1)
    out = {d.id: d.text for d in steps[2].run(iter([Document(text=t, id=i) for i, t in docs]), rank=0, world_size=1)}
    wall = time.perf_counter() - t0
    return wall, {i: out.get(i) for i, _ in docs}


def ours_in_process(docs: list[tuple[str, str]], unit: str = "span", min_chars: int = 0) -> tuple[float, dict]:
    """The stage's functions without its I/O: keys per document, first occurrences, edits."""
    from corpus.dedup.lines import UNIT_REC, first_occurrences
    from corpus.dedup.units import edited, keys_array, removed_segments, segments, unit_keys

    t0 = time.perf_counter()
    recs = []
    for row, (_, text) in enumerate(docs):
        k = keys_array(unit_keys(text, unit, min_chars, 3))
        r = np.empty(len(k), UNIT_REC)
        r["hi"], r["lo"], r["pos"], r["row"], r["local"] = k["hi"], k["lo"], k["pos"], row, row
        recs.append(r)
    rec = np.concatenate(recs)
    order, keeper = first_occurrences(rec)
    copies: dict[int, list[int]] = {}
    for row, pos in zip(rec["row"][order][keeper >= 0].tolist(), rec["pos"][order][keeper >= 0].tolist()):
        copies.setdefault(row, []).append(pos)
    out = {}
    for row, (doc_id, text) in enumerate(docs):
        if row in copies:
            segs = segments(text, unit)
            new = edited(text, segs, removed_segments(len(segs), sorted(copies[row]), unit, 3), unit)
            out[doc_id] = new if new.strip() else None
        else:
            out[doc_id] = text
    return time.perf_counter() - t0, out


def ours_stage(work: Path, unit: str) -> tuple[float, dict, dict]:
    import pyarrow.parquet as pq

    from corpus.config import load_config
    from corpus.stages import run_stage

    cfg = load_config(work / f"{unit}.toml")
    t0 = time.perf_counter()
    result = run_stage("dedup", cfg, workers=1, force=True)
    wall = time.perf_counter() - t0
    kept = {r["id"]: r["text"] for p in sorted(cfg.stage_dir("04-dedup").glob("part-*.parquet"))
            for r in pq.read_table(p, columns=["id", "text"]).to_pylist()}
    return wall, kept, result.manifest["counts"]


def planted_removal(docs: list[tuple[str, str]], after: dict, planted: list[str], unit: str) -> dict:
    """Planted copies removed (every occurrence after the first, by id), and the other units (paragraphs
    for lines, sentences for spans) removed: those seen before in an earlier place (real copies: the
    bodies are real text, some of it repeated) and those never seen before (false removals; for spans a
    sentence can go with a copied span it belongs to, which is counted here too)."""
    from corpus.dedup.units import sentence_segments, simplify

    blocks = set(planted)
    seen: set[str] = set()
    copies = removed = others = seen_removed = unseen_removed = 0
    for doc_id, text in docs:
        new = after.get(doc_id) or ""
        for p in text.split("\n\n"):
            if p in blocks:
                copies += p in seen
                removed += p in seen and p not in new
                seen.add(p)
                continue
            pieces = [p] if unit == "lines" else [p[a:b].strip() for a, b in sentence_segments(p)]
            for s in pieces:
                key = s if unit == "lines" else simplify(s)
                if not key:
                    continue
                others += 1
                if s not in new:
                    seen_removed += key in seen
                    unseen_removed += key not in seen
                seen.add(key)
    return {"planted_copies": copies, "planted_removed": removed, "planted_removed_share": removed / max(copies, 1),
            "other_units": others, "other_removed_seen_before": seen_removed,
            "other_removed_never_seen_before": unseen_removed,
            "other_removed_share": (seen_removed + unseen_removed) / max(others, 1),
            "false_removal_share": unseen_removed / max(others, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=None, help="work dir (default: a temporary one, removed)")
    a = ap.parse_args(argv)
    work = a.work or Path(tempfile.mkdtemp(prefix="line-dedup-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        pages, planted = build_pages(a.pages, a.seed)
        _, docs = normalized_corpus(pages, work)
        dt_wall, theirs = datatrove_spans(docs, work)
        ip_wall, mine = ours_in_process(docs)
        st_wall, staged, counts = ours_stage(work, "spans")
        staged_all = {i: staged.get(i) for i, _ in docs}
        same = sum(theirs[i] == staged_all[i] for i, _ in docs)
        same_ip = sum(theirs[i] == mine[i] for i, _ in docs)
        differing = [i for i, _ in docs if theirs[i] != staged_all[i]]
        ln_wall, lines_kept, ln_counts = ours_stage(work, "lines")
        res = {
            "documents": len(docs), "chars": sum(len(t) for _, t in docs),
            "planted_blocks": len(planted), "changed_by_datatrove": sum(theirs[i] != t for i, t in docs),
            "agreement": {"identical_docs": same, "share": same / len(docs), "in_process_identical": same_ip,
                          "stage_equals_in_process": sum(mine[i] == staged_all[i] for i, _ in docs),
                          "differing_ids": differing[:20]},
            "speed": {"datatrove_s": dt_wall, "ours_stage_s": st_wall, "ours_in_process_s": ip_wall,
                      "speedup_stage": dt_wall / st_wall, "speedup_in_process": dt_wall / ip_wall,
                      "lines_stage_s": ln_wall},
            "planted_spans": planted_removal(docs, staged_all, planted, "spans"),
            "planted_spans_datatrove": planted_removal(docs, theirs, planted, "spans"),
            "planted_lines": planted_removal(docs, {i: lines_kept.get(i) for i, _ in docs}, planted, "lines"),
            "counts_spans": counts.get("units_removed"), "counts_lines": ln_counts.get("units_removed"),
        }
        write_results(a.json, res)
        print(json.dumps(res, indent=1, ensure_ascii=False))
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
