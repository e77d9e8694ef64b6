"""Filters: for every rule, its measured value over dropped documents (every document the rule dropped:
the value stage 03 stored in rejects/) and over kept documents. Kept documents' values are not stored, so
they are recomputed on a seeded sample of the filter's kept output with the record-level functions of
corpus.filters: each rule's value is what `gopher_quality` / `gopher_repetition` return when that rule's
threshold is set so that it must fail (the earlier rules pass, as they did for a kept document) — the
same code and definitions as the stage. Also the language mix of everything the language filter saw."""

from __future__ import annotations

import dataclasses
import math


from corpus.config import Config
from corpus.filters import lang as lang_id
from corpus.filters.gopher import gopher_quality, split_words
from corpus.filters.repetition import gopher_repetition
from corpus.filters.ppl import MODEL_FILE as PPL_MODEL, load_lm
from corpus.filters.registry import build_params, filter_order, registry
from corpus.report import dirname, side_prefix
from corpus.report.reading import parts_of, stage_manifest, within
from corpus.report.sampling import Budget, choose_parts, sample_indices
from corpus.report.scan import read_columns

DIRNAME = dirname("filter")
STOP_WORDS_CAP = 10**9   # kept documents' stop words: every occurrence is counted
LANG_MIX_DOCS = 20000    # language-filter rejects re-identified for the language mix (seeded sample above)
LOG_RULES = {"gopher.min_words", "gopher.max_words", "gopher.min_stop_words", "ppl.threshold"}


@dataclasses.dataclass
class Rule:
    key: str          # "gopher.min_words"
    label: str        # what the value is
    threshold: float
    side: str         # "min": dropped below the threshold; "max": dropped above
    measure: object   # text -> value, for kept documents (None: the value is stored for kept documents)


def _forced(fn, params, rule: str, **changes):
    forced = dataclasses.replace(params, **changes)

    def measure(text: str):
        failed = fn(text, forced)
        return failed[1] if failed and failed[0] == rule else None
    return measure


def gopher_rules(cfg: dict) -> list[Rule]:
    p = build_params(registry()["gopher"], cfg)
    inf = math.inf

    def symbol_ratio(text: str):  # '#' and ellipses per word share the threshold: the larger decides
        words = split_words(text)
        return max(text.count("#"), text.count("...") + text.count("…")) / len(words) if words else 0.0

    g = lambda rule, **kw: _forced(gopher_quality, p, rule, **kw)  # noqa: E731
    return [
        Rule("gopher.min_words", "words", p.min_words, "min", g("min_words", min_words=inf)),
        Rule("gopher.max_words", "words", p.max_words, "max", g("max_words", max_words=-1)),
        Rule("gopher.min_mean_word_length", "mean word length", p.min_mean_word_length, "min",
             g("min_mean_word_length", min_mean_word_length=inf)),
        Rule("gopher.max_mean_word_length", "mean word length", p.max_mean_word_length, "max",
             g("max_mean_word_length", max_mean_word_length=-inf)),
        Rule("gopher.max_symbol_word_ratio", "'#' or ellipses per word", p.max_symbol_word_ratio, "max",
             symbol_ratio),
        Rule("gopher.max_bullet_lines_ratio", "bullet lines / lines", p.max_bullet_lines_ratio, "max",
             g("max_bullet_lines_ratio", max_bullet_lines_ratio=-1.0)),
        Rule("gopher.max_ellipsis_lines_ratio", "lines ending in … / lines", p.max_ellipsis_lines_ratio, "max",
             g("max_ellipsis_lines_ratio", max_ellipsis_lines_ratio=-1.0)),
        Rule("gopher.min_alpha_words_ratio", "words with a letter / words", p.min_alpha_words_ratio, "min",
             g("min_alpha_words_ratio", min_alpha_words_ratio=inf)),
        Rule("gopher.min_stop_words", "stop word occurrences", p.min_stop_words, "min",
             g("min_stop_words", min_stop_words=STOP_WORDS_CAP)),
    ]


