"""Near-dup building blocks: signatures equal datasketch's, band keys, sort-based candidate pairs, union-find."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from datasketch import MinHash
from datasketch.hashfunc import sha1_hash32

import corpus.dedup.minhash as minhash_module
from corpus.dedup.minhash import (
    EMPTY_BAND_KEY,
    MinHasher,
    band_keys,
    candidate_pair_batches,
    candidate_pairs,
    confirmed_edges,
    estimated_jaccard,
    estimated_jaccards,
    normalize_for_shingles,
    poly_hash32,
    poly_hash64,
    shingle_hashes,
    shingles,
    star_pairs,
    unique_edges,
)
from corpus.dedup.unionfind import cluster_roots, edges_across_clusters, pairs_within_clusters

ARTICLES_100 = "8cfc8951614b613ef1562787ca05e2230144e61c322b51ef6197c4aa23d6defd"
ARTICLES_100_TRUTH = "de4b4dcd40e7e4dc07b3ef27bf79f438fff62a80acf8e7c3ae04b1b26b11c307"
EDGE_CASES = ["", "  ?!... ", "Hello, World", "one two three four", "one two three four five",
              "Ünïcödé Straße — «ÉTÉ» snake_case and dash-ed words, twice: twice twice twice twice twice"]


def read_articles(path: Path) -> tuple[list[str], list[str]]:
    """(ids, texts): one article per line as 'tID text'; the text is what follows the first space."""
    ids, texts = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        doc_id, text = line.split(" ", 1)
        ids.append(doc_id)
        texts.append(text)
    return ids, texts


@pytest.fixture(scope="module")
def articles(mirror: Path) -> tuple[list[str], list[str]]:
    return read_articles(mirror / ARTICLES_100)


@pytest.fixture(scope="module")
def truth_pairs(mirror: Path) -> list[tuple[str, str]]:
    return [tuple(line.split()) for line in (mirror / ARTICLES_100_TRUTH).read_text().splitlines() if line.strip()]


def datasketch_signature(text: str, hasher: MinHasher) -> np.ndarray:
    reference = MinHash(num_perm=hasher.num_perm, seed=hasher.seed, scheme=hasher.scheme,
                        hashfunc=hasher.datasketch_hashfunc())
    reference.update_batch(shingles(text, hasher.ngram))
    return reference.hashvalues


# --- normalisation and shingles ---------------------------------------------------------------

def test_normalisation_lowercases_drops_punctuation_and_collapses_space():
    assert normalize_for_shingles("  Don't  STOP,\tme-now!\n(ok) snake_case ") == "dont stop menow ok snakecase"
    assert normalize_for_shingles("?!  ...") == ""


def test_short_text_is_one_shingle_and_empty_text_has_none():
    assert shingles("One, two THREE.", n=5) == [b"one two three"]
    assert shingles("a b c d e f", n=5) == [b"a b c d e", b"b c d e f"]
    assert shingles(" ... ", n=5) == []


# --- signatures -------------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["affine32", "legacy"])
@pytest.mark.parametrize("shingle_hash", ["poly64", "sha1"])
def test_signatures_equal_datasketch(articles, scheme, shingle_hash):
    hasher = MinHasher(num_perm=128, seed=1, ngram=5, scheme=scheme, shingle_hash=shingle_hash)
    texts = articles[1][:20] + EDGE_CASES
    sigs = hasher.signatures(texts)
    assert sigs.dtype == (np.uint32 if scheme == "affine32" else np.uint64)
    for text, sig in zip(texts, sigs):
        expected = datasketch_signature(text, hasher)
        assert expected.dtype == sig.dtype
        np.testing.assert_array_equal(sig, expected)


def test_default_sha1_matches_datasketch_with_no_hashfunc_argument(articles):
    """shingle_hash="sha1" is datasketch's out-of-the-box MinHash(num_perm, seed)."""
    hasher = MinHasher(num_perm=64, seed=7, shingle_hash="sha1")
    assert hasher.datasketch_hashfunc() is sha1_hash32
    reference = MinHash(num_perm=64, seed=7)
    reference.update_batch(shingles(articles[1][0]))
    np.testing.assert_array_equal(hasher.signature(articles[1][0]), reference.hashvalues)


