"""Exact verification (dedup/verify.py), banding probabilities (dedup/banding.py), and the bench's truth join."""

from __future__ import annotations

import importlib.util
import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from datasketch.hashfunc import sha1_hash32

import corpus.dedup.verify as verify_module
from corpus.dedup.banding import (DEFAULT_TARGET, candidate_probability, choose_banding, min_bands,
                                  probability_table)
from corpus.dedup.minhash import (DEFAULT_BANDS, DEFAULT_NUM_PERM, MinHasher, band_keys, candidate_pair_batches,
                                  candidate_pairs, poly_hash32, shingles)
from corpus.dedup.unionfind import cluster_roots, edges_across_clusters, pairs_within_clusters
from corpus.dedup.verify import (PartedShingleSets, ShingleSets, exact_jaccard, exact_overlaps,
                                 near_duplicate_clusters, shingle_sets, signatures_and_sets, verified_edges)

REPO = Path(__file__).resolve().parents[1]
ARTICLES_100 = "8cfc8951614b613ef1562787ca05e2230144e61c322b51ef6197c4aa23d6defd"
ARTICLES_100_TRUTH = "de4b4dcd40e7e4dc07b3ef27bf79f438fff62a80acf8e7c3ae04b1b26b11c307"
EDGE_CASES = ["", "  ?!... ", "Hello, World", "one two three four", "one two three four five",
              "Ünïcödé Straße — «ÉTÉ» snake_case and dash-ed words, twice: twice twice twice twice twice"]


@pytest.fixture(scope="module")
def articles(mirror: Path) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    for line in (mirror / ARTICLES_100).read_text(encoding="utf-8").splitlines():
        doc_id, text = line.split(" ", 1)
        ids.append(doc_id)
        texts.append(text)
    return ids, texts


def edited(text: str, fraction: float, seed: int) -> str:
    """Replace a seeded `fraction` of the words with new ones (a near duplicate of lower Jaccard)."""
    rng = random.Random(seed)
    words = text.split()
    for i in rng.sample(range(len(words)), int(fraction * len(words))):
        words[i] = f"edit{seed}x{i}"
    return " ".join(words)


def string_jaccard(a: str, b: str) -> float:
    """The definition, with no hashing: Jaccard of the two sets of shingle strings (0 if one is empty)."""
    sa, sb = set(shingles(a)), set(shingles(b))
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


# --- shingle sets ------------------------------------------------------------------------------

@pytest.mark.parametrize("shingle_hash", ["poly64", "sha1"])
def test_shingle_sets_are_the_sorted_distinct_hashes_of_the_reference_shingles(articles, shingle_hash):
    texts = articles[1][:30] + EDGE_CASES
    hash32 = poly_hash32 if shingle_hash == "poly64" else sha1_hash32
    sets = shingle_sets(texts, shingle_hash=shingle_hash)
    assert len(sets) == len(texts) and sets.flat.dtype == np.uint32 and sets.offsets.dtype == np.int64
    for i, text in enumerate(texts):
        assert sets.set_of(i).tolist() == sorted({hash32(s) for s in shingles(text)})
    assert sets.sizes(np.array([30, 31])).tolist() == [0, 0]  # "" and punctuation only: no shingles


def test_signatures_and_sets_is_one_pass_of_both(articles, monkeypatch):
    texts = EDGE_CASES + articles[1][:40]
    hasher = MinHasher()
    whole_sigs, whole_sets = signatures_and_sets(hasher, texts)
    np.testing.assert_array_equal(whole_sigs, hasher.signatures(texts))
    monkeypatch.setattr(verify_module, "_TEXT_BATCH_CHARS", 2000)  # many batches, concatenated
    sigs, sets = signatures_and_sets(hasher, texts)
    np.testing.assert_array_equal(sigs, whole_sigs)
    np.testing.assert_array_equal(sets.flat, whole_sets.flat)
    np.testing.assert_array_equal(sets.offsets, whole_sets.offsets)
    np.testing.assert_array_equal(shingle_sets(texts).flat, whole_sets.flat)