def repetition_rules(cfg: dict) -> list[Rule]:
    p = build_params(registry()["repetition"], cfg)
    r = lambda rule, **kw: _forced(gopher_repetition, p, rule, **kw)  # noqa: E731
    rules = [Rule(f"repetition.{name}", label, getattr(p, name), "max", r(name, **{name: -1.0}))
             for name, label in (("dup_para_frac", "duplicated paragraphs / paragraphs"),
                                 ("dup_para_char_frac", "chars in duplicated paragraphs"),
                                 ("dup_line_frac", "duplicated lines / lines"),
                                 ("dup_line_char_frac", "chars in duplicated lines"))]
    for field, fmt, label in (("top_ngram_char_frac", "top_{n}gram_char_frac", "chars of the top {n}-gram"),
                              ("dup_ngram_char_frac", "dup_{n}gram_char_frac", "chars in duplicated {n}-grams")):
        pairs = getattr(p, field)
        for i, (n, mx) in enumerate(pairs):
            forced = tuple((m, -1.0 if j == i else f) for j, (m, f) in enumerate(pairs))
            name = fmt.format(n=n)
            rules.append(Rule(f"repetition.{name}", label.format(n=n), mx, "max", r(name, **{field: forced})))
    return rules


def all_rules(config: Config, lm=None) -> dict[str, list[Rule]]:
    f = config["filters"]
    out: dict[str, list[Rule]] = {}
    on = lambda name: f.get(name, {}).get("enabled", False)  # noqa: E731
    if on("lang"):
        out["lang"] = [Rule("lang.min_score", "language-ID score of the top language", f["lang"]["min_score"],
                            "min", None)]
    if on("gopher"):
        out["gopher"] = gopher_rules(f["gopher"])
    if on("repetition"):
        out["repetition"] = repetition_rules(f["repetition"])
    if on("ppl") and lm is not None:
        out["ppl"] = [Rule("ppl.threshold", "perplexity under the reference n-gram model", f["ppl"]["threshold"],
                           "max", lm.perplexity)]
    return {k: out[k] for k in filter_order(f) if k in out}


def collect_filters(config: Config, budget: Budget) -> dict:
    m = stage_manifest(config, DIRNAME)
    lm = None
    model = [p for p in m["parts"] if p["name"] == PPL_MODEL]
    if config["filters"].get("ppl", {}).get("enabled") and model:
        lm = load_lm(str(config.stage_dir(DIRNAME) / PPL_MODEL), model[0]["sha256"])
    rules = all_rules(config, lm)
    # dropped: every reject's stored value
    dropped: dict[str, list[float]] = {}
    rejects = parts_of(m, side_prefix("filter"))
    verify = within(rejects, budget)
    for p in rejects:
        t = read_columns(config, DIRNAME, p, ["filter", "rule", "value"], verify=verify)
        for f, r, v in zip(t.column("filter").to_pylist(), t.column("rule").to_pylist(), t.column("value").to_pylist()):
            dropped.setdefault(f"{f}.{r}", []).append(v)
    # kept: a seeded sample of the filter's output, measured again
    kept_parts = parts_of(m)
    choice = choose_parts(kept_parts, budget, "filters:kept")
    counts = [p["rows"] for p in choice.parts]
    picks = sample_indices(sum(counts), budget.kept_sample, budget, "filters:kept")
    texts, scores = [], []
    start = 0
    for p, n in zip(choice.parts, counts):
        mine = [i - start for i in picks if start <= i < start + n]
        start += n
        if mine:
            t = read_columns(config, DIRNAME, p, ["text", "lang_score"]).take(mine)
            texts += t.column("text").to_pylist()
            scores += t.column("lang_score").to_pylist()
    kept: dict[str, list[float]] = {}
    for group in rules.values():
        for rule in group:
            if rule.key == "lang.min_score":
                kept[rule.key] = [float(s) for s in scores]
            else:
                vals = [rule.measure(t) for t in texts]
                kept[rule.key] = [float(v) for v in vals if v is not None]
    return {"rules": rules, "kept": kept, "dropped": dropped, "kept_sample": len(texts),
            "kept_total": m["counts"]["docs_out"], "sample_note": choice.note(),
            "by_rule": m["counts"].get("dropped_by_rule", {}), "lang": language_mix(config, m, budget),
            "cleaned": m["counts"].get("cleaned_by_rule", {})}


