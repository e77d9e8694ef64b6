"""The `corpus` command: one subcommand per stage, plus ledger tools. Errors are one line and exit non-zero."""

from __future__ import annotations

import errno
from pathlib import Path
import logging
import sys
import time

import click

from corpus.engine.memory import prefer_system_allocator

prefer_system_allocator()  # before anything allocates through Arrow

from corpus import __version__  # noqa: E402
from corpus.config import Config, load_config
from corpus.errors import CorpusError
from corpus.stages import FILTERS, NAMES, STAGES
from corpus.store.root import store_of

SIDE_STAGES = tuple(s.name for s in STAGES if s.side is not None)
REJECT_STAGES = SIDE_STAGES + ("fetch",)   # fetch: a web source's rejected records

log = logging.getLogger("corpus")
_LOADED: list = []   # the config this command loaded (main() names its artifacts root on a full disk)


# libraries that log at INFO what no run needs to read (presidio: "Loaded recognizer: …" once per
# recognizer, "Using device of type: cpu"): a run's log holds the stages' lines; -vv shows them
CHATTY_LOGGERS = ("presidio-analyzer",)


def _setup_logging(verbose: int, quiet: bool) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", "%H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(level if verbose >= 2 else max(level, logging.WARNING))


class Ctx:
    def __init__(self, config_path: str | None, artifacts: str | None):
        self.config_path, self.artifacts = config_path, artifacts
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.config_path, artifacts=self.artifacts)
            _LOADED.append(self._config)
        return self._config

    def published_view(self, *, fresh: bool = False) -> list[str]:
        """For an s3 root: bring every published output to the local dir (verified) before a command that
        reads the whole tree; returns the objects no manifest lists (ignored). A local root: nothing."""
        return store_of(self.config.artifacts).published_view(self.config.artifacts, fresh=fresh)

    def workers(self, workers: int | None) -> int:
        from corpus.engine.executor import check_workers

        run = self.config["run"]
        where = f"--workers {workers}" if workers is not None else f"{self.config.path}: run.workers"
        return check_workers(workers if workers is not None else run["workers"], run["executor"], where)


pass_ctx = click.make_pass_decorator(Ctx)
workers_option = click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
                              help="Worker processes (default [run].workers). Never changes output bytes.")
replace_option = click.option("--replace", "--force", "replace", is_flag=True,
                              help="Rebuild even if the output is published and current (--force: the same). "
                                   "Units and cache entries with the same input and settings are still reused.")
recompute_flag = click.option("--recompute", is_flag=True,
                              help="Rebuild from nothing: no current output, no unit reused from a published "
                                   "output, no cache entry. Inside a published dataset version, with --replace.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", envvar="CORPUS_CONFIG", default=None, metavar="PATH",
              help="Corpus config (TOML). Env CORPUS_CONFIG; default configs/demo.toml.")
@click.option("--artifacts", envvar="CORPUS_ARTIFACTS", default=None, metavar="DIR|s3://BUCKET/PREFIX",
              help="Artifacts root. Env CORPUS_ARTIFACTS; else [paths].artifacts; else /artifacts.")
@click.option("-v", "--verbose", count=True, help="More log output (debug; -vv: the libraries' too).")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors.")
@click.version_option(__version__, prog_name="corpus")
@click.pass_context
def cli(ctx: click.Context, config_path, artifacts, verbose, quiet):
    """Prepare LLM pretraining data: fetch → normalize → filter → dedup → pii → shard → tokenize.

    Every stage reads the previous stage's published output, checks it against its manifest and
    checksums, and publishes its own output atomically with a _STAGE.json manifest."""
    _setup_logging(verbose, quiet)
    ctx.obj = Ctx(config_path, artifacts)


# ---------------------------------------------------------------- the stages (from the stage table)

resume_option = click.option("--resume", is_flag=True,
                             help="Continue an interrupted run: keep finished units whose checksums verify.")


