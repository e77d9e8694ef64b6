"""The `corpus` command: one subcommand per stage, plus ledger tools. Errors are one line and exit non-zero."""

from __future__ import annotations

import logging
import sys
import time

import click

from . import __version__
from .config import Config, load_config
from .errors import CorpusError

log = logging.getLogger("corpus")


def _setup_logging(verbose: int, quiet: bool) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", "%H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


class Ctx:
    def __init__(self, config_path: str | None, artifacts: str | None):
        self.config_path, self.artifacts = config_path, artifacts
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.config_path, artifacts=self.artifacts)
        return self._config

    def workers(self, workers: int | None) -> int:
        return workers if workers is not None else self.config["run"]["workers"]


pass_ctx = click.make_pass_decorator(Ctx)
workers_option = click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
                              help="Worker processes (default [run].workers). Never changes output bytes.")
force_option = click.option("--force", is_flag=True, help="Rebuild even if the output is already published.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", envvar="CORPUS_CONFIG", default=None, metavar="PATH",
              help="Corpus config (TOML). Env CORPUS_CONFIG; default configs/demo.toml.")
@click.option("--artifacts", envvar="CORPUS_ARTIFACTS", default=None, metavar="DIR",
              help="Artifacts root. Env CORPUS_ARTIFACTS; else [paths].artifacts; else /artifacts.")
@click.option("-v", "--verbose", count=True, help="More log output (debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors.")
@click.version_option(__version__, prog_name="corpus")
@click.pass_context
def cli(ctx: click.Context, config_path, artifacts, verbose, quiet):
    """Prepare LLM pretraining data: fetch → normalize → filter → dedup → pii → shard → tokenize.

    Every stage reads the previous stage's published output, checks it against its manifest and
    checksums, and publishes its own output atomically with a _STAGE.json manifest."""
    _setup_logging(verbose, quiet)
    ctx.obj = Ctx(config_path, artifacts)


# ---------------------------------------------------------------- 01 fetch

@cli.command()
@workers_option
@force_option
@click.option("--source", "sources", multiple=True, metavar="ID",
              help="Fetch only this ledger source (repeatable). Default: the dataset's sources and evals.")
@pass_ctx
def fetch(c: Ctx, workers, force, sources):
    """Stage 01: read ledger sources into corpus/raw/<source_id>/<yyyymmdd>/part-*.jsonl.zst.

    Files come from the mirror (CORPUS_MIRROR), the download cache or their URL, and are checked
    against the ledger's sha256 and size before use. A source already fetched with the same ledger
    facts is left untouched (its parts are verified, nothing is read or rewritten)."""
    from .stages.fetch import run_fetch

    cfg = c.config
    t0 = time.monotonic()
    results = run_fetch(cfg, workers=c.workers(workers), executor=cfg["run"]["executor"], force=force,
                        only=sources)
    wall = time.monotonic() - t0
    click.echo(f"{'source':<28} {'status':<8} {'found in':<10} {'docs':>8} {'MB':>7} {'s':>6}")
    for r in results:
        click.echo(f"{r['source_id']:<28} {r['status']:<8} {r['how']:<10} {r['docs']:>8} "
                   f"{r['bytes'] / 1e6:>7.2f} {r['seconds']:>6.2f}")
    fetched = [r for r in results if r["status"] == "fetched"]
    docs, mb = sum(r["docs"] for r in fetched), sum(r["bytes"] for r in fetched) / 1e6
    click.echo(f"fetched {len(fetched)} of {len(results)} sources: {docs} docs, {mb:.2f} MB in {wall:.2f}s"
               + (f" ({docs / wall:,.0f} docs/s, {mb / wall:.2f} MB/s)" if fetched and wall > 0 else ""))


# ---------------------------------------------------------------- 02–05: per-part stages

resume_option = click.option("--resume", is_flag=True,
                             help="Continue an interrupted run: keep finished parts whose checksums verify.")


