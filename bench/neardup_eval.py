"""Near-duplicate detection quality and speed on articles_1000 (planted near-duplicate pairs).

Runs the stage-04 building blocks end to end -- MinHasher signatures and shingle sets -> band_keys ->
per-band candidate_pairs -> verify.verified_edges (exact Jaccard) -> cluster_roots -- with the default
banding (DEFAULT_BANDS bands of DEFAULT_NUM_PERM / DEFAULT_BANDS rows), and scores the found pairs (every
pair inside a found cluster) against articles_1000.truth at several Jaccard thresholds. The planted
pairs here sit at Jaccard ~0.96; bench/neardup_truth.py is the evaluation near the thresholds. datasketch's own MinHashLSH
(threshold 0.8, num_perm 128, default MinHash) is run as a reference; its pairs are its raw query results.

Each line of the .train file is 'tID text'; the document is the text after the first space.

    python bench/neardup_eval.py                         # files from the mirror (CORPUS_MIRROR)
    python bench/neardup_eval.py --json out.json --scale 1000000

--scale N also measures the global step's memory on N synthetic documents (one band's keys at a time,
row ids, roots, candidate and confirmed edges) with tracemalloc, reported as bytes per document.
Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
from datasketch import MinHash, MinHashLSH

from common import best_seconds, mirror_dir, write_results
from corpus.dedup.minhash import DEFAULT_BANDS, DEFAULT_NUM_PERM, MinHasher, band_keys, candidate_pair_batches, shingles
from corpus.dedup.verify import signatures_and_sets, verified_edges
from corpus.dedup.unionfind import cluster_roots, edges_across_clusters, pairs_within_clusters

ARTICLES_1000 = "b0278e9b85053bcca217ed2469deed97fda19698a3d007d1d13fcce935397579"
ARTICLES_1000_TRUTH = "73f6d6629c27bfcd2a240b3d780559752156dc13ee8fa5e3853387178e616ad1"
THRESHOLDS = (0.5, 0.7, 0.8)
BANDS = DEFAULT_BANDS
Pair = tuple[str, str]


def read_articles(path: Path) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        doc_id, text = line.split(" ", 1)
        ids.append(doc_id)
        texts.append(text)
    return ids, texts


def read_truth(path: Path) -> set[frozenset[str]]:
    return {frozenset(line.split()) for line in path.read_text().splitlines() if line.strip()}


def scores(found: set[frozenset[str]], truth: set[frozenset[str]]) -> dict[str, float]:
    true_positives = len(found & truth)
    precision = true_positives / len(found) if found else 1.0
    recall = true_positives / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"pairs_found": len(found), "true_positives": true_positives,
            "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def global_step(keys_of_band, count: int, sets, threshold: float) -> tuple[np.ndarray, dict[str, int]]:
    """The global step: one band at a time, one bucket offset at a time; verify (exact Jaccard of the
    shingle sets) only the edges that would join two clusters. keys_of_band(band) -> (count,) keys."""
    row_ids = np.arange(count, dtype=np.uint32)
    roots = np.arange(count, dtype=np.int64)
    candidates = confirmed = 0
    for band in range(BANDS):
        for edges in candidate_pair_batches(keys_of_band(band), row_ids):
            candidates += len(edges)
            edges = verified_edges(edges_across_clusters(edges, roots), sets, threshold)
            confirmed += len(edges)
            roots = cluster_roots(count, edges, roots=roots)
    return roots, {"candidate_edges": candidates, "confirmed_edges": confirmed}


def cluster(sigs: np.ndarray, sets, threshold: float) -> tuple[np.ndarray, dict[str, int]]:
    keys = band_keys(sigs, BANDS)
    return global_step(lambda band: keys[:, band], len(sigs), sets, threshold)


def evaluate_ours(ids: list[str], texts: list[str], truth: set[frozenset[str]], repeat: int) -> dict:
    hasher = MinHasher()  # DEFAULT_NUM_PERM perms, seed 1, 5-word shingles, affine32, poly64 shingle hash
    hasher.signatures(texts[:10])  # warm the power tables
    signature_seconds = best_seconds(lambda: hasher.signatures(texts), repeat)
    sha1_seconds = best_seconds(lambda: MinHasher(shingle_hash="sha1").signatures(texts), repeat)
    results = {"signature_docs_per_s": round(len(texts) / signature_seconds),
               "signature_docs_per_s_sha1": round(len(texts) / sha1_seconds), "thresholds": {}}
    for threshold in THRESHOLDS:
        start = time.perf_counter()
        sigs, sets = signatures_and_sets(hasher, texts)
        roots, counts = cluster(sigs, sets, threshold)
        wall = time.perf_counter() - start
        found = {frozenset((ids[a], ids[b])) for a, b in pairs_within_clusters(roots)}
        results["thresholds"][str(threshold)] = {**scores(found, truth), **counts, "total_wall_s": round(wall, 4)}
    return results


def evaluate_datasketch(ids: list[str], texts: list[str], truth: set[frozenset[str]]) -> dict:
    start = time.perf_counter()
    sketches = []
    for text in texts:
        sketch = MinHash(num_perm=128)
        sketch.update_batch(shingles(text))
        sketches.append(sketch)
    signature_seconds = time.perf_counter() - start
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    for doc_id, sketch in zip(ids, sketches):
        lsh.insert(doc_id, sketch)
    found = {frozenset((doc_id, other)) for doc_id, sketch in zip(ids, sketches)
             for other in lsh.query(sketch) if other != doc_id}
    wall = time.perf_counter() - start
    return {"threshold": 0.8, "bands_rows": [lsh.b, lsh.r],
            **scores(found, truth), "signature_docs_per_s": round(len(texts) / signature_seconds),
            "total_wall_s": round(wall, 4)}


class SyntheticSets:
    """Stands in for shingle sets memory-mapped from disk: documents of one duplicate group have the same
    200-hash set, different groups disjoint ones (sorted, distinct, like verify.ShingleSets)."""

    SIZE = 200

    def __init__(self, group: np.ndarray) -> None:
        self.group = group

    def sizes(self, rows: np.ndarray) -> np.ndarray:
        return np.full(len(rows), self.SIZE, dtype=np.int64)

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        base = (self.group[np.asarray(rows)].astype(np.uint64) % np.uint64(1 << 23)) << np.uint64(8)
        flat = (base[:, None] + np.arange(self.SIZE, dtype=np.uint64)).astype(np.uint32).ravel()
        return flat, self.sizes(rows)


def global_step_memory(count: int, duplicate_fraction: float = 0.05, giant_bucket_fraction: float = 0.0,
                       seed: int = 0) -> dict:
    """Peak traced bytes per document of the global step on `count` synthetic documents.

    A `duplicate_fraction` of documents copy another document's signature; a `giant_bucket_fraction`
    share one signature (boilerplate). Counted: row ids (4 B), roots (8 B), one band's keys (8 B) per
    document, and every temporary of the step; the signatures stand in for a memory map of disk.
    """
    rng = np.random.default_rng(seed)
    group = np.arange(count, dtype=np.int64)
    duplicates = rng.choice(count, int(count * duplicate_fraction), replace=False)
    group[duplicates] = rng.choice(count, len(duplicates))  # each joins some other document's group
    group[rng.choice(count, int(count * giant_bucket_fraction), replace=False)] = count  # one giant group
    sets = SyntheticSets(group)

    def keys_of_band(band: int) -> np.ndarray:
        return ((group.astype(np.uint64) + np.uint64(band + 1)) * np.uint64(0xD6E8FEB86659FD93)) ^ np.uint64(band)

    tracemalloc.start()
    start = time.perf_counter()
    roots, counts = global_step(keys_of_band, count, sets, 0.8)
    wall = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # keys_of_band's own temporaries (8 B/doc: group as uint64) are counted too: an overestimate.
    return {"documents": count, "duplicate_fraction": duplicate_fraction,
            "giant_bucket_fraction": giant_bucket_fraction, "clusters": int(len(np.unique(roots))),
            "clusters_expected": int(len(np.unique(group))), **counts, "peak_bytes": int(peak),
            "bytes_per_doc": round(peak / count, 1), "wall_s": round(wall, 2)}


def print_table(ours: dict, reference: dict) -> None:
    print(f"{'method':<32} {'thr':>4} {'found':>6} {'P':>6} {'R':>6} {'F1':>6} {'wall s':>7}")
    for threshold, row in ours["thresholds"].items():
        print(f"{f'corpus ({BANDS}x{DEFAULT_NUM_PERM // BANDS} bands, exact)':<32} {threshold:>4} {row['pairs_found']:>6} {row['precision']:>6.3f} "
              f"{row['recall']:>6.3f} {row['f1']:>6.3f} {row['total_wall_s']:>7.3f}")
    print(f"{'datasketch MinHashLSH':<32} {reference['threshold']:>4} {reference['pairs_found']:>6} "
          f"{reference['precision']:>6.3f} {reference['recall']:>6.3f} {reference['f1']:>6.3f} {reference['total_wall_s']:>7.3f}")
    print(f"signatures docs/s: corpus poly64 {ours['signature_docs_per_s']}, corpus sha1 "
          f"{ours['signature_docs_per_s_sha1']}, datasketch per-document {reference['signature_docs_per_s']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", type=Path, default=None, help="articles_1000.train (default: from the mirror)")
    parser.add_argument("--truth", type=Path, default=None, help="articles_1000.truth (default: from the mirror)")
    parser.add_argument("--repeat", type=int, default=3, help="signature timing: best of this many runs")
    parser.add_argument("--scale", type=int, default=0, help="also measure global-step bytes/doc on N synthetic docs")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)

    ids, texts = read_articles(args.train or mirror_dir() / ARTICLES_1000)
    truth = read_truth(args.truth or mirror_dir() / ARTICLES_1000_TRUTH)
    ours = evaluate_ours(ids, texts, truth, args.repeat)
    reference = evaluate_datasketch(ids, texts, truth)
    print(f"{len(texts)} documents, {len(truth)} planted pairs")
    print_table(ours, reference)
    figures = {"documents": len(texts), "truth_pairs": len(truth), "ours": ours, "datasketch_lsh": reference}
    if args.scale:
        figures["global_step_memory"] = runs = [global_step_memory(args.scale),
                                                global_step_memory(args.scale, giant_bucket_fraction=0.2)]
        for memory in runs:
            print(f"global step on {memory['documents']} synthetic docs ({memory['duplicate_fraction']:.0%} "
                  f"duplicated, {memory['giant_bucket_fraction']:.0%} in one bucket): peak {memory['bytes_per_doc']} "
                  f"B/doc ({memory['peak_bytes'] / 2**20:.0f} MiB), {memory['wall_s']} s, clusters "
                  f"{memory['clusters']} (expected {memory['clusters_expected']})")
    write_results(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
