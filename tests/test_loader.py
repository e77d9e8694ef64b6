"""corpus.tokens.loader on small token directories built here with MegatronWriter and a hand-written manifest."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from corpus.store.atomic import sha256_file
from corpus.errors import CorpusError
from corpus.formats.megatron import HEADER, MegatronIndex, MegatronWriter, manifest_file_entry

EOS = 0


@pytest.fixture(scope="module", autouse=True)
def _torch_and_the_loader():
    """torch and corpus.tokens.loader (which imports torch, ~4 s) are imported when this module's tests run, not
    when it is collected: every xdist worker collects it, one runs it."""
    global torch, DataLoader, RandomWindowDataset, SequentialEvalDataset, TokenStream, TrainBatches
    global document_attention_mask, get_batch, make_train_loader, position_ids
    import torch
    from torch.utils.data import DataLoader

    from corpus.tokens.loader import (RandomWindowDataset, SequentialEvalDataset, TokenStream, TrainBatches,
                                      document_attention_mask, get_batch, make_train_loader, position_ids)


def make_docs(rng: np.random.Generator, n_docs: int, high: int, max_len: int = 30) -> list[np.ndarray]:
    """Documents of random ids in 1..high-1, each ending with EOS like the tokenize stage writes them."""
    return [np.append(rng.integers(1, high, size=int(rng.integers(1, max_len))), EOS) for _ in range(n_docs)]


def build_tokens_dir(root: Path, splits: dict[str, list[list[np.ndarray]]], dtype=np.uint16) -> Path:
    """`splits` maps a split to its parts, each a list of documents; writes parts, tokenizer.json, manifest."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "tokenizer.json").write_text("{}")
    h = "0" * 64
    manifest = {"dataset": "t", "version": "v1", "tokenizer_id": "bpe-test", "corpus_manifest_sha256": h,
                "config_sha256": h,
                "tokenizer": {"file": "tokenizer.json", "sha256": sha256_file(root / "tokenizer.json"),
                              "vocab_size": 70_000 if dtype == np.uint32 else 512, "eos_id": EOS,
                              "eos_token": "<|endoftext|>", "dtype": np.dtype(dtype).name,
                              "special_tokens": {"<|endoftext|>": EOS}},
                "seed": 1337, "budgets": {"max_documents": None, "train_tokens": None, "max_tokens_per_file": 1000},
                "splits": {}, "packages": {"corpus": "0.1.0"}}
    for split, parts in {"val": [], **splits}.items():
        files = []
        for k, docs in enumerate(parts):
            prefix = root / split / f"part-{k:05d}"
            with MegatronWriter(prefix, dtype) as w:
                for d in docs:
                    w.add_document(d)
            files.append(manifest_file_entry(prefix, root))
        manifest["splits"][split] = {"docs": sum(f["docs"] for f in files),
                                     "tokens": sum(f["tokens"] for f in files), "files": files}
    (root / "_MANIFEST.json").write_text(json.dumps(manifest, indent=2))
    return root


def flat(parts: list[list[np.ndarray]]) -> np.ndarray:
    return np.concatenate([d for part in parts for d in part]).astype(np.int64)


@pytest.fixture(scope="module")
def two_parts(tmp_path_factory):
    rng = np.random.default_rng(1)
    parts = [make_docs(rng, 60, 512), make_docs(rng, 50, 512), make_docs(rng, 40, 512)]
    root = build_tokens_dir(tmp_path_factory.mktemp("tok"), {"train": parts})
    return root, parts


@pytest.fixture(scope="module")
def stream(two_parts):
    return TokenStream.open(two_parts[0], "train")


@pytest.fixture(scope="module")
def arange_stream(tmp_path_factory):
    """Ids equal to their positions (uint32 for room), in two parts: a target's value names its index."""
    n = 1003
    ids = np.arange(n)
    parts = [[ids[:400], ids[400:700]], [ids[700:]]]
    root = build_tokens_dir(tmp_path_factory.mktemp("ar"), {"train": parts}, dtype=np.uint32)
    return TokenStream.open(root, "train")


# ---- opening

def test_open_exposes_the_split_as_one_stream(two_parts, stream):
    root, parts = two_parts
    whole = flat(parts)
    assert len(stream) == len(whole) and stream.dtype == np.uint16 and len(stream.parts) == 3
    assert np.array_equal(stream.read(0, len(stream)), whole)
    assert stream.n_docs == 150
    assert stream.doc_ends.tolist() == np.cumsum([len(d) for p in parts for d in p]).tolist()
    assert all(whole[e - 1] == EOS for e in stream.doc_ends)
    assert all(isinstance(a, np.memmap) for a in stream._arrays)  # mapped, not loaded