# --- exact Jaccard ------------------------------------------------------------------------------

def real_pairs(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """Real documents, edited copies at several similarities, and pairs among them (near and far)."""
    docs = list(texts[:40])
    for k, fraction in enumerate((0.005, 0.01, 0.02, 0.035, 0.06)):  # a word replaced kills 5 shingles
        docs += [edited(t, fraction, seed=100 * k + i) for i, t in enumerate(texts[:8])]
    rng = np.random.default_rng(0)
    near = [(i, 40 + 8 * k + i) for k in range(5) for i in range(8)]
    far = rng.integers(0, len(docs), (150, 2)).tolist()
    pairs = np.array([p for p in near + far if p[0] != p[1]], dtype=np.int64)
    return docs, pairs


def test_exact_jaccard_equals_the_string_set_jaccard_on_real_documents(articles):
    docs, pairs = real_pairs(articles[1])
    sets = shingle_sets(docs)
    got = exact_jaccard(pairs, sets)
    expected = np.array([string_jaccard(docs[a], docs[b]) for a, b in pairs.tolist()])
    np.testing.assert_array_equal(got, expected)  # same integers, same division: bit-identical
    assert (expected[:40] > 0.4).all() and len(set(np.round(expected[:40], 2))) > 10  # a real spread
    shared, union = exact_overlaps(pairs, sets)
    for (a, b), s, u in zip(pairs[:40].tolist(), shared[:40].tolist(), union[:40].tolist()):
        sa, sb = set(shingles(docs[a])), set(shingles(docs[b]))
        assert (s, u) == (len(sa & sb), len(sa | sb))


def test_planted_pairs_have_high_exact_jaccard(articles, mirror):
    ids, texts = articles
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    pairs = np.array([[position[a], position[b]] for a, b in
                      (line.split() for line in (mirror / ARTICLES_100_TRUTH).read_text().splitlines() if line.strip())])
    jaccard = exact_jaccard(pairs, shingle_sets(texts))
    assert (jaccard > 0.8).all()
    assert jaccard.tolist() == [string_jaccard(texts[a], texts[b]) for a, b in pairs.tolist()]


def test_empty_documents_never_match_and_short_ones_compare_whole():
    sets = shingle_sets(["", "?!", "real text here", "Real text, here!", "one two three four five six"])
    pairs = np.array([[0, 1], [0, 2], [2, 3], [2, 4]])
    assert exact_jaccard(pairs, sets).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert len(verified_edges(np.array([[0, 1]]), sets, 0.0)) == 0  # even at threshold 0
    assert exact_jaccard(np.zeros((0, 2), dtype=np.int64), sets).shape == (0,)


def test_a_part_of_empty_documents_on_disk(tmp_path):
    shingle_sets(["", "?!"]).save(tmp_path / "part-00000")  # an empty flat array, memory-mapped
    shingle_sets(["real text here", "Real text, here!"]).save(tmp_path / "part-00001")
    parted = PartedShingleSets([tmp_path / "part-00000", tmp_path / "part-00001"], None, np.array([0, 2, 4]))
    assert parted.sizes(np.arange(4)).tolist() == [0, 0, 1, 1]
    assert exact_jaccard(np.array([[0, 1], [0, 2], [2, 3]]), parted).tolist() == [0.0, 0.0, 1.0]


def test_verified_edges_keeps_order_and_reports_overlap(articles):
    docs, pairs = real_pairs(articles[1])
    sets = shingle_sets(docs)
    jaccard = exact_jaccard(pairs, sets)
    kept, shared, union = verified_edges(pairs, sets, 0.8, with_overlap=True)
    np.testing.assert_array_equal(kept, pairs[jaccard >= 0.8])
    np.testing.assert_array_equal(shared / union, jaccard[jaccard >= 0.8])
    np.testing.assert_array_equal(verified_edges(pairs, sets, 0.8), kept)


def test_parted_memmapped_sets_by_row_index_equal_in_memory(articles, tmp_path, monkeypatch):
    docs, pairs = real_pairs(articles[1])
    whole = shingle_sets(docs)
    cuts = [0, 17, 18, 60, len(docs)]  # part 1 holds a single document
    prefixes = []
    for p, (a, b) in enumerate(zip(cuts, cuts[1:])):
        shingle_sets(docs[a:b]).save(tmp_path / f"part-{p:05d}")
        prefixes.append(tmp_path / f"part-{p:05d}")
    # Row index r is document by_rank[r] in concatenated part order (as stage 04's id order).
    by_rank = np.random.default_rng(3).permutation(len(docs))
    rank = np.empty_like(by_rank)
    rank[by_rank] = np.arange(len(docs))
    parted = PartedShingleSets(prefixes, by_rank, np.array(cuts))
    assert isinstance(parted.parts[0].flat, np.memmap)
    expected = exact_overlaps(pairs, whole)
    got = exact_overlaps(rank[pairs], parted)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    monkeypatch.setattr(verify_module, "_GATHER_CHUNK", 300)  # about one pair per chunk
    np.testing.assert_array_equal(exact_overlaps(rank[pairs], parted)[0], expected[0])
    np.testing.assert_array_equal(exact_jaccard(rank[pairs], parted), exact_jaccard(pairs, whole))
    wrong = PartedShingleSets(prefixes, by_rank, np.array([0, 17, 18, 61, len(docs)]))
    with pytest.raises(ValueError, match="sets, expected"):  # noticed as the part is first mapped
        exact_overlaps(rank[pairs], wrong)


def test_pairs_across_two_collections(articles):
    """New documents against a published version's sets: j indexes the other collection."""
    docs, pairs = real_pairs(articles[1])
    old, new = shingle_sets(docs[:30]), shingle_sets(docs[30:])
    across = np.array([[i, j] for i in range(len(docs) - 30) for j in range(0, 30, 7)])
    np.testing.assert_array_equal(exact_jaccard(across, new, old),
                                  exact_jaccard(np.stack([across[:, 0] + 30, across[:, 1]], axis=1), shingle_sets(docs)))
    kept = verified_edges(across, new, 0.5, other=old)
    assert len(kept) and all(string_jaccard(docs[i + 30], docs[j]) >= 0.5 for i, j in kept.tolist())


def test_concatenate_and_load_round_trip(tmp_path, articles):
    a, b = shingle_sets(articles[1][:5]), shingle_sets(articles[1][5:9])
    both = ShingleSets.concatenate([a, b])
    np.testing.assert_array_equal(both.flat, shingle_sets(articles[1][:9]).flat)
    both.save(tmp_path / "x")
    loaded = ShingleSets.load(tmp_path / "x", mmap=False)
    np.testing.assert_array_equal(loaded.offsets, both.offsets)


# --- banding -----------------------------------------------------------------------------------

def test_candidate_probability_formula_and_defaults():
    s = np.array([0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0])
    np.testing.assert_allclose(candidate_probability(s, 16, 8), 1 - (1 - s**8) ** 16, rtol=1e-12, atol=1e-15)
    assert candidate_probability(0.8, 16, 8) == pytest.approx(0.947, abs=5e-4)  # the old default: ~0.95
    bands, rows = DEFAULT_BANDS, DEFAULT_NUM_PERM // DEFAULT_BANDS
    assert DEFAULT_NUM_PERM % DEFAULT_BANDS == 0
    assert candidate_probability(0.8, bands, rows) >= 0.995  # the new default meets the target at 0.8
    assert candidate_probability(0.0, bands, rows) == 0.0 and candidate_probability(1.0, bands, rows) == 1.0
    assert np.all(np.diff(candidate_probability(np.linspace(0, 1, 101), bands, rows)) >= 0)
    with pytest.raises(ValueError):
        candidate_probability(1.2, 4, 4)


@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.8, 0.9, 0.95])
def test_min_bands_is_the_fewest_and_choose_banding_meets_the_target(threshold):
    for rows in (2, 5, 8):
        bands = min_bands(threshold, rows)
        assert candidate_probability(threshold, bands, rows) >= DEFAULT_TARGET
        assert bands == 1 or candidate_probability(threshold, bands - 1, rows) < DEFAULT_TARGET
    choice = choose_banding(threshold, max_num_perm=128)
    assert choice.num_perm <= 128 and candidate_probability(threshold, choice.bands, choice.rows) >= DEFAULT_TARGET
    # The most selective in the budget: no banding with more rows meets the target within 128 permutations.
    assert all(min_bands(threshold, r) * r > 128 for r in range(choice.rows + 1, 40))