def test_hashes_and_keys_are_pinned():
    """Signatures and band keys are stored across runs: a change here silently invalidates them."""
    assert poly_hash64(b"the quick brown fox jumps") == 12345806078141007042
    assert poly_hash32(b"the quick brown fox jumps") == 2574517442
    assert poly_hash32(b"ab") != poly_hash32(b"ba")
    text = "The quick brown fox jumps over the lazy dog"
    sigs = MinHasher(num_perm=128).signatures([text])  # the defaults before exact verification: 128 perms, 16 x 8
    assert sigs[0, :4].tolist() == [1239767915, 1217055867, 429654078, 1259310361]
    assert band_keys(sigs, 16)[0, :2].tolist() == [2023484356366291134, 14206742993930333543]
    # The defaults since exact verification (100 perms, 20 bands x 5 rows): datasketch draws all `a`
    # coefficients before the `b`s, so a different num_perm changes every permutation, not a suffix.
    sigs = MinHasher().signatures([text])
    assert sigs.shape == (1, 100) and sigs[0, :4].tolist() == [1108399896, 45629400, 1043572932, 707474105]
    assert band_keys(sigs).shape == (1, 20)
    assert band_keys(sigs)[0, :2].tolist() == [4998391066710152769, 6406532977980710769]


def test_batching_does_not_change_signatures(articles, monkeypatch):
    texts = EDGE_CASES + articles[1][:30] + EDGE_CASES
    whole = MinHasher().signatures(texts)
    monkeypatch.setattr(minhash_module, "_TEXT_BATCH_CHARS", 3000)
    monkeypatch.setattr(minhash_module, "_SHINGLE_CHUNK", 100)  # articles exceed it: one-document chunks
    np.testing.assert_array_equal(MinHasher().signatures(texts), whole)
    one_by_one = np.stack([MinHasher().signature(text) for text in texts])
    np.testing.assert_array_equal(one_by_one, whole)