def _print_counts(manifest: dict, wall: float) -> None:
    c = manifest["counts"]
    mb = sum(p["bytes"] for p in manifest["parts"]) / 1e6
    extra = ", ".join(f"{k} {v}" for k, v in c.items() if isinstance(v, int) and k not in ("docs_in", "docs_out"))
    if manifest.get("_current"):
        click.echo(f"{manifest['stage']}: current (config and inputs unchanged); use --force to rebuild")
        wall = 0.0
    click.echo(f"{manifest['stage']}: {c['docs_in']} docs in, {c['docs_out']} out"
               + (f" ({extra})" if extra else "")
               + f"; {len(manifest['parts'])} parts, {mb:.2f} MB; {wall:.2f}s"
               + (f", {c['docs_in'] / wall:,.0f} docs/s" if wall > 0 else ""))


@cli.command()
@workers_option
@force_option
@resume_option
@pass_ctx
def normalize(c: Ctx, workers, force, resume):
    """Stage 02: NFC, newlines, control characters, trailing spaces ([normalize]); assigns ids.

    One Parquet part per raw part in corpus/<dataset>/<version>/stages/02-normalize/."""
    from .stages.normalize import run_normalize

    t0 = time.monotonic()
    manifest = run_normalize(c.config, workers=c.workers(workers), force=force, resume=resume)
    _print_counts(manifest, time.monotonic() - t0)


@cli.command("filter")
@workers_option
@force_option
@resume_option
@pass_ctx
def filter_cmd(c: Ctx, workers, force, resume):
    """Stage 03: language ID, Gopher quality, Gopher repetition, perplexity ([filters.*]).

    Kept documents gain `lang` and `lang_score`; each dropped one goes to rejects/ with the filter,
    rule and measured value that dropped it (see `corpus rejects`)."""
    from .stages.filter import run_filter

    t0 = time.monotonic()
    manifest = run_filter(c.config, workers=c.workers(workers), force=force, resume=resume)
    _print_counts(manifest, time.monotonic() - t0)
    _print_drops(manifest)


def _print_drops(manifest: dict) -> None:
    c = manifest["counts"]
    for name, n in c.get("dropped", {}).items():
        rules = {k.split(".", 1)[1]: v for k, v in c.get("dropped_by_rule", {}).items() if k.startswith(name + ".")}
        click.echo(f"  dropped by {name:<11} {n:>7}" + (f"   {rules}" if rules else ""))
    for sid, s in c.get("by_source", {}).items():
        click.echo(f"  {sid:<28} kept {s['docs_out']:>7} of {s['docs_in']:>7} "
                   f"({100 * s['docs_out'] / max(1, s['docs_in']):5.1f}%)")


@cli.command()
@click.option("--stage", type=click.Choice(["filter", "dedup"]), default="filter", show_default=True,
              help="filter: stage 03 rejects; dedup: stage 04 drops (decontam, exact, near).")
@click.option("--filter", "filter_name", default=None, help="Only this filter (lang, gopher, repetition, ppl).")
@click.option("--rule", default=None, help="Only this rule (e.g. min_words) or dedup reason (e.g. near).")
@click.option("--source", default=None, help="Only documents of this source_id.")
@click.option("-n", "--per-rule", type=click.IntRange(min=1), default=3, show_default=True,
              help="Documents shown per rule (spread evenly over the rule's rejects in id order).")
@click.option("--width", type=click.IntRange(min=20), default=160, show_default=True, help="Characters of text shown.")
@pass_ctx
def rejects(c: Ctx, stage, filter_name, rule, source, per_rule, width):
    """Show why documents were dropped: counts and a sample per filter rule (stage 03) or per dedup
    reason (stage 04, with the kept twin or the eval set and n-gram)."""
    from .rejects import sample_rejects

    for (f, r), n, sample in sample_rejects(c.config, stage=stage, filter_name=filter_name, rule=rule,
                                            source=source, per_rule=per_rule):
        click.echo(f"{f}.{r}: {n} documents")
        for row in sample:
            text = " ".join(row["text"].split())
            text = text if len(text) <= width else text[: width - 1] + "…"
            if stage == "dedup":
                why = (f"duplicate_of={row['duplicate_of']}" if row["duplicate_of"] else
                       f"eval={row['eval_source']} ngram=\"{row['matched_ngram']}\"")
                click.echo(f"  {row['id']:<32} {why}\n      {text}")
            else:
                click.echo(f"  {row['id']:<32} value={row['value']:<10.4g} {text}")


