"""filters.fasttext_numpy gives fastText's predictions bit for bit: on real text in many languages, with the
bundled lid.176 model (hierarchical softmax, quantized) and a trained quality model (softmax, dense, word
bigrams), and on the tokens fastText treats specially."""

import numpy as np
import pytest
from conftest import mirror_file

from corpus.filters import lang
from corpus.filters.fasttext_numpy import FastTextNumpy, expf, fasttext_words, spaced_words

LINGUA = ["lingua-en", "lingua-fr", "lingua-de", "lingua-es", "lingua-ru", "lingua-zh", "lingua-ja", "lingua-ar",
          "lingua-hi", "lingua-pl", "lingua-tr"]


def _reference(model, line: str) -> tuple[str, float] | None:
    labels, scores = model.predict(line, k=1)
    return (labels[0], float(scores[0])) if labels else None


def _texts() -> list[str]:
    out = []
    for source in LINGUA + ["udhr", "webtext", "genesis-utf8"]:
        lines = [ln for ln in mirror_file(source).read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        out += lines[:150]
        out += [" ".join(lines[i:i + 12]) for i in range(0, min(len(lines), 600), 12)]  # paragraphs
    return out


def test_language_id_is_fasttexts_bit_for_bit_on_real_text(mirror):
    ft, ours = lang.load_model(), lang.load_batch_model()
    texts = _texts()
    assert len(texts) > 2500
    want = [_reference(ft, " ".join(t.split())) for t in texts]
    got = []
    for i in range(0, len(texts), 200):
        got += ours.predict_top1([spaced_words(t) for t in texts[i:i + 200]])
    assert got == want
    assert len({w[0] for w in want if w}) >= 10  # the set spans many languages


@pytest.mark.parametrize("line", [
    "", "a", "</s>", "hello </s> world and more", "__label__en bonjour le monde", "x\0y \0 z",
    "naïve café déjà vu", "中文 文本 没有 空格的", "\U0001F600 emoji \U0001F680", "a" * 5000,
    "mixed\u00a0nbsp\u2003em space", "tab\tand\x1fseparator",
])
def test_special_tokens_and_characters(line):
    ft, ours = lang.load_model(), lang.load_batch_model()
    words = fasttext_words(line)
    want = _reference(ft, " ".join(words)) if words else _reference(ft, "")
    assert ours.predict_top1([words]) == [want]
    assert ours.predict_top1([spaced_words(line)]) == [_reference(ft, " ".join(spaced_words(line)))]


def test_word_cache_is_bounded_and_results_do_not_depend_on_it(monkeypatch, mirror):
    import corpus.filters.fasttext_numpy as fn

    texts = _texts()[:400]
    fresh = FastTextNumpy.load(str(lang.bundled_model_path()))
    want = fresh.predict_top1([spaced_words(t) for t in texts])
    monkeypatch.setattr(fn, "WORD_CACHE_SIZE", 500)
    small = FastTextNumpy.load(str(lang.bundled_model_path()))
    got = []
    for t in texts:  # one at a time: the cache is cleared many times
        got += small.predict_top1([spaced_words(t)])
        assert len(small.cache) <= 500 + len(set(spaced_words(t))) + 1
    assert got == want


def test_expf_is_glibcs_on_hard_values():
    import ctypes

    libm = ctypes.CDLL("libm.so.6")
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    # among the values where float32(exp(double)) and glibc's expf differ (found by an exhaustive search)
    hard = np.array([float.fromhex(h) for h in ("0x1.fefe02p-16", "0x1.5b3c52p-14", "0x1.cd3982p-14",
                                                 "0x1.dfb8fap-14", "0x1.fbb822p-14")], np.float32)
    rng = np.random.default_rng(0)
    x = np.concatenate([hard, rng.uniform(-30, 30, 20000).astype(np.float32)])
    want = np.array([libm.expf(float(v)) for v in x], np.float32)
    assert np.exp(hard.astype(np.float64)).astype(np.float32).tolist() != want[:5].tolist()  # the hard part
    assert expf(x.copy()).view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_a_model_it_does_not_reproduce_is_left_to_fasttext(tmp_path):
    bad = tmp_path / "not-a-model.bin"
    bad.write_bytes(b"\0" * 64)
    assert FastTextNumpy.load(str(bad)) is None