class StageCommand(click.Command):
    """A stage's command: its help is the stage module's docstring, read only when asked for (importing
    a stage module can take seconds: presidio, fastText)."""

    def __init__(self, stage, **kw):
        self.stage = stage
        super().__init__(stage.name, short_help=f"stage {STAGE_NUMBER[stage.name]:02d}: {stage.summary}", **kw)

    def format_help_text(self, ctx, formatter):
        doc = self.stage.module().__doc__ or f"Stage {STAGE_NUMBER[self.stage.name]:02d}: {self.stage.summary}."
        with formatter.indentation():
            for para in doc.strip().split("\n\n"):
                formatter.write_paragraph()
                formatter.write_text(" ".join(para.split()))


def _print_result(stage, result, wall: float) -> None:
    if result.current:
        click.echo(f"{stage.name}: current (config and inputs unchanged, checksums verified); --replace rebuilds it")
    elif result.status_text == "reused":
        click.echo(f"{stage.name}: reused whole from {result.outputs[0].run_info.get('reused_whole')} (input parts "
                   f"of the same content, the same settings)")
    elif result.status_text.startswith("reused"):
        click.echo(f"{stage.name}: {result.status_text} from published outputs (same input and settings)")
    if stage.kind == "parts":
        m = result.manifest
        c = m["counts"]
        mb = sum(p["bytes"] for p in m["parts"]) / 1e6
        extra = ", ".join(f"{k} {v}" for k, v in c.items() if isinstance(v, int) and k not in ("docs_in", "docs_out"))
        wall = 0.0 if result.current else wall
        click.echo(f"{stage.name}: {c['docs_in']} docs in, {c['docs_out']} out" + (f" ({extra})" if extra else "")
                   + f"; {len(m['parts'])} parts, {mb:.2f} MB; {wall:.2f}s"
                   + (f", {c['docs_in'] / wall:,.0f} docs/s" if wall > 0 else ""))
    for line in stage.report_of(result):
        click.echo(line)
    if stage.kind in ("shards", "tokens"):
        click.echo(f"  {wall:.2f}s")


def _add_stage_command(stage) -> None:
    def callback(workers, replace, recompute, resume, **extra):
        from corpus.commands.pipeline import published
        from corpus.engine.runner import RunOptions
        from corpus.stages import run_stage

        c = click.get_current_context().find_object(Ctx)
        if recompute and not replace and stage.kind != "sources" and published(c.config):
            raise CorpusError(f"{c.config.dataset_dir}: {c.config.dataset}/{c.config.version} is published; "
                              f"--recompute would rebuild its {stage.name} output: add --replace, or bump "
                              f"[dataset] version in {c.config.path}")
        t0 = time.monotonic()
        result = run_stage(stage.name, c.config, RunOptions(workers=c.workers(workers), force=replace,
                                                            recompute=recompute, resume=resume, extra=extra))
        _print_result(stage, result, time.monotonic() - t0)

    for option in (workers_option, replace_option, recompute_flag, resume_option, *stage.options):
        callback = option(callback)
    cli.add_command(StageCommand(stage, callback=callback, params=getattr(callback, "__click_params__", [])))


STAGE_NUMBER = {s.name: i for i, s in enumerate(STAGES, 1)}
for _stage in STAGES:
    _add_stage_command(_stage)


@cli.command()
@click.option("--stage", type=click.Choice(list(REJECT_STAGES)), default=SIDE_STAGES[0], show_default=True,
              help="filter: stage 03 rejects; dedup: stage 04 drops (decontam, url, exact, near); fetch: web records "
                   "fetch rejected (timeout, undecodable, ...: docs/web.md).")
@click.option("--filter", "filter_name", default=None, help=f"Only this filter ({', '.join(FILTERS)}).")
@click.option("--rule", default=None, help="Only this rule (e.g. min_words) or dedup reason (e.g. near).")
@click.option("--source", default=None, help="Only documents of this source_id.")
@click.option("-n", "--per-rule", type=click.IntRange(min=1), default=3, show_default=True,
              help="Documents shown per rule (spread evenly over the rule's rejects in id order).")