@cli.command()
@workers_option
@force_option
@resume_option
@pass_ctx
def dedup(c: Ctx, workers, force, resume):
    """Stage 04: decontamination against [decontam].evals, exact and MinHash-LSH near-dedup ([dedup]).

    Kept documents gain `minhash_cluster`; each dropped one goes to dropped/ with its reason and the
    id it duplicates or the eval set and n-gram it shares."""
    from .stages.dedup import run_dedup

    t0 = time.monotonic()
    m = run_dedup(c.config, workers=c.workers(workers), force=force, resume=resume)
    _print_counts(m, time.monotonic() - t0)
    for reason, n in m["counts"].get("dropped", {}).items():
        click.echo(f"  dropped as {reason:<9} {n:>7}")
    for ev, n in m["counts"].get("decontam_by_eval", {}).items():
        click.echo(f"    overlaps {ev:<18} {n:>5}")


@cli.command()
@workers_option
@force_option
@resume_option
@pass_ctx
def pii(c: Ctx, workers, force, resume):
    """Stage 05: replace e-mails, phones, cards, IPs and secret keys by <EMAIL> <PHONE> <CARD> <IP> <KEY>."""
    from .stages.pii import run_pii

    t0 = time.monotonic()
    m = run_pii(c.config, workers=c.workers(workers), force=force, resume=resume)
    _print_counts(m, time.monotonic() - t0)
    click.echo("  redactions: " + ", ".join(f"{k} {v}" for k, v in m["counts"].get("redactions", {}).items()))


# ---------------------------------------------------------------- 06 shard, 07 tokenize, export

@cli.command()
@workers_option
@force_option
@pass_ctx
def shard(c: Ctx, workers, force):
    """Stage 06: sorted, content-hash-split Parquet shards and _MANIFEST.json.

    Rows sorted by id (byte order) across the dataset, cut every [shard].shard_rows rows into
    corpus/<dataset>/<version>/shard-<iiiii>-of-<nnnnn>.parquet; split = val when
    int.from_bytes(sha256[:8], "big") % 1000 < [shard].val_permille."""
    from .stages.shard import run_shard

    t0 = time.monotonic()
    m = run_shard(c.config, workers=c.workers(workers), force=force)
    if m.get("_current"):
        click.echo("shard: current (config and inputs unchanged); use --force to rebuild")
    click.echo(f"shard: {m['n_docs']} docs in {m['n_shards']} shards (train {m['splits']['train']}, "
               f"val {m['splits']['val']}) in {time.monotonic() - t0:.2f}s → {c.config.dataset_dir}")


@cli.command()
@workers_option
@force_option
@resume_option
@click.option("--max-documents", type=click.IntRange(min=0), default=None,
              help="Train on at most N documents of the shuffled order (val is not capped).")
@click.option("--train-tokens", type=click.IntRange(min=0), default=None,
              help="Stop after the train document that crosses N tokens (val is not capped).")
