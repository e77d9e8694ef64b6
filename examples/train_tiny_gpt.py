"""Train a tiny GPT for a few steps on the demo token streams (CPU), printing a falling loss.

    .venv/bin/python examples/train_tiny_gpt.py artifacts/tokens/demo/v1/<tokenizer_id> --steps 100

Shows the loader contract a trainer relies on: stateless batches (batch k is a pure function of the
seed and k), resume by one integer, and a held-out loss over the val split that scores every target
exactly once (SequentialEvalDataset)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from corpus.tokens.loader import SequentialEvalDataset, TokenStream, make_train_loader


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.size(1)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), 1)
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, block: int, d: int = 64, layers: int = 2, heads: int = 4):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.size(1), device=idx.device)
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos(pos))))


def eval_loss(model: TinyGPT, stream: TokenStream, block: int, max_windows: int = 32) -> float:
    data = SequentialEvalDataset(stream, block, stride=block)
    total, count = 0.0, 0
    with torch.no_grad():
        for k in range(min(len(data), max_windows)):
            x, y, mask = data[k]
            logits = model(x.unsqueeze(0))[0]
            losses = F.cross_entropy(logits, y, reduction="none")
            total, count = total + float(losses[mask].sum()), count + int(mask.sum())
    return total / max(1, count)


def main(argv=None) -> list[float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tokens_dir", type=Path)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=3e-3)
    args = ap.parse_args(argv)

    torch.manual_seed(args.seed)  # model init only: batches never touch the global RNG
    vocab = json.loads((args.tokens_dir / "_MANIFEST.json").read_text())["tokenizer"]["vocab_size"]
    train = TokenStream.open(args.tokens_dir, "train", verify=True)
    model = TinyGPT(vocab, args.block)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loader = make_train_loader(train, args.block, args.batch, seed=args.seed)
    print(f"{len(train):,} train tokens, vocab {vocab}, uniform loss {math.log(vocab):.2f}")
    losses = []
    for step in range(args.steps):
        x, y = next(loader)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % max(1, args.steps // 10) == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {loss.item():.3f}  (resume with start_step={loader.state_dict()['step']})")
    val = TokenStream.open(args.tokens_dir, "val")
    if len(val) > args.block:
        print(f"val loss {eval_loss(model, val, args.block):.3f}")
    return losses


if __name__ == "__main__":
    main()