@click.option("--width", type=click.IntRange(min=20), default=160, show_default=True, help="Characters of text shown.")
@pass_ctx
def rejects(c: Ctx, stage, filter_name, rule, source, per_rule, width):
    """Show why documents were dropped: counts and a sample per filter rule (stage 03) or per dedup
    reason (stage 04, with the kept twin or the eval set and n-gram)."""
    from corpus.commands.rejects import fetch_rejects, labelled_detail, nothing_found, sample_rejects, units_removed

    c.published_view()
    if stage == "fetch":  # first what became of every record, so the rejects are seen among them
        summary, groups = fetch_rejects(c.config, filter_name=filter_name, rule=rule, source=source,
                                        per_rule=per_rule)
        if summary:
            click.echo(summary)
    else:
        groups = sample_rejects(c.config, stage=stage, filter_name=filter_name, rule=rule, source=source,
                                per_rule=per_rule)
        if stage == "dedup" and rule is None:  # [dedup.lines]/[dedup.spans]: what left the documents it kept
            for line in units_removed(c.config, source):
                click.echo(line)
    if not groups:
        click.echo(nothing_found(stage, filter_name, rule, source))
    for (f, r), n, sample in groups:
        click.echo(f"{f}.{r}: {n} {'records' if stage == 'fetch' else 'documents'}")
        for row in sample:
            if stage == "fetch":
                click.echo(f"  {row['locator']}  {row['url'] or '(no url)'}\n      {row['detail']}")
                continue
            text = " ".join(row["text"].split())
            text = text if len(text) <= width else text[: width - 1] + "…"
            if stage == "dedup":
                why = (f"duplicate_of={row['duplicate_of']}" if row["duplicate_of"] else
                       f"eval={row['eval_source']} ngram=\"{row['matched_ngram']}\"" if row["eval_source"] else
                       "too short once the copied units were removed")
                click.echo(f"  {row['id']:<32} {why}\n      {text}")
            else:
                click.echo(f"  {row['id']:<32} value={row['value']:<10.4g}{labelled_detail(row)} {text}")


@cli.command()
@click.argument("doc_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of steps (for scripts).")
@click.option("--max-lines", type=click.IntRange(min=0), default=20, show_default=True, metavar="N",
              help="Removed or redacted lines shown per stage, then '… K more' (0: all; --json has all).")
@pass_ctx
def why(c: Ctx, doc_id, as_json, max_lines):
    """One document's path through every stage: its raw part and line, what each filter measured and
    which rule dropped it (value, threshold), its duplicate (kept id, exact Jaccard, shared shingles) or
    the eval set and n-gram it shares, the PII placeholders inserted, its shard, row and split, and its
    token part and offset. Read from the manifests and parts only."""
    import json

    from corpus.commands.why import describe, trace

    c.published_view()
    steps = trace(c.config, doc_id)
    if as_json:
        click.echo(json.dumps(steps, indent=2, ensure_ascii=False))
    else:
        click.echo(f"{doc_id}:")
        for line in describe(steps, max_lines or None):
            click.echo(f"  {line}")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["nanogpt", "llmc", "datatrove", "mds"]), required=True)
@click.option("--tokens", "tokens_dir", default=None, metavar="DIR",
              help="Token streams to export (default: the only one of the dataset).")
@click.option("--out", default=None, metavar="DIR", help="Output directory (default <tokens>/export-<format>).")
@pass_ctx
def export(c: Ctx, fmt, tokens_dir, out):
    """Write the token streams as nanoGPT train.bin/val.bin (+ meta.pkl), llm.c shards, datatrove .ds files or
    MosaicML Streaming (MDS) datasets."""
    from corpus.commands.export import run_export
    from corpus.store.lock import writer_lock

    with writer_lock(c.config.artifacts):
        c.published_view()
        written = run_export(c.config, fmt, tokens_dir=tokens_dir, out=out)
    for path in written:
        click.echo(str(path))


# ---------------------------------------------------------------- run, audit

@cli.command()
@workers_option
@click.option("--through", type=click.Choice(list(NAMES)), default=NAMES[-1], show_default=True,
              help="Last stage to run.")