def test_probability_table_lists_each_banding():
    table = probability_table([(16, 8), (20, 5)], [0.7, 0.8])
    assert table.splitlines()[0] == "| s | 16×8 (128 perms) | 20×5 (100 perms) |"
    assert "| 0.80 | 0.9470 | 1 − 3.6e-04 |" in table


def test_band_collisions_follow_the_formula_on_real_text(articles):
    """Our signatures are permutation-based hashes, not ideal min-wise ones: check that pairs at a known
    exact Jaccard become candidates at the predicted rate (mid-curve, where the rate is informative)."""
    rng = random.Random(5)
    words = " ".join(articles[1]).split()
    left, right = [], []
    for k in range(600):  # 600 pairs of 120-word texts, each pair at Jaccard ~0.45 (one block replaced)
        start = rng.randrange(len(words) - 130)
        doc = words[start:start + 120]
        cut = rng.randrange(10, 70)
        other = doc[:cut] + [f"w{k}n{i}" for i in range(40)] + doc[cut + 40:]
        left.append(" ".join(doc))
        right.append(" ".join(other))
    hasher = MinHasher()
    sigs, sets = signatures_and_sets(hasher, left + right)
    pairs = np.stack([np.arange(600), np.arange(600, 1200)], axis=1)
    jaccard = exact_jaccard(pairs, sets)
    keys = band_keys(sigs)
    hit = (keys[:600] == keys[600:]).any(axis=1)
    predicted = candidate_probability(jaccard, DEFAULT_BANDS, DEFAULT_NUM_PERM // DEFAULT_BANDS)
    assert 0.3 < predicted.mean() < 0.7
    assert abs(hit.mean() - predicted.mean()) < 4 * np.sqrt(np.sum(predicted * (1 - predicted))) / 600 + 0.01


# --- candidates + exact verification find every pair ------------------------------------------

def near_roots_exact(texts: list[str], threshold: float, window: int = 16) -> np.ndarray:
    """Stage 04's global step at function level, with exact verification."""
    sigs, sets = signatures_and_sets(MinHasher(), texts)
    keys = band_keys(sigs)
    roots = np.arange(len(texts), dtype=np.int64)
    for band in range(keys.shape[1]):
        for edges in candidate_pair_batches(keys[:, band], None, window=window):
            edges = verified_edges(edges_across_clusters(edges, roots), sets, threshold)
            roots = cluster_roots(len(texts), edges, roots=roots)
    return roots


def test_every_pair_above_the_threshold_is_found_in_a_planted_set(articles):
    """Bases with 30 variants each (buckets beyond the 16-member window, chains between variants),
    variants at 0.7-0.97 of their base, and the other articles: every pair at exact Jaccard >= 0.8 ends
    in one cluster, and every cluster is one connected component of the exact graph (no false merge)."""
    texts = articles[1]
    docs = list(texts[6:60])
    for b, base in enumerate(texts[:6]):
        docs.append(base)
        docs += [edited(base, 0.004 + 0.002 * k, seed=1000 * b + k) for k in range(30)]
    order = np.random.default_rng(1).permutation(len(docs))
    docs = [docs[i] for i in order]
    sets = shingle_sets(docs)
    all_pairs = np.array(list(itertools.combinations(range(len(docs)), 2)))
    jaccard = exact_jaccard(all_pairs, sets)
    truth = all_pairs[jaccard >= 0.8]
    assert len(truth) > 200 and ((jaccard > 0.7) & (jaccard < 0.8)).sum() > 100  # near-threshold pairs
    keys = band_keys(signatures_and_sets(MinHasher(), docs)[0])
    largest_bucket = max(int(np.unique(keys[:, band], return_counts=True)[1].max()) for band in range(keys.shape[1]))
    assert largest_bucket > 17  # more members than the window pairs with each member
    roots = near_roots_exact(docs, 0.8)
    assert (roots[truth[:, 0]] == roots[truth[:, 1]]).all()
    assert pairs_within_clusters(roots) == pairs_within_clusters(cluster_roots(len(docs), truth))


def test_near_duplicate_clusters_returns_the_edges_that_built_them(articles):
    texts = articles[1]
    docs = list(texts[20:50]) + [edited(t, f, seed=i) for i, t in enumerate(texts[:10]) for f in (0.01, 0.02, 0.04)]
    docs += texts[:10]
    sigs, sets = signatures_and_sets(MinHasher(), docs)
    keys = band_keys(sigs)
    roots, confirmed = near_duplicate_clusters(len(docs), lambda band: keys[:, band], keys.shape[1], sets, 0.8)
    np.testing.assert_array_equal(roots, near_roots_exact(docs, 0.8))
    assert len(confirmed.edges) >= 10 and (confirmed.edges[:, 0] < confirmed.edges[:, 1]).all()
    np.testing.assert_array_equal(cluster_roots(len(docs), confirmed.edges), roots)  # they span the clusters
    np.testing.assert_array_equal(confirmed.shared / confirmed.union, exact_jaccard(confirmed.edges, sets))
    assert (confirmed.shared / confirmed.union >= 0.8).all()
    none, empty = near_duplicate_clusters(0, lambda band: np.zeros(0, np.uint64), 20, sets, 0.8)
    assert len(none) == 0 and empty.edges.shape == (0, 2)


def test_a_chain_in_one_bucket_is_one_cluster_with_exact_verification(articles):
    """A~B and B~C (Jaccard >= 0.8) but A!~C: windowed pairs in a shared bucket link all three."""
    a = articles[1][0]
    b = edited(a, 0.02, seed=1)
    c = edited(b, 0.02, seed=2)
    sets = shingle_sets([a, b, c])
    j = exact_jaccard(np.array([[0, 1], [1, 2], [0, 2]]), sets)
    assert j[0] >= 0.8 and j[1] >= 0.8 and j[2] < 0.8
    edges = candidate_pairs(np.array([7, 7, 7], dtype=np.uint64), np.arange(3))
    assert cluster_roots(3, verified_edges(edges, sets, 0.8)).tolist() == [0, 0, 0]


# --- the bench's ground truth --------------------------------------------------------------------

def test_truth_similarity_join_equals_brute_force(articles):
    spec = importlib.util.spec_from_file_location("neardup_truth", REPO / "bench" / "neardup_truth.py")
    truth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(truth)
    docs, _ = real_pairs(articles[1])
    docs += [edited(d, 0.15, seed=7) for d in docs[40:60]] + EDGE_CASES + ["Real text here.", "real text here"]
    sets = [set(shingles(d)) for d in docs]
    for threshold in (0.5, 0.7, 0.8, 0.9):
        joined = truth.similarity_join(sets, threshold)
        assert joined == truth.brute_force_join(sets, threshold)
        assert len(joined) > 5