def language_mix(config: Config, m: dict, budget: Budget) -> dict | None:
    """Documents the language filter saw, by language: passed (kept language, score ≥ min_score), dropped
    as another language, dropped as undetermined (top language below min_score, re-identified here)."""
    if not config["filters"].get("lang", {}).get("enabled"):
        return None
    model = lang_id.load_model(lang_id.model_path(config))
    rows, later = [], []
    rejects = parts_of(m, side_prefix("filter"))
    verify = within(rejects, budget)
    after = filter_order(config["filters"])
    after = set(after[after.index("lang") + 1:])  # the filters that saw the language the lang filter found
    for p in rejects:
        t = read_columns(config, DIRNAME, p, ["filter", "rule", "source_id", "text"], verify=verify)
        for f, rule, sid, text in zip(*(t.column(k).to_pylist() for k in ("filter", "rule", "source_id", "text"))):
            if f == "lang":
                rows.append((rule, sid, text))
            elif f in after:
                later.append((f"{f}.{rule}", text))
    picks = sample_indices(len(rows), LANG_MIX_DOCS, budget, "lang-mix")
    scale = len(rows) / len(picks) if picks else 1.0
    langs: dict[str, dict] = {}
    for i in picks:
        rule, sid, text = rows[i]
        lang, _ = lang_id.detect(text, model, config["filters"]["lang"].get("max_chars", 0))
        e = langs.setdefault(lang, {"other": 0, "und": 0, "sources": {}})
        e["other" if rule == "keep" else "und"] += 1
        e["sources"][sid] = e["sources"].get(sid, 0) + 1
    keep = config["filters"]["lang"]["keep"]
    per_language = keep_rates(config, m, budget, later, model)
    by_lang_passed = {k: v["passed"] for k, v in per_language.items()}
    return {"langs": langs, "passed": by_lang_passed, "rejects": len(rows), "measured": len(picks),
            "estimated": scale != 1.0, "min_score": config["filters"]["lang"]["min_score"], "keep": keep,
            "per_language": per_language}


def keep_rates(config: Config, m: dict, budget: Budget, later: list, model) -> dict:
    """Per language the lang filter let through: documents that passed it, those kept in the end (the
    output's lang column: exact) and those each later rule dropped (rejects re-identified on a seeded sample,
    with the filter's own model, min_score and label mapping: the language the word rules used)."""
    table = config["filters"]["lang"]
    out: dict[str, dict] = {}
    for p in parts_of(m):
        for lang in read_columns(config, DIRNAME, p, ["lang"]).column("lang").to_pylist():
            e = out.setdefault(lang, {"passed": 0, "kept": 0, "dropped": {}})
            e["kept"] += 1
    picks = sample_indices(len(later), LANG_MIX_DOCS, budget, "lang-rules")
    scale = len(later) / len(picks) if picks else 1.0
    for i in picks:
        rule, text = later[i]
        label, _ = lang_id.language_of(text, model, table["min_score"], table.get("max_chars", 0))
        e = out.setdefault(lang_id.language_code(label, table.get("labels") or {}), {"passed": 0, "kept": 0,
                                                                                    "dropped": {}})
        e["dropped"][rule] = e["dropped"].get(rule, 0) + scale
    for e in out.values():
        e["dropped"] = {k: round(v) for k, v in sorted(e["dropped"].items(), key=lambda kv: (-kv[1], kv[0]))}
        e["passed"] = e["kept"] + sum(e["dropped"].values())
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["passed"], kv[0])))