@resume_option
@click.option("--replace", "--force", "replace", is_flag=True,
              help="Rebuild a published dataset version with this config's settings, and repair a damaged "
                   "output (--force: the same). Without it, a published version is never rebuilt.")
@click.option("--recompute", type=click.Choice(list(NAMES)), default=None, metavar="STAGE",
              help="Rebuild STAGE and every stage after it from nothing: no current output, no unit reused "
                   "from a published output, no cache entry (a published version: with --replace).")
@pass_ctx
def run(c: Ctx, workers, through, resume, replace, recompute):
    """Every stage in order, skipping stages that are complete and current (config and inputs
    unchanged, checksums verified), recomputing a stale stage and every stage after it. A published
    dataset version is never rebuilt: bump [dataset] version, or pass --replace. The table says per stage
    `current`, `reused` (the whole output taken from a published version whose input parts had the same
    content), `reused N/M units` (computed, N units taken from published outputs), `computed` or
    `recomputed` (a published output replaced)."""
    from corpus.commands.pipeline import run_all

    t0 = time.monotonic()
    rows = run_all(c.config, workers=c.workers(workers), through=through, resume=resume, replace=replace,
                   recompute=recompute)
    width = max([11, *(len(r[1]) for r in rows)])
    click.echo(f"{'stage':<10} {'status':<{width}} {'seconds':>8}  summary")
    for stage, status, seconds, summary in rows:
        click.echo(f"{stage:<10} {status:<{width}} {seconds:>8.2f}  {summary}")
    click.echo(f"all stages through {through} in {time.monotonic() - t0:.1f}s; artifacts under {c.config.artifacts}")


@cli.command()
@click.argument("base", metavar="NAME/VERSION")
@click.option("--to", "new", required=True, metavar="NEW_VERSION", help="The version to make (never the base).")
@click.option("--list", "lists", multiple=True, metavar="SOURCE_ID",
              help="A ledger row of role takedown to apply, beside the config's [takedown] lists (repeatable).")