def test_open_checks_manifest_sizes_and_hashes(tmp_path):
    rng = np.random.default_rng(2)
    root = build_tokens_dir(tmp_path / "t", {"train": [make_docs(rng, 5, 512)]})
    write_stage_manifest(root)
    TokenStream.open(root, "train", verify=True)
    (root / "tokenizer.json").write_text('{"changed": true}')
    TokenStream.open(root, "train")
    with pytest.raises(CorpusError, match="tokenizer.json: sha256 mismatch"):
        TokenStream.open(root, "train", verify=True)
    (root / "tokenizer.json").write_text("{}")
    with pytest.raises(CorpusError, match="no split 'test'"):
        TokenStream.open(root, "test")

    bin_path = root / "train" / "part-00000.bin"
    data = bytearray(bin_path.read_bytes())
    data[0] ^= 0xFF  # same size, different bytes: only the sha256 check sees it
    bin_path.write_bytes(bytes(data))
    TokenStream.open(root, "train")
    with pytest.raises(CorpusError, match="part-00000.bin: sha256 mismatch"):
        TokenStream.open(root, "train", verify=True)

    bin_path.write_bytes(bytes(data[:-2]))
    with pytest.raises(CorpusError, match="size mismatch"):
        TokenStream.open(root, "train")

    manifest = json.loads((root / "_MANIFEST.json").read_text())
    manifest["tokenizer"]["vocab_size"] = 70_000  # more ids than uint16 holds
    (root / "_MANIFEST.json").write_text(json.dumps(manifest))
    with pytest.raises(CorpusError, match="does not fit"):
        TokenStream.open(root, "train")
    manifest["tokenizer"]["dtype"] = "int32"
    (root / "_MANIFEST.json").write_text(json.dumps(manifest))
    with pytest.raises(CorpusError, match="tokenizer.dtype"):
        TokenStream.open(root, "train")


def write_stage_manifest(root: Path) -> Path:
    """A `_STAGE.json` listing the manifest, as the tokenize stage publishes it."""
    manifest = root / "_MANIFEST.json"
    stage = {"stage": "tokenize", "corpus_version": "0.1.0", "dataset": "t", "version": "v1",
             "config_sha256": "0" * 64, "params": {}, "inputs": [], "counts": {"docs_in": 0, "docs_out": 0},
             "parts": [{"name": "_MANIFEST.json", "sha256": sha256_file(manifest), "rows": 0,
                        "bytes": manifest.stat().st_size}]}
    (root / "_STAGE.json").write_text(json.dumps(stage))
    return root / "_STAGE.json"


def test_verify_checks_the_manifest_against_its_stage_manifest(tmp_path):
    rng = np.random.default_rng(3)
    root = build_tokens_dir(tmp_path / "t", {"train": [make_docs(rng, 5, 512)]})
    stage_path = write_stage_manifest(root)
    TokenStream.open(root, "train", verify=True)
    manifest = json.loads((root / "_MANIFEST.json").read_text())
    manifest["seed"] = 7  # still schema-valid and consistent: only its sha256 tells
    (root / "_MANIFEST.json").write_text(json.dumps(manifest, indent=2))
    TokenStream.open(root, "train")
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train", verify=True)
    assert one_line(e).startswith(f"{root / '_MANIFEST.json'}: sha256 mismatch: expected ")
    assert f"(recorded in {stage_path})" in str(e.value)


def test_empty_split(two_parts):
    val = TokenStream.open(two_parts[0], "val")
    assert len(val) == 0 and val.n_docs == 0
    assert len(SequentialEvalDataset(val, 8)) == 0
    with pytest.raises(ValueError, match="no window"):
        get_batch(val, 8, 2, torch.Generator().manual_seed(0))


# ---- random batches

def test_shift_contract_and_content(stream):
    T, B = 32, 16
    x, y = get_batch(stream, T, B, torch.Generator().manual_seed(7))
    assert x.shape == y.shape == (B, T) and x.dtype == y.dtype == torch.int64
    assert torch.equal(y[:, :-1], x[:, 1:])
    whole = stream.read(0, len(stream)).astype(np.int64)
    offsets = torch.randint(0, len(stream) - T, (B,), generator=torch.Generator().manual_seed(7))
    for row, o in enumerate(offsets.tolist()):
        assert np.array_equal(x[row].numpy(), whole[o:o + T]) and np.array_equal(y[row].numpy(), whole[o + 1:o + T + 1])