@pass_ctx
def tokenize(c: Ctx, workers, force, resume, max_documents, train_tokens):
    """Stage 07: token streams (.bin + Megatron .idx) per split, in a seeded global permutation.

    The tokenizer is the pinned [tokenize].tokenizer (checked against tokenizer_sha256) or a byte-level
    BPE trained on the train split. Output: tokens/<dataset>/<version>/<tokenizer_id>/."""
    from .stages.tokenize import run_tokenize

    t0 = time.monotonic()
    m, path = run_tokenize(c.config, workers=c.workers(workers), force=force, resume=resume,
                           max_documents=max_documents, train_tokens=train_tokens)
    if m.get("_current"):
        click.echo("tokenize: current (corpus, config and budgets unchanged); use --force to rebuild")
    t = m["tokenizer"]
    click.echo(f"tokenize: {m['tokenizer_id']} (vocab {t['vocab_size']}, {t['dtype']}, EOS {t['eos_id']}) → {path}")
    for split, info in m["splits"].items():
        click.echo(f"  {split:<5} {info['docs']:>8} docs {info['tokens']:>11} tokens in {len(info['files'])} parts")
    click.echo(f"  {time.monotonic() - t0:.2f}s")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["nanogpt", "llmc", "datatrove"]), required=True)
@click.option("--tokens", "tokens_dir", default=None, metavar="DIR",
              help="Token streams to export (default: the only one of the dataset).")
@click.option("--out", default=None, metavar="DIR", help="Output directory (default <tokens>/export-<format>).")
@pass_ctx
def export(c: Ctx, fmt, tokens_dir, out):
    """Write the token streams as nanoGPT train.bin/val.bin, llm.c shards, or datatrove .ds files."""
    from .stages.export import run_export

    for path in run_export(c.config, fmt, tokens_dir=tokens_dir, out=out):
        click.echo(str(path))


# ---------------------------------------------------------------- run, audit

@cli.command()
@workers_option
@click.option("--through", type=click.Choice(["fetch", "normalize", "filter", "dedup", "pii", "shard", "tokenize"]),
              default="tokenize", show_default=True, help="Last stage to run.")
@pass_ctx
def run(c: Ctx, workers, through):
    """Every stage in order, skipping stages that are complete and current (config and inputs
    unchanged, checksums verified), recomputing a stale stage and every stage after it."""
    from .pipeline import run_all

    t0 = time.monotonic()
    rows = run_all(c.config, workers=c.workers(workers), through=through)
    click.echo(f"{'stage':<10} {'status':<11} {'seconds':>8}  summary")
    for stage, status, seconds, summary in rows:
        click.echo(f"{stage:<10} {status:<11} {seconds:>8.2f}  {summary}")
    click.echo(f"all stages through {through} in {time.monotonic() - t0:.1f}s; artifacts under {c.config.artifacts}")


@cli.command()
@pass_ctx
def audit(c: Ctx):
    """Validate every manifest against its schema, recompute every sha256, check that document counts
    add up across stages and that every shard's licences are in the ledger. Non-zero exit on any problem."""
    from .audit import audit as run_audit

    checks = run_audit(c.config)
    for ch in checks:
        click.echo(f"{'WARN' if ch.warn else 'OK' if ch.ok else 'FAIL':<5} {ch.what:<30} {ch.detail}")
    failed = [ch for ch in checks if not ch.ok]
    click.echo(f"{len(checks)} checks, {len(failed)} failed")
    if failed:
        raise CorpusError(failed[0].detail if failed[0].path in failed[0].detail else f"{failed[0].path}: {failed[0].detail}")