@click.option("--write-config", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the new version's config (default <config>-<NEW_VERSION>.toml beside it).")
@workers_option
@pass_ctx
def takedown(c: Ctx, base, new, lists, out, workers):
    """A new version of the published NAME/VERSION without the documents the takedown lists name: the
    --config must be the base's ([takedown] and the version aside); the new version's config (the lists,
    the base's shard cuts, its tokenizer pinned) is written beside it and every stage run for it. Shards
    and token files no removed document was in keep their bytes; the base version is never changed
    (retire it with `corpus gc --version NAME/VERSION`). docs/takedown.md."""
    from corpus.commands.takedown import run_takedown

    t0 = time.monotonic()
    c.published_view()  # an s3 root: the base's manifests and shards, local (its cuts are read from them)
    new_config, rows, size = run_takedown(c.config, base, new, lists, out, c.workers(workers))
    for stage, status, seconds, summary in rows:
        click.echo(f"{stage:<10} {status:<16} {seconds:>8.2f}  {summary}")
    click.echo(f"config: {new_config.path}")
    click.echo(f"shards and token files: {size['files_written']} written ({size['written']:,} bytes), "
               f"{size['files_reused']} the same bytes as {base} ({size['reused']:,} bytes)")
    click.echo(f"{new_config.dataset}/{new_config.version} made from {base} in {time.monotonic() - t0:.1f}s; "
               f"`corpus --config {new_config.path} audit` proves the removed documents are gone")


@cli.command()
@click.option("--delete", is_flag=True, help="Remove what is listed (default: only list it).")
@click.option("--cache", is_flag=True, help="Also list the artifacts root's cache (eval indexes, filter and PII "
                                            "results kept for later runs; [run] cache).")
@click.option("--version", "version", default=None, metavar="NAME/VERSION",
              help="Drop this one dataset version (its stages, shards, tokens, report, and the raw outputs only "
                   "it reads); refused while another version reads its files.")
@pass_ctx
def gc(c: Ctx, delete, cache, version):
    """List what no dataset version on the artifacts root refers to: raw outputs no version reads (but
    those this config reads), token directories of other shards or of a version that is gone, unused
    quality models, and staging directories interrupted runs left; with --cache, the cache too. With
    --version, one whole version instead. --delete removes what is listed, under the writer lock (refused
    while another writer runs). Nothing any version reads is ever listed."""
    from corpus.commands.gc import collect
    from corpus.store.lock import writer_lock

    if c.config.remote is not None:
        raise CorpusError(f"{c.config.remote}: corpus gc works on a local artifacts root only")
    if delete or version:  # a version is listed under the lock too: what it shows is what --delete removes
        with writer_lock(c.config.artifacts):
            found = collect(c.config, delete=delete, cache=cache, version=version)
    else:
        found = collect(c.config, delete=False, cache=cache)
    for g in found:
        click.echo(f"{'removed' if delete else 'would remove'}  {g.path}  ({g.bytes / 1e6:,.1f} MB: {g.why})")
    total = sum(g.bytes for g in found) / 1e6
    again = f"corpus gc --version {version} --delete" if version else "corpus gc --delete"
    click.echo(f"{len(found)} {'removed' if delete else f'to remove ({again})'}, {total:,.1f} MB"
               if found else "nothing to collect")


@cli.command()
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (for scripts).")
@pass_ctx
def diff(c: Ctx, a, b, as_json):
    """What changed between two published dataset versions A and B (NAME/VERSION each) on the artifacts
    root: the config keys, ledger rows and raw outputs that differ, documents per stage and drops per rule,
    the documents added and removed per source (each removed one with the rule or dedup reason B dropped it
    for), and tokens per source and split. Read from manifests and shards only."""
    import json

    from corpus.commands.diff import describe, diff as run_diff

    c.published_view()
    d = run_diff(c.config, a, b)
    click.echo(json.dumps(d, indent=2, ensure_ascii=False) if as_json else "\n".join(describe(d)))


@cli.command()
@pass_ctx
def audit(c: Ctx):
    """Validate every manifest against its schema, recompute every sha256, check that document counts
    add up across stages and that every shard's licences are in the ledger. Non-zero exit on any problem."""
    from corpus.commands.audit import Check, audit as run_audit

    unlisted = c.published_view(fresh=True)  # the store's bytes themselves, never an older local copy
    checks = run_audit(c.config)
    if unlisted:  # a killed publication's leftovers: no reader uses them, a rerun deletes them
        checks.append(Check(True, "object store", c.config.remote, f"{len(unlisted)} object{'s' if len(unlisted) > 1 else ''} no manifest lists "
                            f"(ignored), e.g. {unlisted[0]}", warn=True))
    for ch in checks:
        click.echo(f"{'WARN' if ch.warn else 'OK' if ch.ok else 'FAIL':<5} {ch.what:<30} {ch.detail}")
    failed = [ch for ch in checks if not ch.ok]
    click.echo(f"{len(checks)} checks, {len(failed)} failed")
    if failed:
        raise CorpusError(failed[0].detail if failed[0].path in failed[0].detail else f"{failed[0].path}: {failed[0].detail}")


@cli.command()
@pass_ctx
def report(c: Ctx):
    """Summarise the dataset: documents per stage, per source (kept, train/val, licence), what was dropped.

    Also writes <artifacts>/reports/<dataset>/<version>/index.html: one self-contained page (funnel, licences,
    filter distributions, dedup, PII, tokens, samples), deterministic for a given dataset."""
    import json

    from corpus.config.layout import CORPUS_MANIFEST

    c.published_view()
    path = c.config.dataset_dir / CORPUS_MANIFEST
    if not path.is_file():
        raise CorpusError(f"{path}: no corpus manifest (run `corpus run` first)")
    m = json.loads(path.read_text())
    from corpus.report.build import write_report
    from corpus.report.tokens import summary_lines
    from corpus.web.records import records_line

    page, data = write_report(c.config)  # first: the lines below show what the page shows
    click.echo(f"{m['dataset']} {m['version']}: {m['n_docs']} documents in {m['n_shards']} shards "
               f"(train {m['splits']['train']}, val {m['splits']['val']}); config {m['config_sha256'][:12]}")
    if data["funnel"]["web"]:  # the funnel's row above raw
        click.echo(records_line(data["funnel"]["web"]))
    for warning in (data["tokens"] or {}).get("warnings", []):  # the page's warnings at its top
        click.echo(f"WARNING: tokens: {warning}")
    stages = [s.name for s in STAGES if s.name in m["docs_per_stage"]]
    click.echo("documents through the stages: " + ", ".join(
        f"{s} {m['docs_per_stage'][s]['in']}→{m['docs_per_stage'][s]['out']}" for s in stages))
    click.echo(f"{'source':<28} {'licence':<26} {'docs':>7} {'train':>7} {'val':>5}")
    for s in m["sources"]:
        click.echo(f"{s['source_id']:<28} {s['license_spdx']:<26} {s['docs']:>7} {s['train']:>7} {s['val']:>5}")
    click.echo("dropped by filter: " + ", ".join(f"{k} {n}" for k, n in m["filters"].items()))
    per_language = ((data.get("filters") or {}).get("lang") or {}).get("per_language") or {}
    if len(per_language) > 1:  # one language: the line above says it all
        click.echo("keep rate per language: " + ", ".join(
            f"{k} {v['kept']}/{v['passed']}" + (f" (most dropped by {next(iter(v['dropped']))})" if v["dropped"] else "")
            for k, v in list(per_language.items())[:15]))
    d = m["dedup"]
    by_eval = ", ".join(f"{k} {n}" for k, n in d.get("decontaminated_by_eval", {}).items())
    click.echo(f"dedup: exact {d['exact_dropped']}, near {d['near_dropped']} (Jaccard ≥ {d['jaccard_threshold']}, "
               f"{d['num_perm']} perms, {d['bands']} bands), url {d.get('url_dropped', 0)}, decontaminated "
               f"{d['decontaminated']}" + (f" ({by_eval})" if by_eval else ""))
    for sid, u in sorted(d.get("units_removed", {}).items()):  # dedup inside documents
        click.echo(f"dedup inside documents: {sid}: {u['units']} units ({u['chars']} characters) removed from "
                   f"{u['docs']} documents, {u['docs_dropped']} dropped as too short")
    click.echo("pii placeholders: " + ", ".join(f"{k} {m['pii'][k]}" for k in ("emails", "phones", "cards", "ips", "keys")))
    for line in summary_lines(data["tokens"]):  # tokens per source; a mix's share table
        click.echo(line)
    click.echo(f"html report: {page}")


# ---------------------------------------------------------------- quality

@cli.group()
def quality():
    """The learned quality classifier of [filters.quality] (docs/quality.md)."""


@quality.command("train")
@pass_ctx
def quality_train(c: Ctx):
    """Train the classifier from the labelled sources of [filters.quality] (fetched first with `corpus fetch`),
    or find the model an earlier training made from the same sources and settings; print its file and the
    held-out metrics. The filter stage trains it too when it is missing. With a pretrained model
    (model_source or model) it verifies that file and trains nothing."""
    from corpus.filters.quality import model_of, pretrained, train
    from corpus.store.lock import writer_lock

    how = pretrained(c.config)
    if how:
        path, sha = model_of(c.config)  # verified against the ledger row's (or model_sha256's) sha256
        q = c.config["filters"]["quality"]
        given = f"ledger source '{q['model_source']}'" if how == "model_source" else "filters.quality.model"
        click.echo(f"pretrained model {path} (sha256 {sha}, {given}): nothing to train")
        return
    with writer_lock(c.config.artifacts):
        path, manifest = train(c.config)
    m = manifest["heldout_metrics"]
    click.echo(f"model {path} ({manifest['bytes'] / 1e6:,.1f} MB, {manifest['train_lines']:,} training documents)")
    for sid, n in manifest["counts"].items():
        click.echo(f"  {sid:<28} {n['label']:<8} {n['documents']:>8,} documents: {n['train']:,} train, "
                   f"{n['heldout']:,} held out")
    auc = f"{m['auc']:.3f}" if m["auc"] is not None else "n/a (one class)"
    click.echo(f"held out ({m['documents']:,} documents, score >= {m['threshold']:g}): precision {m['precision']:.3f}, "
               f"recall {m['recall']:.3f}, F1 {m['f1']:.3f}, AUC {auc}")
    click.echo(f"manifest {path.with_suffix('.json')}")


# ---------------------------------------------------------------- signals

@cli.group()
def signals():
    """Every document's filter signals (docs/quality.md, "Signals, then decisions")."""


@signals.command("export")
@click.argument("name", metavar="[NAME/VERSION]", required=False)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A new (or empty) directory; default signals/<name>/<version>.")
@pass_ctx
def signals_export(c: Ctx, name, out):
    """Write the signals the filter stage measured for every document of a published version (default:
    the config's) as Parquet, one file per part: id, source_id, url, chars (the text kept, in
    characters) and one column per signal, `<filter>_<signal>`, e.g. gopher_words, lang_score,
    ppl_perplexity; a cleaning filter's failure as <filter>_rule/_value/_detail. Read from the cache,
    where the run kept them; for DuckDB, polars or pyarrow."""
    from corpus.commands.signals import export

    name = name or f"{c.config.dataset}/{c.config.version}"
    out = out or Path("signals") / name
    entries = export(c.config, name, out)
    click.echo(f"{out}: {len(entries)} Parquet files, {sum(e['rows'] for e in entries):,} documents")


@cli.command()
@click.argument("key")
@click.argument("values", nargs=-1, required=True)
@click.option("--version", "name", metavar="NAME/VERSION", default=None,
              help="The published version whose signals decide (default: the config's).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (for scripts).")
@pass_ctx
def tune(c: Ctx, key, values, name, as_json):
    """How many documents and characters each VALUE of the threshold KEY (filters.<filter>.<key>, e.g.
    `corpus tune filters.gopher.min_words 30 50 80`) keeps per source at the filter stage, decided from
    the version's stored signals only: no text is read, no model loaded, nothing is written. It is
    exactly what a run with that value keeps (the same decisions, and the quality filter's cut). Keys:
    the thresholds of an enabled filter; a cleaning filter (c4) has none. Tokens are counted later (the
    tokenize stage): `chars` is the length of the text kept."""
    import json

    from corpus.commands.signals import describe, tune as run_tune

    c.published_view()
    r = run_tune(c.config, name or f"{c.config.dataset}/{c.config.version}", key, list(values))
    click.echo(json.dumps(r, indent=2, ensure_ascii=False) if as_json else "\n".join(describe(r)))


# ---------------------------------------------------------------- ledger

@cli.group()
def ledger():
    """Inspect and extend the data ledger (corpus/LEDGER.jsonl)."""


def _counted(row: dict) -> str:
    """What `ledger add` counted in the file it added."""
    from corpus.web.listing import listing_kind

    return "files" if listing_kind(row) else "page records" if row["format"] == "warc" else \
        "records" if row["format"] == "warc-records" else "documents"


@ledger.command("add")
@click.argument("url")
@click.option("--source-id", required=True, help="Unique id, ^[a-z0-9][a-z0-9_.-]*$.")
@click.option("--license", "license_spdx", required=True, help="SPDX id or LicenseRef-….")
@click.option("--role", type=click.Choice(["corpus", "eval", "list", "takedown", "model"]), default="corpus", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl", "json", "parquet", "warc", "warc-records", "binary"]),
              default=None, help="How the file is read  [default: text; binary (the file as it is) for --role model]")
@click.option("--split", type=click.Choice(["file", "line", "paragraph", "delimiter", "regex"]), default=None,
              help="For text: how to cut documents (default file).")
@click.option("--delimiter", default=None, help="For --split delimiter.")
@click.option("--pattern", default=None, help="For --split regex.")
@click.option("--members", multiple=True, help="For archives: glob of member paths (repeatable).")
@click.option("--text-field", "text_fields", multiple=True, help="For jsonl/json/parquet (repeatable; name[] for a list).")
@click.option("--encoding", default=None, help="Text encoding (default utf-8).")
@click.option("--sha256", "sha256", default=None, help="Expected sha256: also finds the file in the mirror.")
@click.option("--notes", default=None)
@click.option("--base-url", default=None, help="For a listing (*.paths[.gz]): what its relative lines are joined to.")
@click.option("--no-check", is_flag=True, help="Do not read the file to count its documents.")
@pass_ctx
def ledger_add(c: Ctx, url, source_id, license_spdx, role, fmt, split, delimiter, pattern, members, text_fields,
               encoding, sha256, notes, base_url, no_check):
    """Hash URL (downloading it, or finding it in the mirror by --sha256), validate and append a row."""
    from corpus.commands.ledger import add_source
    from corpus.store.lock import writer_lock

    fmt = fmt or ("binary" if role == "model" else "text")
    with writer_lock(c.config.artifacts):  # it writes the download cache and changes what fetch reads
        row, docs = add_source(c.config, url, source_id=source_id, license_spdx=license_spdx, role=role, fmt=fmt,
                               split=split, delimiter=delimiter, pattern=pattern, members=members,
                               text_fields=list(text_fields), encoding=encoding, sha256=sha256, notes=notes,
                               check=not no_check, base_url=base_url)
    click.echo(f"added '{row['source_id']}' to {c.config.ledger_path}: sha256 {row['sha256']}, "
               f"{row['bytes']} bytes" + (f", {docs} {_counted(row)}"
                                          if docs is not None else ""))
    where = {"corpus": "[dataset] sources", "eval": "[decontam] evals",
             "list": "the [filters.<name>] key that reads it (e.g. [filters.url] block_domains)",
             "takedown": "[takedown] lists (or `corpus takedown NAME/VERSION --to NEW --list ID`)",
             "model": "[filters.quality] model_source (with its label) or [filters.lang] model_source"}[row["role"]]
    # with no --config (nor CORPUS_CONFIG) name the default as one: the user may not know it is in use
    config = c.config.path if c.config_path else f"your config ({c.config.path} by default)"
    click.echo(f"next: add \"{row['source_id']}\" to {where} in {config}, then `corpus run`")


@ledger.command("verify")
@pass_ctx
def ledger_verify(c: Ctx):
    """Check every row: schema, unique ids, and the sha256/size of every file that is on this machine
    (mirror, download cache or local path). Never downloads."""
    from corpus.commands.ledger import verify_ledger

    results = verify_ledger(c.config)
    bad = 0
    for sid, status, detail in results:
        bad += status == "FAIL"
        click.echo(f"{sid:<28} {status:<6} {detail}")
    click.echo(f"{len(results)} rows, {bad} failed")
    if bad:
        raise CorpusError(f"{c.config.ledger_path}: {bad} row(s) failed verification")


def _artifacts_root():
    return _LOADED[-1].artifacts if _LOADED else None


def main() -> None:
    from corpus.engine.pandas_probe import skip_pandas_probe

    skip_pandas_probe()  # this process never hands pyarrow a pandas object (see corpus.engine.pandas_probe)
    try:
        rc = cli.main(standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):  # Ctrl-C (click turns it into Abort): one line
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except CorpusError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(e.exit_code)
    except OSError as e:  # a full disk that no writer named: name the artifacts root and what is free there
        from corpus.store.atomic import disk_full, is_enospc, space_reason

        if is_enospc(e):
            root = _artifacts_root()
            click.echo(f"error: {disk_full(root or e.filename or '.', 'an output', space_reason(e))}", err=True)
            sys.exit(1)
        if e.filename is None:
            raise
        # a file the command could not read or write that no reader named (a read-only artifacts root, a
        # file where a directory must be): the path and the system's reason, one line
        why = e.strerror or type(e).__name__
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            why += " (is the artifacts root writable by this user? --artifacts DIR writes elsewhere)"
        click.echo(f"error: {e.filename}: {why}", err=True)
        sys.exit(1)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