def test_offsets_cover_exactly_zero_to_len_minus_T_minus_1(arange_stream):
    T = len(arange_stream) - 4  # 4 possible offsets: 0..3
    g = torch.Generator().manual_seed(0)
    starts = set()
    for _ in range(50):
        x, _ = get_batch(arange_stream, T, 8, g)
        starts.update(x[:, 0].tolist())
    assert starts == {0, 1, 2, 3}


def test_window_across_part_boundary_equals_concatenation(two_parts, stream):
    _, parts = two_parts
    boundary = sum(map(len, parts[0]))
    part0, part1 = np.concatenate(parts[0]), np.concatenate(parts[1])
    w = stream.windows(np.array([boundary - 5]), 12)[0]
    assert np.array_equal(w, np.concatenate([part0[-5:], part1[:7]]))
    whole = flat(parts)  # a window spanning all three parts
    start = boundary - 3
    span = len(part1) + 6
    assert np.array_equal(stream.windows(np.array([start]), span)[0], whole[start:start + span])


def test_uint32_ids_survive(tmp_path):
    rng = np.random.default_rng(3)
    docs = [np.append(rng.integers(65_536, 70_000, size=20), EOS) for _ in range(10)]
    root = build_tokens_dir(tmp_path / "t", {"train": [docs[:5], docs[5:]]}, dtype=np.uint32)
    s = TokenStream.open(root, "train")
    assert s.dtype == np.uint32
    x, y = get_batch(s, 16, 8, torch.Generator().manual_seed(0))
    assert int(x.max()) >= 65_536 and x.dtype == torch.int64
    assert np.array_equal(s.read(0, len(s)), np.concatenate(docs))


# ---- the stateless training loader

def test_resume_at_step_k_equals_uninterrupted_sweep(stream):
    sweep = [next(loader) for loader in [make_train_loader(stream, 16, 4, seed=1337)] for _ in range(10)]
    resumed = make_train_loader(stream, 16, 4, seed=1337, start_step=5)
    for k in range(5, 10):
        x, y = next(resumed)
        assert torch.equal(x, sweep[k][0]) and torch.equal(y, sweep[k][1])

    loader = make_train_loader(stream, 16, 4, seed=1337)
    for _ in range(3):
        next(loader)
    assert loader.state_dict() == {"step": 3, "seed": 1337}
    restored = make_train_loader(stream, 16, 4, seed=1337)
    restored.load_state_dict({"step": 7, "seed": 1337})
    assert torch.equal(next(restored)[0], sweep[7][0])


def test_seed_sensitivity_and_distinct_steps(stream):
    a = next(make_train_loader(stream, 16, 4, seed=1337, start_step=5))[0]
    b = next(make_train_loader(stream, 16, 4, seed=1338, start_step=5))[0]
    c = next(make_train_loader(stream, 16, 4, seed=1337, start_step=6))[0]
    assert not torch.equal(a, b) and not torch.equal(a, c)


def test_global_rng_untouched(stream):
    torch.manual_seed(123)
    np.random.seed(123)
    torch_state, np_state = torch.get_rng_state(), np.random.get_state()
    loader = make_train_loader(stream, 16, 4, seed=1)
    for _ in range(3):
        next(loader)
    ds = RandomWindowDataset(stream, 16, 10, seed=1)
    ds.set_epoch(2)
    ds[3]
    get_batch(stream, 16, 4, torch.Generator().manual_seed(0))
    assert torch.equal(torch.get_rng_state(), torch_state)
    assert all(np.array_equal(a, b) for a, b in zip(np.random.get_state(), np_state))


# ---- eval windows

@pytest.mark.parametrize("stride", [16, 8, 1])
def test_every_target_scored_exactly_once(arange_stream, stride):
    T, n = 16, len(arange_stream)
    ds = SequentialEvalDataset(arange_stream, T, stride)
    hits = np.zeros(n, dtype=np.int64)
    for k in range(len(ds)):
        x, y, mask = ds[k]
        assert x.shape == y.shape == mask.shape == (T,) and mask.dtype == torch.bool
        assert torch.equal(y[:-1], x[1:])
        np.add.at(hits, y[mask].numpy(), 1)  # ids are positions
        if 0 < k < len(ds) - 1:
            assert int(mask.sum()) == stride and bool(mask[-stride:].all())  # only the new targets
    assert hits[0] == 0 and (hits[1:] == 1).all()
    assert int(ds.starts[-1]) == n - 1 - T  # the right-aligned tail window