def test_estimated_jaccard_equals_datasketch(articles):
    hasher = MinHasher()
    a, b = articles[1][0], articles[1][0][: len(articles[1][0]) // 2]
    ref_a, ref_b = (MinHash(num_perm=hasher.num_perm, hashfunc=poly_hash32) for _ in range(2))
    ref_a.update_batch(shingles(a))
    ref_b.update_batch(shingles(b))
    sigs = hasher.signatures([a, b])
    assert estimated_jaccard(sigs[0], sigs[1]) == ref_a.jaccard(ref_b)
    assert estimated_jaccards(np.array([[0, 1]]), sigs)[0] == ref_a.jaccard(ref_b)


# --- empty documents never collide -------------------------------------------------------------

def test_empty_documents_never_collide():
    hasher = MinHasher()
    sigs = hasher.signatures(["", "?!", "real text here", ""])
    keys = band_keys(sigs)
    assert (keys[[0, 1, 3]] == EMPTY_BAND_KEY).all() and (keys[2] != EMPTY_BAND_KEY).all()
    assert estimated_jaccard(sigs[0], sigs[1]) == 0.0
    for band in range(keys.shape[1]):
        assert len(candidate_pairs(keys[:, band], np.arange(4))) == 0
    assert estimated_jaccards(np.array([[0, 1], [0, 3], [1, 3]]), sigs).tolist() == [0.0, 0.0, 0.0]
    assert len(confirmed_edges(np.array([[0, 1], [0, 3]]), sigs, threshold=0.5)) == 0


def test_band_keys_are_salted_per_band_and_deterministic():
    sigs = np.zeros((2, 128), dtype=np.uint32)  # identical bands everywhere
    keys = band_keys(sigs, 16)
    assert keys.shape == (2, 16) and keys.dtype == np.uint64
    assert len(set(keys[0].tolist())) == 16  # equal rows in different bands -> different keys
    np.testing.assert_array_equal(keys[0], keys[1])
    np.testing.assert_array_equal(band_keys(sigs.astype(np.uint64), 16), keys)  # legacy storage, same values


# --- candidate pairs by sorting == brute force ---------------------------------------------------

def brute_force_groups(keys, row_ids) -> list[list[int]]:
    groups: dict[int, list[int]] = defaultdict(list)
    for key, row in zip(keys.tolist(), row_ids.tolist()):
        if key != int(EMPTY_BAND_KEY):
            groups[key].append(row)
    return [sorted(members) for members in groups.values()]


def as_set(edges: np.ndarray) -> set[tuple[int, int]]:
    return set(map(tuple, edges.tolist()))


@pytest.mark.parametrize("seed", range(5))
def test_candidate_pairs_by_sorting_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    count = 3000
    keys = rng.integers(0, 400, count).astype(np.uint64)  # buckets of ~7, some up to ~20; 0 = empty
    row_ids = rng.permutation(10 * count)[:count]  # unsorted, non-contiguous ids
    groups = brute_force_groups(keys, row_ids)
    star = {(g[0], m) for g in groups for m in g[1:]}
    assert as_set(star_pairs(keys, row_ids)) == star
    for window in (1, 4, 1000):
        expected = {(g[i], g[j]) for g in groups for i in range(len(g)) for j in range(i + 1, min(i + window + 1, len(g)))}
        edges = candidate_pairs(keys, row_ids, window=window)
        assert as_set(edges) == expected
        assert edges.dtype == np.int64 and (edges[:, 0] < edges[:, 1]).all()
        assert np.array_equal(edges, np.unique(edges, axis=0))  # deduplicated and sorted
        batches = list(candidate_pair_batches(keys, row_ids, window=window))
        assert set().union(*map(as_set, batches)) == expected
        assert all(len(batch) <= count for batch in batches) and len(batches) <= window


def test_candidate_pairs_with_sorted_ids_and_several_bands():
    keys = np.array([[5, 9], [5, 8], [6, 9], [5, 9]], dtype=np.uint64)  # band 0 / band 1 (already salted)
    edges = candidate_pairs(keys.ravel(), np.repeat(np.arange(4), 2))
    assert as_set(edges) == {(0, 1), (0, 3), (1, 3), (0, 2), (2, 3)}


def test_bucket_members_are_confirmed_against_each_other_not_only_the_smallest():
    """A~B and B~C but A!~C, all in one bucket: star edges lose C, windowed pairs keep the chain."""
    a = np.arange(128, dtype=np.uint32)
    b = a.copy()
    b[:20] += 1000  # J(A, B) = 108/128
    c = b.copy()
    c[20:40] += 1000  # J(B, C) = 108/128, J(A, C) = 88/128
    sigs = np.stack([a, b, c])
    assert estimated_jaccard(a, b) > 0.8 and estimated_jaccard(b, c) > 0.8 and estimated_jaccard(a, c) < 0.8
    keys, ids = np.array([7, 7, 7], dtype=np.uint64), np.arange(3)
    star = cluster_roots(3, confirmed_edges(star_pairs(keys, ids), sigs, 0.8))
    windowed = cluster_roots(3, confirmed_edges(candidate_pairs(keys, ids), sigs, 0.8))
    assert star.tolist() == [0, 0, 2]
    assert windowed.tolist() == [0, 0, 0]


# --- union-find -------------------------------------------------------------------------------

def brute_force_components(n: int, edges: np.ndarray) -> np.ndarray:
    neighbours: dict[int, list[int]] = defaultdict(list)
    for a, b in edges.tolist():
        neighbours[a].append(b)
        neighbours[b].append(a)
    label = np.arange(n)
    seen = set()
    for start in range(n):
        if start in seen:
            continue
        component, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            component.append(node)
            for other in neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        label[component] = min(component)
    return label


@pytest.mark.parametrize("seed", range(4))
def test_cluster_roots_smallest_index_and_order_independent(seed):
    rng = np.random.default_rng(seed)
    n = 2000
    edges = rng.integers(0, n, (1500, 2))
    edges = np.concatenate([edges, np.stack([np.arange(500, 900), np.arange(501, 901)], axis=1)])  # a long path
    roots = cluster_roots(n, edges)
    assert roots.dtype == np.int64
    np.testing.assert_array_equal(roots, brute_force_components(n, edges))
    for _ in range(3):
        shuffled = rng.permutation(edges)[:, ::-1] if rng.random() < 0.5 else rng.permutation(edges)
        np.testing.assert_array_equal(cluster_roots(n, shuffled), roots)
    halves = np.array_split(rng.permutation(edges), 2)
    incremental = cluster_roots(n, edges_across_clusters(halves[1], cluster_roots(n, halves[0])),
                                roots=cluster_roots(n, halves[0]))
    np.testing.assert_array_equal(incremental, roots)


def test_cluster_roots_on_a_long_chain_is_fast():
    """A chain hooked one link per node (n-1 -> n-2 -> ... -> 0) must flatten by pointer jumping, not walking."""
    n = 200_000
    chain = np.stack([np.arange(n - 1, 0, -1), np.arange(n - 2, -1, -1)], axis=1)
    assert (cluster_roots(n, chain) == 0).all()


def test_unique_edges_with_ids_beyond_32_bits():
    edges = np.array([[5, 2**40], [2**40, 5], [3, 3], [2**33, 7], [7, 2**33 + 1]])
    assert unique_edges(edges).tolist() == [[5, 2**40], [7, 2**33], [7, 2**33 + 1]]


def test_cluster_roots_without_edges_and_bad_input():
    np.testing.assert_array_equal(cluster_roots(3, np.zeros((0, 2), dtype=np.int64)), [0, 1, 2])
    with pytest.raises(ValueError):
        cluster_roots(3, np.array([[0, 3]]))


# --- end to end on articles_100 --------------------------------------------------------------

def near_duplicate_clusters(texts: list[str], threshold: float = 0.8) -> np.ndarray:
    sigs = MinHasher().signatures(texts)
    keys = band_keys(sigs)
    roots = np.arange(len(texts), dtype=np.int64)
    for band in range(keys.shape[1]):
        for edges in candidate_pair_batches(keys[:, band], np.arange(len(texts), dtype=np.uint32)):
            edges = edges_across_clusters(edges, roots)
            roots = cluster_roots(len(texts), confirmed_edges(edges, sigs, threshold), roots=roots)
    return roots


def test_articles_100_planted_pairs_found_and_unrelated_not(articles, truth_pairs):
    ids, texts = articles
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    roots = near_duplicate_clusters(texts)
    found = {(ids[a], ids[b]) for a, b in pairs_within_clusters(roots)}
    truth = {tuple(sorted(pair, key=position.get)) for pair in truth_pairs}
    assert truth and truth <= found
    a, b = truth_pairs[0]
    assert roots[position[a]] == roots[position[b]]
    unrelated = next(i for i in range(len(ids)) if ids[i] not in {x for pair in truth_pairs for x in pair})
    assert roots[unrelated] != roots[position[a]] and roots[unrelated] == unrelated
    assert found == truth  # nothing else in this file is a near duplicate


@pytest.mark.parametrize("scheme", ["affine32", "legacy"])
def test_a_long_document_is_done_in_pieces_with_the_same_result(articles, monkeypatch, scheme):
    """Hostile inputs, case 6: a long text is normalised in whitespace-cut pieces, its spans hashed a
    window at a time and its shingles permuted a scratch chunk at a time. With the piece, window and
    chunk sizes set small (so a few real articles are "long"), every value equals the whole-text path.
    The Greek sentence checks lower()'s final-sigma rule at a cut."""
    texts = [" ".join(articles[1][:40]) + " ΟΔΟΣ ΣΟΦΟΣ\tΣ " * 50, articles[1][0], " ".join(articles[1][40:80])]
    hasher = MinHasher(scheme=scheme)
    whole = ([normalize_for_shingles(t) for t in texts], shingle_hashes(texts), hasher.signatures(texts))
    monkeypatch.setattr(minhash_module, "_PIECE_CHARS", 1000)
    monkeypatch.setattr(minhash_module, "_SPAN_WINDOW", 4096)
    monkeypatch.setattr(minhash_module, "_SHINGLE_CHUNK", 256)
    assert max(len(t) for t in texts) > 20 * 1000
    assert [normalize_for_shingles(t) for t in texts] == whole[0]
    hashes, counts = shingle_hashes(texts)
    assert counts.max() > 10 * 256
    np.testing.assert_array_equal(hashes, whole[1][0])
    np.testing.assert_array_equal(counts, whole[1][1])
    np.testing.assert_array_equal(hasher.signatures(texts), whole[2])


@pytest.mark.parametrize("scheme", ["affine32", "legacy"])
@pytest.mark.parametrize("num_perm, seed", [(128, 1), (100, 42), (16, 0)])
def test_permutations_are_datasketchs_without_importing_it(scheme: str, num_perm: int, seed: int) -> None:
    from corpus.dedup.minhash import datasketch_permutations

    ours = datasketch_permutations(num_perm, seed, scheme)
    theirs = MinHash(num_perm=num_perm, seed=seed, scheme=scheme).permutations
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)