@cli.command()
@pass_ctx
def report(c: Ctx):
    """Summarise the dataset: documents per stage, per source (kept, train/val, licence), what was dropped."""
    import json

    from .stages.shard import MANIFEST

    path = c.config.dataset_dir / MANIFEST
    if not path.is_file():
        raise CorpusError(f"{path}: no corpus manifest (run `corpus run` first)")
    m = json.loads(path.read_text())
    click.echo(f"{m['dataset']} {m['version']}: {m['n_docs']} documents in {m['n_shards']} shards "
               f"(train {m['splits']['train']}, val {m['splits']['val']}); config {m['config_sha256'][:12]}")
    stages = [s for s in ("normalize", "filter", "dedup", "pii") if s in m["docs_per_stage"]]
    click.echo("documents through the stages: " + ", ".join(
        f"{s} {m['docs_per_stage'][s]['in']}→{m['docs_per_stage'][s]['out']}" for s in stages))
    click.echo(f"{'source':<28} {'licence':<26} {'docs':>7} {'train':>7} {'val':>5}")
    for s in m["sources"]:
        click.echo(f"{s['source_id']:<28} {s['license_spdx']:<26} {s['docs']:>7} {s['train']:>7} {s['val']:>5}")
    click.echo("dropped by filter: " + ", ".join(f"{k} {m['filters'][k]}" for k in ("lang", "gopher", "repetition", "ppl")))
    d = m["dedup"]
    click.echo(f"dedup: exact {d['exact_dropped']}, near {d['near_dropped']} (Jaccard ≥ {d['jaccard_threshold']}, "
               f"{d['num_perm']} perms, {d['bands']} bands), decontaminated {d['decontaminated']} "
               + str(d.get("decontaminated_by_eval", {})))
    click.echo("pii placeholders: " + ", ".join(f"{k} {m['pii'][k]}" for k in ("emails", "phones", "cards", "ips", "keys")))


# ---------------------------------------------------------------- ledger

@cli.group()
def ledger():
    """Inspect and extend the data ledger (corpus/LEDGER.jsonl)."""


@ledger.command("add")
@click.argument("url")
@click.option("--source-id", required=True, help="Unique id, ^[a-z0-9][a-z0-9_.-]*$.")
@click.option("--license", "license_spdx", required=True, help="SPDX id or LicenseRef-….")
@click.option("--role", type=click.Choice(["corpus", "eval"]), default="corpus", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl", "json", "parquet"]), default="text",
              show_default=True)
@click.option("--split", type=click.Choice(["file", "line", "paragraph", "delimiter", "regex"]), default=None,
              help="For text: how to cut documents (default file).")
@click.option("--delimiter", default=None, help="For --split delimiter.")
@click.option("--pattern", default=None, help="For --split regex.")
@click.option("--members", multiple=True, help="For archives: glob of member paths (repeatable).")
@click.option("--text-field", "text_fields", multiple=True, help="For jsonl/json/parquet (repeatable; name[] for a list).")
@click.option("--encoding", default=None, help="Text encoding (default utf-8).")
@click.option("--sha256", "sha256", default=None, help="Expected sha256: also finds the file in the mirror.")
@click.option("--notes", default=None)
@click.option("--no-check", is_flag=True, help="Do not read the file to count its documents.")
@pass_ctx
def ledger_add(c: Ctx, url, source_id, license_spdx, role, fmt, split, delimiter, pattern, members, text_fields,
               encoding, sha256, notes, no_check):
    """Hash URL (downloading it, or finding it in the mirror by --sha256), validate and append a row."""
    from .ledger_ops import add_source

    row, docs = add_source(c.config, url, source_id=source_id, license_spdx=license_spdx, role=role, fmt=fmt,
                           split=split, delimiter=delimiter, pattern=pattern, members=members,
                           text_fields=list(text_fields), encoding=encoding, sha256=sha256, notes=notes,
                           check=not no_check)
    click.echo(f"added '{row['source_id']}' to {c.config.ledger_path}: sha256 {row['sha256']}, "
               f"{row['bytes']} bytes" + (f", {docs} documents" if docs is not None else ""))


@ledger.command("verify")
@pass_ctx
def ledger_verify(c: Ctx):
    """Check every row: schema, unique ids, and the sha256/size of every file that is on this machine
    (mirror, download cache or local path). Never downloads."""
    from .ledger_ops import verify_ledger

    results = verify_ledger(c.config)
    bad = 0
    for sid, status, detail in results:
        bad += status == "FAIL"
        click.echo(f"{sid:<28} {status:<6} {detail}")
    click.echo(f"{len(results)} rows, {bad} failed")
    if bad:
        raise CorpusError(f"{c.config.ledger_path}: {bad} row(s) failed verification")


def main() -> None:
    try:
        rc = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except CorpusError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