def test_short_stream_gives_one_unpadded_window(tmp_path):
    root = build_tokens_dir(tmp_path / "t", {"train": [[np.array([5, 6, 7, 8, EOS])]]})
    ds = SequentialEvalDataset(TokenStream.open(root, "train"), 16)
    assert len(ds) == 1
    x, y, mask = ds[0]
    assert x.tolist() == [5, 6, 7, 8] and y.tolist() == [6, 7, 8, EOS] and mask.all()


def test_eval_rejects_bad_stride(stream):
    for stride in (0, 17):
        with pytest.raises(ValueError):
            SequentialEvalDataset(stream, 16, stride)


# ---- datasets and DataLoader

def test_random_window_dataset_depends_only_on_seed_epoch_index(stream):
    ds = RandomWindowDataset(stream, 16, 20, seed=5)
    forward = [ds[i][0] for i in range(20)]
    backward = [RandomWindowDataset(stream, 16, 20, seed=5)[i][0] for i in reversed(range(20))][::-1]
    assert all(torch.equal(a, b) for a, b in zip(forward, backward))
    ds.set_epoch(1)
    assert not all(torch.equal(ds[i][0], forward[i]) for i in range(20))
    ds.set_epoch(0)
    assert all(torch.equal(ds[i][0], forward[i]) for i in range(20))
    x, y = ds[0]
    assert x.shape == (16,) and torch.equal(y[:-1], x[1:])


def test_dataloader_workers_give_identical_batches(stream):
    ds = RandomWindowDataset(stream, 16, 24, seed=9)
    runs = [list(DataLoader(ds, batch_size=4, num_workers=w)) for w in (0, 2)]
    assert len(runs[0]) == len(runs[1]) == 6
    for (x0, y0), (x1, y1) in zip(*runs):
        assert torch.equal(x0, x1) and torch.equal(y0, y1)

    expected = [next(loader) for loader in [make_train_loader(stream, 16, 4, seed=3, start_step=2)] for _ in range(6)]
    for w in (0, 2):
        got = list(DataLoader(TrainBatches(stream, 16, 4, seed=3, start_step=2, num_steps=6), batch_size=None, num_workers=w))
        assert len(got) == 6
        assert all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in zip(got, expected))


def test_pin_memory_is_graceful_without_an_accelerator(stream):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, y = get_batch(stream, 16, 4, torch.Generator().manual_seed(0), pin_memory=True)
        x2, _ = next(make_train_loader(stream, 16, 4, seed=0, pin_memory=True))
        batches = list(DataLoader(RandomWindowDataset(stream, 16, 8, seed=0), batch_size=4, pin_memory=True))
    assert x.shape == (4, 16) and len(batches) == 2
    assert x.is_pinned() == torch.accelerator.is_available()


# ---- document boundaries

def test_doc_info_position_ids_and_attention_mask(stream):
    T = 48
    x, y, doc_ids = get_batch(stream, T, 8, torch.Generator().manual_seed(11), return_doc_info=True)
    assert doc_ids.shape == (8, T) and doc_ids.dtype == torch.int64
    whole = stream.read(0, len(stream))
    ends = stream.doc_ends
    pos = position_ids(doc_ids)
    mask = document_attention_mask(doc_ids)
    for b in range(8):
        for t in range(T):
            d = int(doc_ids[b, t])
            if t > 0 and x[b, t - 1] == EOS:
                assert d == int(doc_ids[b, t - 1]) + 1 and pos[b, t] == 0  # a new document right after EOS
            elif t > 0:
                assert d == int(doc_ids[b, t - 1]) and pos[b, t] == pos[b, t - 1] + 1
        assert bool((doc_ids[b, 1:] >= doc_ids[b, :-1]).all())
    # doc ids agree with the .idx: each token lies inside its document's [start, end)
    offsets = torch.randint(0, len(stream) - T, (8,), generator=torch.Generator().manual_seed(11)).numpy()
    starts = np.concatenate([[0], ends[:-1]])
    for b in range(8):
        for t in range(T):
            d = int(doc_ids[b, t])
            assert starts[d] <= offsets[b] + t < ends[d] and whole[ends[d] - 1] == EOS
    assert mask.shape == (8, T, T) and mask.dtype == torch.bool
    same = doc_ids[:, :, None] == doc_ids[:, None, :]
    assert torch.equal(mask, same & torch.ones(T, T, dtype=torch.bool).tril())
    assert not mask[:, 0, 1:].any()  # causal


