"""Near-dedup quality against an exact ground truth built here: every pair's word-5-gram Jaccard.

The data (~9k documents, deterministic for a --seed) is real text from the mirror where near-threshold
pairs occur naturally, plus seeded edits of real documents:
  news      articles_1000 (with its planted pairs), Lee background (300 Australian news articles), ABC
            rural and science news (one sentence per line, cut into articles at headline lines)
  wiki      WikiText-2 test paragraphs (>= 40 words)
  stories   TinyStories train head (1,097 stories; templated, so many pairs at Jaccard 0.2-0.6)
  gsm8k     GSM8K train and test question + answer (short, templated problems)
  edits     variants of real news/wiki/story documents made by seeded word substitutions, insertions,
            deletions and sentence swaps, each searched to a target Jaccard with its parent spread over
            0.6-0.97, most of them within +-0.03 of 0.7, 0.8 or 0.9; some are variants of variants
            (chains), and a few bases get 20-40 variants (buckets larger than the candidate window)
Documents are shuffled (seeded) and numbered 0..N-1, the number being the id (keep-smallest-id).

Truth: an exact similarity join (prefix filtering over shingles ordered rarest first, then an exact
set intersection) of the reference shingle *strings* (minhash.shingles: no hashing at all) at
Jaccard >= 0.6; thresholds 0.7/0.8/0.9 select from it. Pair level compares the pairs inside found
clusters with the pairs inside the connected components of the truth graph (Jaccard >= t); document
level compares the removed sets (every document that is not the smallest id of its component), which
is what stage 04 drops. "raw pair recall" is the share of truth pairs (Jaccard >= t) whose documents
end up in one found cluster.

Methods: "old" = the stage before verify.py (128 perms, 16 bands x 8 rows, MinHash-estimate
confirmation); "new" = verify.py's exact verification with the new default banding; two ablations
(old banding + exact, new banding + estimate); datasketch's MinHashLSH (128 perms, its own b x r for
each threshold, raw query results clustered). All runs share one signature/global-step code path.

    python bench/neardup_truth.py --json bench/results/neardup_truth.json
    python bench/neardup_truth.py --bandings 20x5 25x5 18x6 32x4 16x5     # cost/recall of other bandings

Also measured: the time of the global step and the share of exact verification in it (and in the
whole dedup compute, signatures included); stored shingle sets vs re-shingling the candidates' texts;
set bytes per document; and 32-bit hash collisions (pairs whose hashed Jaccard differs from the
string Jaccard). Not a test: the timings depend on the machine.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import random
import re
import time
import zipfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from corpus.dedup.banding import candidate_probability
from corpus.dedup.minhash import (DEFAULT_BANDS, DEFAULT_BUCKET_WINDOW, DEFAULT_NUM_PERM, MinHasher, band_keys,
                                  _TEXT_BATCH_CHARS, batches_by_size, candidate_pair_batches, confirmed_edges,
                                  shingle_hashes, shingles)
from corpus.dedup.unionfind import cluster_roots, edges_across_clusters, pairs_within_clusters
from corpus.dedup.verify import exact_overlaps, sets_from_hashes, shingle_sets, signatures_and_sets, verified_edges

# bench/common.py is imported inside the functions that use it, not here: tests/test_verify.py loads this
# file by its path (for similarity_join) without bench/ on sys.path.
FILES = {
    "articles_1000": "b0278e9b85053bcca217ed2469deed97fda19698a3d007d1d13fcce935397579",
    "lee": "5d78d6dafd953bbf65797bef09a9ffb9ec430583381be705f8fd460000f370fb",
    "abc": "129bb6001beb828049a90a59b7dd3c2f0594a47012e48fc5177dfae38e658565",
    "wikitext2": "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c",
    "tinystories": "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5",
    "gsm8k_train": "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465",
    "gsm8k_test": "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
}
THRESHOLDS = (0.7, 0.8, 0.9)
JOIN_THRESHOLD = 0.6
NGRAM = 5
OLD_BANDING = (16, 8)


# ---------------------------------------------------------------------------------------------
# The data


def _abc_articles(data: bytes) -> list[str]:
    """ABC news: one sentence per line; a line without final punctuation starts a new article."""
    articles: list[str] = []
    archive = zipfile.ZipFile(io.BytesIO(data))
    for name, encoding in (("abc/rural.txt", "utf-8"), ("abc/science.txt", "latin-1")):
        current: list[str] = []
        for line in archive.read(name).decode(encoding).splitlines():
            line = line.strip()
            if not line:
                continue
            if not re.search(r"[.!?\"')]$", line) and current:
                articles.append(" ".join(current))
                current = []
            current.append(line)
        if current:
            articles.append(" ".join(current))
    return articles


def real_documents(mirror: Path, rng: random.Random, news_only: bool = False) -> list[tuple[str, str]]:
    """(source, text) of the real documents, a seeded sample where a source is large; news_only: the
    news sources alone, every ABC article (a stand-in for a held-out news corpus)."""
    read = lambda key: (mirror / FILES[key]).read_bytes()  # noqa: E731
    docs: list[tuple[str, str]] = []
    docs += [("news:articles_1000", line.split(" ", 1)[1]) for line in read("articles_1000").decode().splitlines()]
    docs += [("news:lee", line) for line in read("lee").decode().splitlines() if line.strip()]
    abc = [a for a in _abc_articles(read("abc")) if len(a.split()) >= 40]
    docs += [("news:abc", a) for a in (abc if news_only else rng.sample(abc, min(1500, len(abc))))]
    if news_only:
        return docs
    wiki = [line.strip() for line in read("wikitext2").decode().split("\r\n")]
    docs += [("wiki", p) for p in wiki if len(p.split()) >= 40 and not p.startswith("=")]
    stories = re.split(r"(?<=[^\n])\n(?=[^\n])", read("tinystories").decode())
    docs += [("stories", s.strip()) for s in stories if s.strip()]
    for key, count in (("gsm8k_train", 1500), ("gsm8k_test", 500)):
        rows = [json.loads(line) for line in read(key).decode().splitlines() if line.strip()]
        docs += [(f"gsm8k:{key[6:]}", r["question"] + "\n" + r["answer"]) for r in rng.sample(rows, count)]
    return docs


def shingle_set(text: str) -> set[bytes]:
    return set(shingles(text, NGRAM))


def jaccard_strings(a: set, b: set) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def _edit_ops(rng: random.Random, count: int, vocabulary: list[str]) -> list[tuple]:
    ops = []
    for _ in range(count):
        kind = rng.choices(("sub", "ins", "del", "swap"), weights=(4, 2, 2, 1))[0]
        ops.append((kind, rng.random(), rng.random(), rng.choice(vocabulary)))
    return ops


def _apply(words: list[str], ops: list[tuple]) -> list[str]:
    """Apply edit operations in order; positions are fractions of the current length (deterministic)."""
    words = list(words)
    for kind, u, v, word in ops:
        if len(words) < 2:
            break
        i = int(u * len(words))
        if kind == "sub":
            words[i] = word
        elif kind == "ins":
            words.insert(i, word)
        elif kind == "del":
            del words[i]
        else:  # swap two sentences (runs of words ending in . ! ?)
            ends = [k + 1 for k, w in enumerate(words) if w[-1:] in ".!?"]
            bounds = [0] + [e for e in ends if e < len(words)] + [len(words)]
            if len(bounds) < 3:
                continue
            a, b = sorted((int(u * (len(bounds) - 1)), int(v * (len(bounds) - 1))))
            if a == b:
                continue
            s1, s2 = words[bounds[a]:bounds[a + 1]], words[bounds[b]:bounds[b + 1]]
            words = words[:bounds[a]] + s2 + words[bounds[a + 1]:bounds[b]] + s1 + words[bounds[b + 1]:]
    return words


def edited_variant(text: str, target: float, rng: random.Random, vocabulary: list[str]) -> tuple[str, float]:
    """A variant of `text` whose shingle Jaccard with it is as close to `target` as the edits allow:
    a binary search over the length of one seeded edit sequence (Jaccard falls as edits accumulate)."""
    words = text.split()
    base = shingle_set(text)
    ops = _edit_ops(rng, max(8, len(words)), vocabulary)
    lo, hi = 0, len(ops)
    best = (text, 1.0)
    while lo < hi:
        mid = (lo + hi) // 2
        candidate = " ".join(_apply(words, ops[:mid + 1]))
        j = jaccard_strings(base, shingle_set(candidate))
        if abs(j - target) < abs(best[1] - target):
            best = (candidate, j)
        if j > target:
            lo = mid + 1
        else:
            hi = mid
    return best


def _target(rng: random.Random) -> float:
    if rng.random() < 0.75:
        return rng.choice((0.7, 0.8, 0.9)) + rng.uniform(-0.03, 0.03)
    return rng.uniform(0.6, 0.97)


def build_dataset(mirror: Path, seed: int = 0, edits: int = 1800, big_clusters: int = 3,
                  news_only: bool = False) -> tuple[list[str], list[str]]:
    """(texts, sources), shuffled; the index is the document id."""
    rng = random.Random(seed)
    docs = real_documents(mirror, rng, news_only)
    vocabulary = sorted({w for _, t in docs[:3000] for w in t.split() if w.isalpha()})
    bases = [i for i, (source, text) in enumerate(docs)
             if source.split(":")[0] in ("news", "wiki", "stories") and len(text.split()) >= 80]
    made: list[tuple[str, str]] = []
    for _ in range(edits):
        if made and rng.random() < 0.25:
            parent = rng.choice(made)[1]  # a variant of a variant: chains
        else:
            parent = docs[rng.choice(bases)][1]
        text, _ = edited_variant(parent, _target(rng), rng, vocabulary)
        made.append(("edits", text))
    for _ in range(big_clusters):  # more members than the candidate window: one bucket of 20-40
        parent = docs[rng.choice(bases)][1]
        for _ in range(rng.randint(20, 40)):
            text, _ = edited_variant(parent, rng.uniform(0.75, 0.98), rng, vocabulary)
            made.append(("edits:big", text))
    everything = docs + made
    rng.shuffle(everything)
    return [t for _, t in everything], [s for s, _ in everything]


# ---------------------------------------------------------------------------------------------
# The exact similarity join


def similarity_join(sets: list[set], threshold: float) -> dict[tuple[int, int], tuple[int, int]]:
    """{(i, j): (shared, union)} for every pair i < j with Jaccard >= threshold, exactly.

    Prefix filtering (Chaudhuri et al. 2006; Bayardo et al. 2007's all-pairs): order every set by
    global token frequency, rarest first; two sets with Jaccard >= t share a token among the first
    |x| - ceil(t |x|) + 1 of each. Sets are processed by increasing size and indexed by their prefix,
    with the length filter |y| >= t |x|; every candidate is verified by exact set intersection.
    Empty sets take part in no pair.
    """
    frequency: dict = defaultdict(int)
    for s in sets:
        for token in s:
            frequency[token] += 1
    rank = {token: r for r, token in enumerate(sorted(frequency, key=lambda t: (frequency[t], t)))}
    ordered = [sorted(rank[t] for t in s) for s in sets]
    as_sets = [set(o) for o in ordered]
    index: dict[int, list[int]] = defaultdict(list)
    result: dict[tuple[int, int], tuple[int, int]] = {}
    for x in sorted(range(len(sets)), key=lambda i: (len(ordered[i]), i)):
        size = len(ordered[x])
        if size == 0:
            continue
        prefix = size - math.ceil(threshold * size - 1e-9) + 1
        seen: set[int] = set()
        for token in ordered[x][:prefix]:
            for y in index[token]:
                if y in seen:
                    continue
                seen.add(y)
                if len(ordered[y]) < threshold * size - 1e-9:
                    continue
                shared = len(as_sets[x] & as_sets[y])
                union = size + len(ordered[y]) - shared
                if shared / union >= threshold:
                    result[(min(x, y), max(x, y))] = (shared, union)
            index[token].append(x)
    return result


def brute_force_join(sets: list[set], threshold: float) -> dict[tuple[int, int], tuple[int, int]]:
    """Every pair checked (quadratic): the reference similarity_join is tested against."""
    result = {}
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            if sets[i] and sets[j]:
                shared = len(sets[i] & sets[j])
                union = len(sets[i]) + len(sets[j]) - shared
                if shared / union >= threshold:
                    result[(i, j)] = (shared, union)
    return result


# ---------------------------------------------------------------------------------------------
# Methods and scores


def components(n: int, pairs) -> np.ndarray:
    edges = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    return cluster_roots(n, edges)


def cluster_pairs(roots: np.ndarray) -> set[tuple[int, int]]:
    return pairs_within_clusters(roots)


def removed(roots: np.ndarray) -> set[int]:
    return set(np.flatnonzero(roots != np.arange(len(roots))).tolist())


def prf(found: set, truth: set) -> dict:
    tp = len(found & truth)
    p = tp / len(found) if found else 1.0
    r = tp / len(truth) if truth else 1.0
    return {"found": len(found), "truth": len(truth), "tp": tp, "precision": round(p, 4), "recall": round(r, 4),
            "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0}


def score(roots: np.ndarray, truth_roots: np.ndarray, truth_pairs: set) -> dict:
    same = roots[np.array(sorted(truth_pairs), dtype=np.int64).reshape(-1, 2)] if truth_pairs else np.zeros((0, 2))
    raw_recall = float(np.mean(same[:, 0] == same[:, 1])) if len(same) else 1.0
    return {"pair": prf(cluster_pairs(roots), cluster_pairs(truth_roots)),
            "document": prf(removed(roots), removed(truth_roots)), "raw_pair_recall": round(raw_recall, 4)}


def global_step(keys: np.ndarray, confirm, n: int, window: int = DEFAULT_BUCKET_WINDOW) -> tuple[np.ndarray, dict]:
    """stage 04's near_roots at function level: one band at a time, one bucket offset at a time,
    only edges that would join two clusters are confirmed; confirm(edges) -> confirmed edges."""
    roots = np.arange(n, dtype=np.int64)
    stats = {"candidates": 0, "confirmed_input": 0, "confirmed": 0, "candidate_s": 0.0, "confirm_s": 0.0,
             "union_find_s": 0.0}
    for band in range(keys.shape[1]):
        t0 = time.perf_counter()
        for edges in candidate_pair_batches(keys[:, band], None, window=window):
            stats["candidates"] += len(edges)
            edges = edges_across_clusters(edges, roots)
            stats["confirmed_input"] += len(edges)
            t2 = time.perf_counter()
            edges = confirm(edges)
            t3 = time.perf_counter()
            stats["confirmed"] += len(edges)
            roots = cluster_roots(n, edges, roots=roots)
            t4 = time.perf_counter()
            stats["candidate_s"] += t2 - t0
            stats["confirm_s"] += t3 - t2
            stats["union_find_s"] += t4 - t3
            t0 = time.perf_counter()
        stats["candidate_s"] += time.perf_counter() - t0
    stats["total_s"] = stats["candidate_s"] + stats["confirm_s"] + stats["union_find_s"]
    return roots, {k: round(v, 4) if isinstance(v, float) else v for k, v in stats.items()}


def parse_banding(text: str) -> tuple[int, int]:
    bands, rows = text.lower().split("x")
    return int(bands), int(rows)


def run_method(texts: list[str], banding: tuple[int, int], verify: str, threshold: float, cache: dict,
               repeat: int = 1) -> tuple[np.ndarray, dict]:
    """One method at one threshold; timings are the best of `repeat` runs (signatures: of cache["repeat"])."""
    from common import best_seconds

    bands, rows = banding
    num_perm = bands * rows
    if num_perm not in cache:
        hasher = MinHasher(num_perm=num_perm)
        sigs = hasher.signatures(texts)
        _, sets = signatures_and_sets(hasher, texts)
        repeat_sig = cache.get("repeat", 1)
        sig_s = best_seconds(lambda: hasher.signatures(texts), repeat_sig)
        both_s = best_seconds(lambda: signatures_and_sets(hasher, texts), repeat_sig)
        # The sets' own work (sorting each document's hashes), timed alone: the difference of the two
        # timings above is within the noise of a shared machine.
        hashed = [shingle_hashes(texts[a:b], NGRAM) for a, b in batches_by_size(texts, _TEXT_BATCH_CHARS)]
        build_s = best_seconds(lambda: [sets_from_hashes(h, c) for h, c in hashed], repeat_sig)
        cache[num_perm] = {"sigs": sigs, "sets": sets, "signature_s": sig_s, "signature_and_sets_s": both_s,
                           "set_build_s": build_s}
    entry = cache[num_perm]
    keys = band_keys(entry["sigs"], bands)
    if verify == "exact":
        confirm = lambda e: verified_edges(e, entry["sets"], threshold)  # noqa: E731
    else:
        confirm = lambda e: confirmed_edges(e, entry["sigs"], threshold)  # noqa: E731
    roots, stats = min((global_step(keys, confirm, len(texts)) for _ in range(repeat)), key=lambda r: r[1]["total_s"])
    stats["signature_s"] = round(entry["signature_s"], 4)
    stats["signature_and_sets_s"] = round(entry["signature_and_sets_s"], 4)
    stats["set_build_s"] = round(entry["set_build_s"], 4)
    stats["p_candidate_at_threshold"] = round(candidate_probability(threshold, bands, rows), 6)
    return roots, stats


def run_datasketch(sigs: np.ndarray, threshold: float) -> tuple[np.ndarray, dict]:
    from datasketch import MinHash, MinHashLSH

    start = time.perf_counter()
    lsh = MinHashLSH(threshold=threshold, num_perm=sigs.shape[1])
    sketches = [MinHash(num_perm=sigs.shape[1], hashvalues=row, scheme="affine32") for row in sigs]  # = datasketch's own, tested
    for i, sketch in enumerate(sketches):
        lsh.insert(i, sketch)
    pairs = {(min(i, j), max(i, j)) for i, sketch in enumerate(sketches) for j in lsh.query(sketch) if i != j}
    roots = components(len(sigs), pairs)
    return roots, {"bands_rows": [lsh.b, lsh.r], "pairs": len(pairs), "total_s": round(time.perf_counter() - start, 3)}


def reshingle_cost(texts: list[str], edges: np.ndarray) -> dict:
    """Verification by re-shingling the candidates' texts (texts already in memory: a lower bound,
    the stage would also read and decompress them) vs from stored sets."""
    involved = np.unique(edges)
    start = time.perf_counter()
    sets = shingle_sets([texts[i] for i in involved.tolist()])
    local = np.searchsorted(involved, edges)
    exact_overlaps(local, sets)
    return {"edges": int(len(edges)), "documents": int(len(involved)), "reshingle_s": round(time.perf_counter() - start, 4)}


def hash_collisions(truth_sets: list[set], pairs: np.ndarray, sets) -> dict:
    """Pairs (truth pairs and every candidate) whose 32-bit-hash Jaccard differs from the string Jaccard,
    and documents whose hashed set is smaller than its string set."""
    shared, union = exact_overlaps(pairs, sets)
    differ = 0
    for (a, b), s, u in zip(pairs.tolist(), shared.tolist(), union.tolist()):
        sa, sb = truth_sets[a], truth_sets[b]
        true_shared = len(sa & sb)
        if (true_shared, len(sa) + len(sb) - true_shared) != (s, u):
            differ += 1
    sizes = np.diff(np.asarray(sets.offsets))
    merged = sum(int(sizes[i]) != len(s) for i, s in enumerate(truth_sets))
    return {"pairs_checked": int(len(pairs)), "pairs_differing": differ, "documents_with_merged_shingles": merged}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edits", type=int, default=1800, help="edited variants to add")
    parser.add_argument("--news-only", action="store_true",
                        help="news sources only (all ABC articles) and edits of news: a held-out-like news corpus")
    parser.add_argument("--bandings", nargs="*", default=[], help="extra bandings BxR to run with exact verification")
    parser.add_argument("--no-datasketch", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="timings: best of this many runs")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args(argv)
    from common import best_seconds, mirror_dir, write_results

    new_banding = (DEFAULT_BANDS, DEFAULT_NUM_PERM // DEFAULT_BANDS)

    start = time.perf_counter()
    texts, sources = build_dataset(mirror_dir(), args.seed, args.edits, news_only=args.news_only)
    build_s = time.perf_counter() - start
    truth_sets = [shingle_set(t) for t in texts]
    start = time.perf_counter()
    joined = similarity_join(truth_sets, JOIN_THRESHOLD)
    join_s = time.perf_counter() - start
    n = len(texts)
    by_source: dict[str, int] = defaultdict(int)
    for s in sources:
        by_source[s] += 1
    histogram = np.histogram([s / u for s, u in joined.values()], bins=[0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0 + 1e-9])[0]
    print(f"{n} documents ({dict(sorted(by_source.items()))}), built in {build_s:.1f} s; "
          f"{len(joined)} pairs at Jaccard >= {JOIN_THRESHOLD} (join {join_s:.1f} s)")
    print("pairs per Jaccard bin [0.6, 0.65, ..., 1.0]:", histogram.tolist())
    figures: dict = {"documents": n, "by_source": dict(sorted(by_source.items())), "seed": args.seed,
                     "news_only": args.news_only, "edits": args.edits,
                     "join_pairs": len(joined), "join_s": round(join_s, 2),
                     "jaccard_histogram": {"bins": [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0],
                                           "pairs": histogram.tolist()},
                     "thresholds": {}}

    methods = [("old: 16x8, estimate", OLD_BANDING, "estimate"),
               ("old banding 16x8, exact", OLD_BANDING, "exact"),
               (f"new banding {new_banding[0]}x{new_banding[1]}, estimate", new_banding, "estimate"),
               (f"new: {new_banding[0]}x{new_banding[1]}, exact", new_banding, "exact")]
    methods += [(f"{b}x{r}, exact", (b, r), "exact") for b, r in map(parse_banding, args.bandings)]
    cache: dict = {"repeat": args.repeat}
    header = f"{'method':<30} {'thr':>4} {'pairP':>6} {'pairR':>6} {'pairF1':>6} {'docP':>6} {'docR':>6} {'docF1':>6} {'rawR':>6} {'cand':>7} {'verify s':>8} {'step s':>7}"
    for threshold in THRESHOLDS:
        truth_pairs = {pair for pair, (s, u) in joined.items() if s / u >= threshold}
        truth_roots = components(n, truth_pairs)
        rows = figures["thresholds"][str(threshold)] = {
            "truth_pairs": len(truth_pairs), "truth_removed": len(removed(truth_roots)), "methods": {}}
        print(f"\nthreshold {threshold}: {len(truth_pairs)} truth pairs, {len(removed(truth_roots))} documents to remove")
        print(header)
        for name, banding, verify in methods:
            roots, stats = run_method(texts, banding, verify, threshold, cache, args.repeat)
            result = {**score(roots, truth_roots, truth_pairs), "stats": stats}
            rows["methods"][name] = result
            _print_row(name, threshold, result)
        if not args.no_datasketch:
            roots, stats = run_datasketch(cache[128]["sigs"], threshold)
            result = {**score(roots, truth_roots, truth_pairs), "stats": stats}
            rows["methods"]["datasketch MinHashLSH"] = result
            _print_row(f"datasketch LSH {stats['bands_rows'][0]}x{stats['bands_rows'][1]}", threshold, result)

    # Cost of verification at the default threshold, new method.
    new_name = methods[3][0]
    stats = figures["thresholds"]["0.8"]["methods"][new_name]["stats"]
    entry = cache[new_banding[0] * new_banding[1]]
    sets = entry["sets"]
    keys = band_keys(entry["sigs"], new_banding[0])
    candidates = np.unique(np.concatenate([e for b in range(keys.shape[1])
                                           for e in candidate_pair_batches(keys[:, b], None)]), axis=0)
    set_bytes = sets.flat.nbytes + sets.offsets.nbytes
    cost = {
        "global_step_s": stats["total_s"], "verify_s": stats["confirm_s"],
        "verify_share_of_global_step": round(stats["confirm_s"] / stats["total_s"], 3),
        "signature_s": stats["signature_s"], "signature_and_sets_s": stats["signature_and_sets_s"],
        "set_build_s": stats["set_build_s"],
        "set_build_share_of_signatures": round(stats["set_build_s"] / stats["signature_s"], 3),
        "verify_share_of_dedup_compute": round(
            (stats["confirm_s"] + stats["set_build_s"]) / (stats["total_s"] + stats["signature_s"] + stats["set_build_s"]), 3),
        "set_bytes_per_document": round(set_bytes / n, 1),
        "signature_bytes_per_document": int(entry["sigs"].shape[1] * entry["sigs"].itemsize),
        "text_bytes_per_document": round(sum(len(t.encode()) for t in texts) / n, 1),
        "reshingle": reshingle_cost(texts, candidates),
        "stored_sets_verify_all_candidates_s": round(best_seconds(lambda: exact_overlaps(candidates, sets)), 4),
        "hash_collisions": hash_collisions(truth_sets, np.unique(np.concatenate(
            [candidates, np.array(sorted(joined), dtype=np.int64).reshape(-1, 2)]), axis=0), sets),
    }
    figures["verification_cost"] = cost
    print(f"\nverification cost (new, threshold 0.8): {cost['verify_s']} s of a {cost['global_step_s']} s global step "
          f"({cost['verify_share_of_global_step']:.0%}); building the sets {cost['set_build_s']} s = {cost['set_build_share_of_signatures']:.0%} "
          f"of signatures; sets + verification = {cost['verify_share_of_dedup_compute']:.0%} of dedup compute (signatures + sets + global step)")
    print(f"all {len(candidates)} distinct candidates: stored sets {cost['stored_sets_verify_all_candidates_s']} s, "
          f"re-shingling their {cost['reshingle']['documents']} texts {cost['reshingle']['reshingle_s']} s")
    print(f"bytes per document: sets {cost['set_bytes_per_document']}, signature {cost['signature_bytes_per_document']}, "
          f"text {cost['text_bytes_per_document']}; 32-bit collisions: {cost['hash_collisions']}")
    write_results(args.json, figures)
    return 0


def _print_row(name: str, threshold: float, r: dict) -> None:
    s = r["stats"]
    print(f"{name:<30} {threshold:>4} {r['pair']['precision']:>6.4f} {r['pair']['recall']:>6.4f} {r['pair']['f1']:>6.4f} "
          f"{r['document']['precision']:>6.4f} {r['document']['recall']:>6.4f} {r['document']['f1']:>6.4f} "
          f"{r['raw_pair_recall']:>6.4f} {s.get('candidates', s.get('pairs', 0)):>7} {s.get('confirm_s', 0):>8.3f} "
          f"{s['total_s']:>7.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