def test_a_word_batch_hashes_its_grams_as_span_hashes64_does() -> None:
    """WordBatch keeps one prefix sum for every gram length; each hash equals span_hashes64's."""
    from corpus.dedup.minhash import WordBatch, span_hashes64

    texts = ["The cat sat on the mat.", "", "Ünïcödé wörds, and numbers 12 345!", "one", "a b c d e f g h i j k l m n"]
    words = WordBatch.of(texts)
    for n in (1, 2, 5, 13):
        for whole in (True, False):
            hashes, doc, first = words.gram_hashes(n, short_as_whole=whole)
            last = first + np.minimum(words.word_counts[doc], n) - 1
            assert np.array_equal(hashes, span_hashes64(words.buffer, words.word_starts[first], words.word_ends[last]))


def test_ascii_normalisation_deletes_what_the_regex_deletes() -> None:
    """An ASCII text is normalised with one str.translate; every ASCII character, alone and between
    words, gives what the Unicode regex path gives."""
    import re

    from corpus.dedup.minhash import normalize_for_shingles

    def by_regex(text: str) -> str:
        return " ".join(re.sub(r"[^\w\s]", "", text.lower()).replace("_", "").split())

    for c in map(chr, range(128)):
        for text in (c, f"Ab{c}Cd ef", f"x {c} y", f"{c}{c}Q_{c}"):
            assert normalize_for_shingles(text) == by_regex(text), repr(text)