def test_doc_info_in_datasets(stream):
    x, y, d = RandomWindowDataset(stream, 16, 4, seed=0, return_doc_info=True)[1]
    assert d.shape == (16,)
    x, y, m, d = SequentialEvalDataset(stream, 16, 8, return_doc_info=True)[2]
    assert d.shape == (16,) and m.shape == (16,)
    xb, yb, db = next(make_train_loader(stream, 16, 4, seed=0, return_doc_info=True))
    assert db.shape == (4, 16)


def test_stream_pickles_without_its_data(stream):
    import pickle

    blob = pickle.dumps(stream)
    assert len(blob) < 4096  # paths and offsets, not the memmapped tokens (spawned workers reopen them)
    clone = pickle.loads(blob)
    assert np.array_equal(clone.read(0, len(clone)), stream.read(0, len(stream)))
    assert np.array_equal(clone.doc_ends, stream.doc_ends)


def test_window_doc_ids_match_a_search_per_token(tmp_path):
    rng = np.random.default_rng(4)
    docs = make_docs(rng, 40, 512, max_len=6)
    docs[3] = docs[4] = np.array([], dtype=np.int64)  # empty documents repeat an end offset
    root = build_tokens_dir(tmp_path / "t", {"train": [docs[:20], docs[20:]]})
    s = TokenStream.open(root, "train")
    offsets = np.concatenate([np.arange(0, len(s) - 10), [0, len(s) - 10]])
    positions = offsets[:, None] + np.arange(10)
    assert np.array_equal(s.window_doc_ids(offsets, 10), s.doc_ids(positions))


# ---- tampered directories: refused by default, in one line naming the file and the place

def tampered_copy(tmp_path: Path, dtype=np.uint16) -> tuple[Path, list[list[np.ndarray]]]:
    """Two parts of documents of distinct lengths (so swapping two lengths moves a pointer)."""
    rng = np.random.default_rng(5)
    docs = [np.append(rng.integers(1, 512, size=n), EOS) for n in range(3, 23)]
    parts = [docs[:12], docs[12:]]
    return build_tokens_dir(tmp_path / "t", {"train": parts}, dtype=dtype), parts


def patch(path: Path, offset: int, data: bytes) -> None:
    blob = bytearray(path.read_bytes())
    blob[offset:offset + len(data)] = data
    path.write_bytes(bytes(blob))


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message
    return message


def test_a_flipped_bin_byte_is_refused_as_it_is_read(tmp_path):
    root, parts = tampered_copy(tmp_path)
    bin_path = root / "train" / "part-00001.bin"
    position = 17
    patch(bin_path, 2 * position, b"\xff\xff")  # id 65535 in a vocabulary of 512; same size, so open passes
    s = TokenStream.open(root, "train")
    expected = f"{bin_path}: token id 65535 at position {position} is not below the vocabulary size 512"
    global_position = sum(map(len, parts[0])) + position
    T = len(s) - 2  # offsets 0..1: every batch covers the tampered token
    for read in (lambda: get_batch(s, T, 4, torch.Generator().manual_seed(0)),
                 lambda: next(make_train_loader(s, T, 2, seed=0)),
                 lambda: s.read(0, len(s)),
                 lambda: s.windows(np.array([3, global_position - 4]), 8),  # the culprit in row 1
                 lambda: [SequentialEvalDataset(s, 16)[k] for k in range(len(SequentialEvalDataset(s, 16)))],
                 lambda: RandomWindowDataset(s, T, 2, seed=0)[0]):
        with pytest.raises(CorpusError) as e:
            read()
        assert one_line(e) == expected
    x, _ = get_batch(s, 8, 4, torch.Generator().manual_seed(0))  # windows that miss it still read
    assert int(x.max()) < 512


def test_a_uint32_id_at_or_past_the_vocabulary_is_refused(tmp_path):
    root, _ = tampered_copy(tmp_path, dtype=np.uint32)
    bin_path = root / "train" / "part-00000.bin"
    for bad in (70_000, 2**32 - 1):  # the vocabulary size itself; -1 as Megatron's int32
        patch(bin_path, 4 * 5, np.array([bad], dtype="<u4").tobytes())
        s = TokenStream.open(root, "train")
        with pytest.raises(CorpusError) as e:
            s.read(0, len(s))
        assert one_line(e) == f"{bin_path}: token id {bad} at position 5 is not below the vocabulary size 70000"


def idx_arrays(prefix: Path) -> tuple[np.ndarray, np.ndarray]:
    index = MegatronIndex(prefix)
    return index.lengths.astype(np.int64), index.pointers.astype(np.int64)


def test_swapped_idx_lengths_are_refused_on_open(tmp_path):
    root, _ = tampered_copy(tmp_path)
    prefix = root / "train" / "part-00000"
    idx_path = prefix.with_name("part-00000.idx")
    lengths, pointers = idx_arrays(prefix)
    assert lengths[1] != lengths[2]
    patch(idx_path, HEADER.size + 4, lengths[[2, 1]].astype("<i4").tobytes())  # same total, same file size
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train")
    assert one_line(e) == (f"{idx_path}: document 2: pointer {pointers[2]} is not the running sum of the lengths "
                           f"before it times 2 bytes ({2 * (lengths[0] + lengths[2])})")


def test_a_pointer_past_the_end_is_refused_on_open(tmp_path):
    root, _ = tampered_copy(tmp_path)
    prefix = root / "train" / "part-00000"
    idx_path, bin_path = prefix.with_name("part-00000.idx"), prefix.with_name("part-00000.bin")
    n = len(idx_arrays(prefix)[0])
    patch(idx_path, HEADER.size + 4 * n + 8 * 3, np.array([10**12], dtype="<i8").tobytes())
    expected = (f"{idx_path}: document 3: pointer 1000000000000 past the end of {bin_path} "
                f"({bin_path.stat().st_size} bytes)")
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train")
    assert one_line(e) == expected
    with pytest.raises(CorpusError) as e:  # the manifest-less constructor checks the same
        TokenStream.from_megatron([prefix])
    assert one_line(e) == expected


def test_lengths_that_do_not_sum_to_the_bin_are_refused_on_open(tmp_path):
    root, _ = tampered_copy(tmp_path)
    prefix = root / "train" / "part-00001"
    idx_path, bin_path = prefix.with_name("part-00001.idx"), prefix.with_name("part-00001.bin")
    lengths, _ = idx_arrays(prefix)
    last = len(lengths) - 1
    patch(idx_path, HEADER.size + 4 * last, np.array([lengths[-1] - 1], dtype="<i4").tobytes())
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train")
    total = int(lengths.sum()) - 1
    assert one_line(e) == (f"{idx_path}: lengths sum to {total} tokens ({2 * total} bytes), "
                           f"but {bin_path} has {bin_path.stat().st_size} bytes")

    patch(idx_path, HEADER.size, np.array([-1], dtype="<i4").tobytes())
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train")
    assert one_line(e) == f"{idx_path}: document 0: negative length -1"


def test_a_tampered_document_index_is_refused_on_open(tmp_path):
    root, _ = tampered_copy(tmp_path)
    prefix = root / "train" / "part-00000"
    idx_path = prefix.with_name("part-00000.idx")
    n = len(idx_arrays(prefix)[0])
    patch(idx_path, HEADER.size + 12 * n + 8 * 4, np.array([7], dtype="<i8").tobytes())
    with pytest.raises(CorpusError) as e:
        TokenStream.open(root, "train")
    assert one_line(e) == f"{idx_path}: document index entry 4 is 7, expected 4 (one sequence per document)"


def test_untampered_directory_reads_identically_with_and_without_verify(tmp_path):
    root, parts = tampered_copy(tmp_path)
    write_stage_manifest(root)
    whole = flat(parts)
    default, verified = TokenStream.open(root, "train"), TokenStream.open(root, "train", verify=True)
    assert np.array_equal(default.read(0, len(default)), whole)
    T, B = 24, 6
    for step in range(5):
        offsets = torch.randint(0, len(whole) - T, (B,), generator=torch.Generator().manual_seed(step)).tolist()
        for s in (default, verified):
            x, y = get_batch(s, T, B, torch.Generator().manual_seed(step))
            assert np.array_equal(x.numpy(), np.stack([whole[o:o + T] for o in offsets]))
            assert np.array_equal(y.numpy(), np.stack([whole[o + 1:o + T + 1] for o in offsets]))
    for a, b in zip(SequentialEvalDataset(default, 16, 8), SequentialEvalDataset(verified, 16, 8)):
        assert all(torch.equal(u, v) for u, v in zip(a, b))
