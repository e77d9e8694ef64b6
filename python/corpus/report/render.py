"""The HTML page: inline CSS, figures as SVG data URIs, no script, nothing loaded from anywhere."""

from __future__ import annotations

import html
import statistics

from corpus.report import plots
from corpus.report.filters import LOG_RULES
from corpus.report.licences import classify
from corpus.report.text import first_lines
from corpus.web.records import total_web_counts

CSS = """
:root{--ink:#1a202c;--muted:#5a6678;--line:#e2e8f0;--bg:#f7f9fc;--card:#fff;--blue:#2b6cb0;--red:#c53030;
--amber:#b7791f;--green:#2f855a}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif}
header{background:#1a365d;color:#fff;padding:22px 32px 16px}
header h1{margin:0 0 4px;font-size:24px;font-weight:650}
header .sub{color:#c3d3ea;font-size:13px}
header code{color:#e2ecf9}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:8px 32px}
nav a{color:var(--blue);text-decoration:none;margin-right:18px;font-weight:550;font-size:13px}
main{max-width:1160px;margin:0 auto;padding:8px 32px 40px}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 22px;margin:18px 0}
h2{margin:0 0 6px;font-size:19px}
h3{margin:18px 0 6px;font-size:15px}
p{margin:6px 0}
.muted{color:var(--muted)}
.note{color:var(--muted);font-size:12.5px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:10px;margin:14px 0 4px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .v{font-size:21px;font-weight:650;font-variant-numeric:tabular-nums}
.card .k{color:var(--muted);font-size:12px}
.flag{border-left:5px solid var(--red);background:#fff5f5;padding:10px 14px;border-radius:6px;margin:10px 0}
.flag.unknown{border-color:var(--amber);background:#fffaf0}
.flag b{font-weight:650}
.badge{display:inline-block;font-size:11px;font-weight:650;padding:1px 7px;border-radius:9px;white-space:nowrap}
.badge.research-only{background:#fed7d7;color:#9b2c2c}.badge.unknown{background:#feebc8;color:#8a4b08}
.badge.share-alike{background:#e9d8fd;color:#553c9a}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:13px}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;color:#2d3748;background:#f1f5f9;position:sticky;top:37px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:hover td{background:#f8fafc}
td .sub{color:var(--muted);font-size:11.5px}
img.fig{max-width:100%;height:auto;display:block;margin:8px 0}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin:6px 0 14px}
.doc{background:#f8fafc;border:1px solid var(--line);border-radius:6px;padding:8px 10px;font-size:12.5px;
white-space:pre-wrap;overflow-wrap:anywhere}
.doc .meta{display:block;color:var(--muted);font-size:11.5px;margin-bottom:4px;white-space:normal}
.docs{display:grid;grid-template-columns:repeat(auto-fit,minmax(330px,1fr));gap:10px}
mark{background:#fefcbf;padding:0 2px;border-radius:3px}
mark.ph{background:#c6f6d5;color:#22543d;font-weight:600}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details{margin:6px 0}summary{cursor:pointer;color:var(--blue);font-weight:550}
.facts td:first-child{width:220px;color:var(--muted)}
footer{max-width:1160px;margin:0 auto;padding:0 32px 30px;color:var(--muted);font-size:12px}
"""


def e(x) -> str:
    return html.escape(str(x), quote=True)


def n(x, est: bool = False) -> str:
    if x is None:
        return "—"
    s = f"{x:,}" if isinstance(x, int) else f"{x:,.4g}"
    return ("≈" + s) if est else s


def si(x) -> str:
    return "—" if x is None else plots._si(x)


def pct(a, b) -> str:
    return f"{100 * a / b:.1f}%" if b else "—"


def table(head: list[str] | None, rows: list[list], numeric: set[int] = frozenset(), cls: str = "") -> str:
    th = "".join(f'<th class="n">{h}</th>' if i in numeric else f"<th>{h}</th>" for i, h in enumerate(head or []))
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    thead = f"<thead><tr>{th}</tr></thead>" if head else ""
    return f'<table class="{cls}">{thead}<tbody>{body}</tbody></table>'


def img(uri: str, alt: str) -> str:
    # Every chart at its natural size, never stretched to the column: all are drawn with the same font
    # sizes, so they read alike (a one-panel rule grid stretched to 100% had 3x the others' fonts).
    return f'<img class="fig" src="{uri}" alt="{e(alt)}">'


def badge(flag: str) -> str:
    return f'<span class="badge {e(flag)}">{e(flag)}</span>' if flag else ""


def doc(meta: str, text: str) -> str:
    return f'<div class="doc"><span class="meta">{meta}</span>{e(text)}</div>'


# ---------------------------------------------------------------- sections

def header(d: dict) -> str:
    c = d["corpus"]
    tok = d["tokens"]
    tokens = sum(s["tokens"] for s in tok["splits"].values()) if tok else None
    fun = d["funnel"]["stages"]
    fetched = fun[0]["docs_out"]
    kept_chars, raw_chars = fun[-1]["chars_out"]["chars"], fun[0]["chars_out"]["chars"]
    lic = d["licences"]
    red = sum(c["pii"].values())
    cards = [("fetched documents", n(fetched)), ("documents in the shards", n(c["n_docs"])),
             ("kept (documents)", pct(c["n_docs"], fetched)),
             ("kept (characters)", pct(kept_chars, raw_chars) if kept_chars is not None and raw_chars else "—"),
             ("tokens", si(tokens)), ("train / val documents", f"{c['splits']['train']:,} / {c['splits']['val']:,}"),
             ("licences to check", n(len(lic["flagged"]))), ("decontaminated", n(c["dedup"]["decontaminated"])),
             ("PII placeholders", n(red))]
    return (f'<header><h1>{e(c["dataset"])} {e(c["version"])}</h1><div class="sub">corpus {e(c["corpus_version"])}'
            f' · config <code>{e(c["config_sha256"][:12])}</code> · ledger <code>{e(c["ledger_ref"]["sha256"][:12])}'
            f'</code> · {c["n_shards"]} shard(s) · built from the manifests and parts of '
            f'<code>corpus/{e(c["dataset"])}/{e(c["version"])}</code></div></header>'
            '<nav><a href="#funnel">Funnel</a><a href="#licences">Licences</a><a href="#filters">Filters</a>'
            '<a href="#dedup">Dedup</a><a href="#pii">PII</a><a href="#tokens">Tokens</a><a href="#samples">Samples</a>'
            '</nav><main>' + flags(lic) + token_warnings(tok) +
            '<div class="cards">' + "".join(f'<div class="card"><div class="v">{v}</div><div class="k">{k}</div></div>'
                                             for k, v in cards) + "</div>")


def token_warnings(tok: dict | None) -> str:
    """What the token stream's manifest warns about (tokens.checks), at the top of the page."""
    return "".join(f'<div class="flag unknown"><b>tokens:</b> {e(w)}.</div>' for w in (tok or {}).get("warnings", []))


def flags(lic: dict) -> str:
    out = []
    for r in lic["flagged"]:
        t = "" if r["flag"] == "research-only" else " unknown"
        tokens = f", {si(r['tokens'])} tokens" if r["tokens"] is not None else ""
        out.append(f'<div class="flag{t}"><b>{e(r["flag"])}: {e(r["licence"])}</b> — {e(r["why"])}. '
                   f'{r["docs"]:,} documents, {si(r["chars"])} characters{tokens} from '
                   f'{", ".join(e(s) for s in r["sources"])}.</div>')
    risky = [x for x in lic["derived"] if x["flag"] in ("research-only", "unknown")]
    if risky:
        names = ", ".join(f'<code>{e(x["source_id"])}</code> ({e(x["licence"])})' for x in risky)
        out.append(f'<div class="flag unknown"><b>{e(risky[0]["flag"])} data behind a filter:</b> the '
                   f'{e(risky[0]["use"])} was trained on {names}. Their text is not in the corpus, but it decided '
                   f'which documents are.</div>')
    return "".join(out)


FATE_GROUPS = ["kept", "empty", "lang", "gopher", "repetition", "ppl", "dedup"]


def web_records_row(web: list[dict]) -> list[str]:
    """The funnel's row above raw: the web sources' WARC records read, those that are documents (kept or
    rejected at fetch: the raw row's), and those skipped, by WARC-Type (records, not documents: no chart)."""
    t = total_web_counts(web)
    read, skipped = sum(t["records"].values()), sum(t["skipped_records"].values())
    kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(t["skipped_records"].items())) or "none"
    label = (f'WARC records ({len(web)} web source{"s" if len(web) > 1 else ""})'
             f'<div class="sub">skipped by type: {e(kinds)}</div>')
    return [label, n(read), n(read - skipped), n(skipped), "—", "all"]


def funnel(d: dict) -> str:
    f = d["funnel"]
    stages = f["stages"]
    labels = [s["label"] for s in stages]
    docs = [s["docs_out"] for s in stages]
    chars = [s["chars_out"]["chars"] for s in stages]
    rows = [web_records_row(f["web"])] if f["web"] else []
    for s in stages:
        rows.append([e(s["label"]), n(s["docs_in"]), n(s["docs_out"]), n(s["docs_in"] - s["docs_out"]),
                     n(s["chars_out"]["chars"], s["chars_out"]["estimated"]), e(s.get("note") or "all")])
    fates = []
    last = stages[-1]["out"]
    for sid in f["sources"]:
        fate = {"kept": last.get(sid, {}).get("docs", 0)}
        for s in stages:
            for (a, b), per in s["drops"].items():
                g = "empty" if b == "empty" else a if a in FATE_GROUPS else "dedup"
                fate[g] = fate.get(g, 0) + per.get(sid, {}).get("docs", 0)
        fates.append(fate)
    per_source = []
    for sid in f["sources"]:
        cells = [f"<code>{e(sid)}</code>"]
        for s in stages:
            o = s["out"].get(sid)
            cells.append(f'{n(o["docs"])}<div class="sub">{si(o["chars"])}{" est." if o["estimated"] else ""} ch</div>'
                         if o else "0")
        sh = d["shards"]["by_source"].get(sid)
        cells.append(f'{sh["train"]:,} / {sh["val"]:,}' if sh else "0 / 0")
        reasons = sorted(((v[sid]["docs"], f"{a}.{b}" if a != s["name"] else b) for s in stages
                          for (a, b), v in s["drops"].items() if sid in v), key=lambda x: (-x[0], x[1]))
        cells.append(", ".join(f"<code>{e(r)}</code> {k:,}" for k, r in reasons[:3])
                     + (f", +{len(reasons) - 3} more" if len(reasons) > 3 else ""))
        per_source.append(cells)
    drop_rows = []
    for s in stages:
        for (a, b), per in sorted(s["drops"].items(), key=lambda kv: -sum(v["docs"] for v in kv[1].values())):
            total = sum(v["docs"] for v in per.values())
            ch = [v["chars"] for v in per.values()]
            est = any(v["estimated"] for v in per.values())
            top = sorted(per.items(), key=lambda kv: (-kv[1]["docs"], kv[0]))
            by = ", ".join(f"<code>{e(k)}</code> {v['docs']:,}" for k, v in top[:4]) + (
                f", +{len(top) - 4} more" if len(top) > 4 else "")
            drop_rows.append([e(s["label"]), f"<code>{e(a)}.{e(b)}</code>" if a != s["name"] else f"<code>{e(b)}</code>",
                              n(total), n(None if None in ch else sum(ch), est), by])
    return ('<section id="funnel"><h2>Funnel</h2><p class="muted">Documents (exact, from the manifests and parts) and '
            'characters (<code>len()</code> of the texts each stage wrote) after every stage, as a share of what was '
            'fetched.' + (' The first row counts the WARC records of the web sources: those that are no page '
                          '(warcinfo, request, metadata, revisit) are skipped; the others are documents '
                          'the raw row reads in (kept, or rejected with a reason).' if f["web"] else '') +
            '</p>' + img(plots.funnel_chart(labels, docs, chars), "documents and characters per stage") +
            table(["stage", "docs in", "docs out", "dropped", "characters out", "parts read"], rows, {1, 2, 3, 4}) +
            "<h3>Where each source's documents went</h3>" +
            img(plots.fate_chart(f["sources"], fates, FATE_GROUPS), "fate of each source's documents") +
            "<h3>Per source</h3>" +
            table(["source", *[e(lbl) for lbl in labels], "train / val", "top drop reasons"], per_source,
                  set(range(1, len(labels) + 2))) +
            "<h3>Drop reasons</h3>" +
            table(["stage", "reason", "documents", "characters", "largest sources"], drop_rows, {2, 3}) + "</section>")


def licences(d: dict) -> str:
    lic = d["licences"]
    rows = [[f"<code>{e(r['licence'])}</code> {badge(r['flag'])}", e(r["why"]), n(r["docs"]), si(r["chars"]),
             si(r["tokens"]), ", ".join(f"<code>{e(s)}</code>" for s in r["sources"])] for r in lic["rows"]]
    tok = (d["tokens"] or {}).get("by_source") or {}
    src = []
    for sid in d["funnel"]["sources"]:
        sh = d["shards"]["by_source"].get(sid)
        led = d["ledger_licence"].get(sid, "?")
        t = tok.get(sid)
        src.append([f"<code>{e(sid)}</code>", f"<code>{e(led)}</code> {badge(classify(led)[0])}",
                    n(sh["docs"] if sh else 0), si(sh["chars"] if sh else 0), si(t["train"] + t["val"]) if t else "—"])
    derived = "".join(f"<li>{e(x['use'])}: <code>{e(x['source_id'])}</code> — <code>{e(x['licence'])}</code> "
                      f"{badge(x['flag'])}</li>" for x in lic["derived"])
    return ('<section id="licences"><h2>Licences</h2>' + (flags(lic) or '<p>No research-only or unknown licence in '
            'the shards.</p>') + table(["licence", "note", "documents", "characters", "tokens", "sources"], rows,
                                       {2, 3, 4}) +
            "<h3>Per source</h3>" + table(["source", "ledger licence", "documents", "characters", "tokens"], src,
                                          {2, 3, 4}) +
            (f"<h3>Data the pipeline learned from</h3><ul>{derived}</ul>" if derived else "") + "</section>")


def filters(d: dict) -> str:
    f = d["filters"]
    out = ['<section id="filters"><h2>Filters</h2><p class="muted">For every rule, the value it measured: over '
           '<b style="color:#dd6b20">dropped</b> documents, every document the rule dropped (the first failing rule '
           'drops a document; the value is the one stage 03 stored in <code>rejects/</code>); over '
           f'<b style="color:#2b6cb0">kept</b> documents, <b>recomputed here on a seeded sample of {f["kept_sample"]:,} '
           f'of the filter\'s {f["kept_total"]:,} kept documents</b> with the record-level functions of '
           '<code>corpus.filters</code> (kept values are not stored). Each group is shown as shares of itself; the '
           'dashed line is the threshold, the shaded side is dropped.'
           + (f" Kept documents were drawn from {e(f['sample_note'])}." if f["sample_note"] else "") + "</p>"]
    for name, rules in f["rules"].items():
        dropped_n = sum(f["by_rule"].get(r.key, 0) for r in rules)
        out.append(f"<h3>{e(name)} — {dropped_n:,} dropped</h3>")
        out.append(img(plots.rule_grid(name, rules, f["kept"], f["dropped"], f["by_rule"], LOG_RULES),
                       f"{name} rule distributions"))
        rows = []
        for r in rules:
            k, dv = f["kept"].get(r.key, []), f["dropped"].get(r.key, [])
            rows.append([f"<code>{e(r.key.split('.', 1)[1])}</code>", e(r.label),
                         ("&lt; " if r.side == "min" else "&gt; ") + e(f"{r.threshold:g}"),
                         n(f["by_rule"].get(r.key, 0)), n(statistics.median(k)) if k else "—",
                         n(statistics.median(dv)) if dv else "—",
                         pct(sum(1 for v in k if _near(v, r)), len(k)) if k else "—"])
        out.append(table(["rule", "value", "drops when", "dropped", "kept median", "dropped median",
                          "kept within 10% of threshold"], rows, {3, 4, 5, 6}))
    plotted = {r.key for rules in f["rules"].values() for r in rules}
    other = sorted((k, v) for k, v in f["by_rule"].items() if k not in plotted)
    if other:  # the URL, C4, FineWeb and bad-words rules: counts (their values are in corpus rejects)
        out.append("<h3>Other rules — documents dropped</h3>")
        out.append(table(["rule", "dropped"], [[f"<code>{e(k)}</code>", n(v)] for k, v in other], {1}))
    if f.get("cleaned"):
        out.append("<h3>Lines removed by cleaning filters</h3><p class=\"muted\">Lines a cleaning filter (C4) "
                   "removed from documents, per rule; every line is in the stage's <code>removed/</code> parts and "
                   "<code>corpus why &lt;id&gt;</code> prints them.</p>")
        out.append(table(["rule", "documents", "lines", "characters"],
                         [[f"<code>{e(k)}</code>", n(v["docs"]), n(v["lines"]), n(v["chars"])]
                          for k, v in sorted(f["cleaned"].items())], {1, 2, 3}))
    out.append(lang_section(f["lang"]))
    out.append(quality_section(d.get("quality")))
    out.append("</section>")
    return "".join(out)


def quality_section(q: dict | None) -> str:
    """The quality classifier: its threshold and how it was found, its scores per source and per language,
    and the keep rate of each."""
    if not q:
        return ""
    from corpus.report.quality import median_of

    def groups(by: dict) -> tuple[list, list]:
        order = sorted(by, key=lambda k: (-int(by[k]["kept"].sum() + by[k]["cut"].sum()), k))
        rows = []
        for k in order:
            kept, cut = int(by[k]["kept"].sum()), int(by[k]["cut"].sum())
            med = median_of(by[k]["kept"] + by[k]["cut"])
            rows.append([f"<code>{e(k)}</code>", n(kept + cut), n(kept), pct(kept, kept + cut),
                         f"{med:.2f}" if med is not None else "—"])
        return rows, [(k, by[k]["kept"] + by[k]["cut"]) for k in order[:10]]

    src_rows, src_lines = groups(q["by_source"])
    lang_rows, lang_lines = groups(q["by_lang"])
    est = " (the dropped documents' languages re-identified on a seeded sample)" if q["lang_estimated"] else ""
    return (f'<h3>Quality classifier — {q["scored"] - q["kept"]:,} of {q["scored"]:,} scored documents dropped</h3>'
            f'<p class="muted">{e(q["how"])}. It scores what every other filter kept. If one source or one '
            'language sits far from the others, the classifier may be telling sources or languages apart rather '
            'than quality.</p>'
            + img(plots.score_chart("sources", src_lines, q["threshold"]), "quality score by source")
            + table(["source", "scored", "kept", "keep rate", "median score"], src_rows, {1, 2, 3, 4})
            + img(plots.score_chart("languages", lang_lines, q["threshold"]), "quality score by language")
            + f'<p class="muted">By language{est}.</p>'
            + table(["language", "scored", "kept", "keep rate", "median score"], lang_rows, {1, 2, 3, 4}))


def _near(v: float, r) -> bool:
    t = r.threshold
    return abs(v - t) <= 0.1 * abs(t) if t else abs(v) <= 0.01


def lang_section(lang: dict | None) -> str:
    if not lang:
        return ""
    langs = lang["langs"]
    keep = lang["passed"]
    names = set(langs) | set(keep)
    rows = sorted(((k, keep.get(k, 0), langs.get(k, {}).get("other", 0), langs.get(k, {}).get("und", 0))
                   for k in names), key=lambda r: (-(r[1] + r[2] + r[3]), r[0]))
    top = rows[:24]
    rest = rows[24:]
    table_rows = []
    for k, a, b, c in top:
        src = langs.get(k, {}).get("sources", {})
        by = ", ".join(f"<code>{e(s)}</code> {m:,}" for s, m in sorted(src.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
        table_rows.append([f"<code>{e(k)}</code>", n(a), n(b), n(c), by])
    est = " (re-identified on a seeded sample)" if lang["estimated"] else ""
    return (f'<h3>Language mix</h3><p class="muted">What the language filter (fastText lid.176, keep '
            f'{", ".join(e(x) for x in lang["keep"])}, min_score {lang["min_score"]:g}) saw: {len(rows)} languages. '
            f'Documents it dropped are re-identified here{est} to name their most likely language, also for those '
            f'whose top score was below min_score.</p>' + img(plots.lang_chart(top), "language mix") +
            table(["language", "passed", "dropped: other language", "dropped: low score", "largest sources"],
                  table_rows, {1, 2, 3}) +
            (f'<p class="note">{len(rest)} more languages with {sum(r[1] + r[2] + r[3] for r in rest):,} documents: '
             + ", ".join(f"{e(r[0])} {r[1] + r[2] + r[3]}" for r in rest) + "</p>" if rest else "")
            + keep_rate_section(lang.get("per_language") or {}))


def keep_rate_section(per_language: dict) -> str:
    """Per language that passed the language filter: how many the later rules kept, and which dropped the
    rest (the word rules are set per language: docs/languages.md)."""
    if not per_language:
        return ""
    rows = []
    for k, v in list(per_language.items())[:24]:
        rules = ", ".join(f"<code>{e(r)}</code> {m:,}" for r, m in list(v["dropped"].items())[:3])
        rate = v["kept"] / v["passed"] if v["passed"] else 0.0
        rows.append([f"<code>{e(k)}</code>", n(v["passed"]), n(v["kept"]), f"{100 * rate:.1f}%", rules])
    return ('<h3>Keep rate per language</h3><p class="muted">Documents of each language the language filter let '
            'through, and what the later rules (set per language) did with them; drops re-identified as the '
            'filter identified them.</p>' +
            table(["language", "passed lang", "kept", "keep rate", "dropped most by"], rows, {1, 2, 3}))


def dedup(d: dict, red) -> str:
    x = d["dedup"]
    p = x["params"]
    c = x["counts"]
    w = x["width"]
    out = ['<section id="dedup"><h2>Dedup</h2>'
           f'<p>Dropped {c.get("decontam", 0):,} for decontamination, {c.get("exact", 0):,} exact and '
           f'{c.get("near", 0):,} near duplicates (mode <code>{e(p["mode"])}</code>, MinHash {p["num_perm"]} '
           f'permutations in {p["bands"]} bands over word {p["ngram_words"]}-grams, Jaccard ≥ {p["jaccard_threshold"]}). '
           f'{x["multi"]:,} clusters hold more than one document; {x["sizes"].get(1, 0):,} documents have no '
           f'near twin.</p>']
    if x["multi"]:
        out.append(img(plots.cluster_chart(x["sizes"]), "cluster sizes"))
        out.append("<h3>Largest clusters</h3>")
        for t in x["top"]:
            a, b = t["a"], t["b"]
            out.append(f'<p class="note">{t["size"]} documents ({", ".join(e(r) for r in t["reasons"])} duplicates '
                       f'dropped)</p><div class="pair">' +
                       doc(f"<code>{e(a[0])}</code> · {e(a[1])}", first_lines(red[x["keys"][a[0]]], w)) +
                       doc(f"<code>{e(b[0])}</code> · {e(b[1])}", first_lines(red[x["keys"][b[0]]], w)) + "</div>")
    else:
        out.append("<p>No near-duplicate cluster has more than one document.</p>")
    if x.get("units_removed"):  # dedup inside documents: copies of lines, paragraphs or spans
        out.append("<h3>Units removed inside documents</h3><p class=\"muted\">Copies of a line, paragraph or "
                   "sentence span an earlier document holds, per source; every one is in the stage's "
                   "<code>removed/</code> parts with the document that kept it (<code>corpus why &lt;id&gt;</code>)."
                   "</p>")
        out.append(table(["source", "documents edited", "units", "characters", "documents dropped"],
                         [[f"<code>{e(k)}</code>", n(v["docs"]), n(v["units"]), n(v["chars"]), n(v["docs_dropped"])]
                          for k, v in sorted(x["units_removed"].items())], {1, 2, 3, 4}))
    rows = [[f"<code>{e(ev)}</code>", n(x["by_eval"].get(ev, 0))] for ev in x["evals"]]
    out.append(f'<h3>Decontamination</h3><p class="muted">A document sharing a {x["decontam_ngram"]}-gram of '
               'lowercased words with a protected eval set is dropped.</p>' +
               table(["eval set", "documents dropped"], rows, {1}))
    if x["decontam"]:
        hits = []
        for r in x["decontam"]:
            text = first_lines(red[x["keys"][r["id"]]], w)
            hits.append([f"{doc_id(r['id'])}", f"<code>{e(r['eval_source'])}</code>",
                         f"<mark>{e(r['matched_ngram'])}</mark>", e(text)])
        more = x["decontam_total"] - len(x["decontam"])
        out.append(table(["document", "eval set", "matched n-gram", "document's first lines"], hits) +
                   (f'<p class="note">and {more:,} more.</p>' if more > 0 else ""))
    out.append("</section>")
    return "".join(out)


def pii(d: dict) -> str:
    x = d["pii"]
    types = ["EMAIL", "PHONE", "CARD", "IP", "KEY"]
    rows = [[f"<code>{e(sid)}</code>", *[n(s.get(t, 0)) for t in types], n(sum(s.values()))]
            for sid, s in x["by_source"].items() if sum(s.values())]
    rows.append(["<b>total (stage 05 manifest)</b>", *[f"<b>{n(x['totals'].get(t, 0))}</b>" for t in types],
                 f"<b>{n(sum(x['totals'].values()))}</b>"])
    snippets = "".join(
        f'<div class="doc"><span class="meta">{doc_id(s["id"])} · {e(s["type"])}</span>{e(s["before"])}'
        f'<mark class="ph">{e(s["placeholder"])}</mark>{e(s["after"])}</div>' for s in x["snippets"])
    return ('<section id="pii"><h2>PII</h2>'
            f'<p>{x["docs_redacted"]:,} of {x["docs"]:,} documents hold at least one placeholder; entities scrubbed: '
            f'{", ".join(e(t) for t in x["entities"])}. Per source, a placeholder is counted when a document gained '
            'it in stage 05 (its output against its input).' + (f" Read {e(x['note'])}." if x["note"] else "") + "</p>" +
            table(["source", *types, "all"], rows, set(range(1, 7))) +
            ("<h3>Redacted snippets</h3><p class=\"muted\">From stage 05's output: the placeholder in context, never "
             f'the original value.</p><div class="docs">{snippets}</div>' if snippets else "") + "</section>")


def tokens(d: dict) -> str:
    t = d["tokens"]
    if not t:
        return ('<section id="tokens"><h2>Tokens</h2><p>No token streams made from this corpus manifest '
                '(run <code>corpus tokenize</code>).</p></section>')
    tk = t["tokenizer"]
    facts = [["tokenizer id", f"<code>{e(t['id'])}</code>"], ["tokenizer.json sha256", f"<code>{e(tk['sha256'])}</code>"],
             ["trained on (bytes of text)", n(tk.get("trained_on_bytes"))],  # —: pinned, or not recorded
             ["vocabulary", n(tk["vocab_size"])], ["dtype on disk", f"<code>{e(tk['dtype'])}</code>"],
             ["EOS", f"<code>{e(tk['eos_token'])}</code> = {tk['eos_id']}"],
             ["special tokens", ", ".join(f"<code>{e(k)}</code> {v}" for k, v in tk["special_tokens"].items())],
             ["permutation seed", e(t["seed"])],
             ["budgets", ", ".join(f"{e(k)} {e(v) if v is not None else 'no limit'}" for k, v in t["budgets"].items())],
             ["packages", ", ".join(f"{e(k)} {e(v)}" for k, v in t["packages"].items())]]
    splits = [[e(s), n(v["docs"]), n(v["tokens"]), n(v["files"]), si(v["bin_bytes"]) + "B",
               n(round(v["median_doc"])), n(v["max_doc"])] for s, v in t["splits"].items()]
    rows, chart = [], []
    mixed = t.get("mix") is not None
    for sid in d["funnel"]["sources"]:
        s = t["by_source"].get(sid)
        if not s:
            continue
        chars = d["shards"]["by_source"].get(sid, {}).get("chars", 0)
        total = s.get("train_before_mix", s["train"]) + s["val"]  # characters per token: of the shards' text
        rows.append([f"<code>{e(sid)}</code>", *([n(s["train_before_mix"])] if mixed else []), n(s["train"]),
                     n(s["val"]), n(s["train_docs"] + s["val_docs"]), f"{chars / total:.2f}" if total else "—"])
        chart.append((sid, s["train"], s["val"]))
    how = (f'the val documents are mapped back to their shard rows by replaying the seeded permutation of stage 07 '
           f'(checked by re-encoding {t["checked_docs"]} seeded documents); the train tokens before and after the '
           f'mix <code>{e(t["mix"]["id"])}</code> are its manifest\'s' if mixed else
           f'the streams\' documents are mapped back to their shard rows by replaying the seeded permutation of '
           f'stage 07; checked by re-encoding {t["checked_docs"]} seeded documents')
    mapping = (f'<p class="note">Per source: {how}.</p>'
               if not t["mapping"] else f'<p class="flag unknown">Tokens per source unavailable: {e(t["mapping"])}</p>')
    heads = ["source", *(["train tokens before mix", "train tokens after mix"] if mixed else ["train tokens"]),
             "val tokens", "documents", "characters per token"]
    return ('<section id="tokens"><h2>Tokens</h2>' + table(None, facts, cls="facts") +
            table(["split", "documents", "tokens", "files", ".bin bytes", "median doc", "longest doc"], splits,
                  {1, 2, 3, 4, 5, 6}) + img(plots.token_length_chart(t["lengths"]), "document lengths in tokens") +
            ("<h3>Per source</h3>" + img(plots.tokens_by_source_chart(chart), "tokens per source") +
             table(heads, rows, set(range(1, len(heads))))
             if rows else "") + mapping +
            (f'<p class="note">Other token sets of this corpus: {", ".join(e(o) for o in t["others"])}</p>'
             if t["others"] else "") + "".join(mixture(x) for x in t.get("mixes", [])) + "</section>")


def mixture(x: dict) -> str:
    """One mixed token set ([mix], the manifest's `mix`): train tokens per source before and after, the
    targets, how far from them the stream is and why, and how often documents repeat."""
    rows, chart = [], []
    for sid, s in x["sources"].items():
        target = s["target"]
        want = (f"{100 * target['share']:g}% ({si(target['tokens'])})" if target and "share" in target
                else si(target["tokens"]) if target else "—")
        err = s.get("share_error", s.get("error"))
        reps = ", ".join(f"{k}×: {n(v)}" for k, v in s["repetitions"].items())
        rows.append([f"<code>{e(sid)}</code>", f"{s['weight']:.4g}", want, n(s["before"]["train_docs"]),
                     n(s["before"]["train_tokens"]), n(s["after"]["train_docs"]), n(s["after"]["train_tokens"]),
                     f"{100 * s['share']:.2f}%", f"{100 * err:+.2f}%" if err is not None else "—", e(reps),
                     e(s["reason"] or "")])
        chart.append((sid, s["before"]["train_tokens"], s["after"]["train_tokens"], target["tokens"] if target else None))
    cfg = x["config"]
    return (f'<h3>Mixture <code>{e(x["dir"])}</code></h3><p class="note">seed {e(cfg["seed"])}, max_repeats '
            f'{e(cfg["max_repeats"])}; train tokens {n(x["train_tokens"]["before"])} → {n(x["train_tokens"]["after"])}; '
            f'{e(x["val"])}.</p>' + img(plots.mixture_chart(x["id"], chart), "train tokens per source, before and after the mix") +
            table(["source", "weight", "target", "docs before", "tokens before", "docs after", "tokens after", "share",
                   "error", "copies: documents", "note"], rows, {1, 3, 4, 5, 6, 7, 8}))


def doc_id(i: str) -> str:
    """A document id, with the command that shows its whole path as its tooltip."""
    return f'<code class="id" title="corpus why {e(i)}">{e(i)}</code>'


def samples(d: dict, red) -> str:
    s = d["samples"]
    w = s["width"]
    kept = "".join(doc(f"{doc_id(r['id'])} · {e(r['split'])} · {e(r['license_spdx'])} · {r['n_chars']:,} chars"
                       + (f" · {r['pii_redactions']} PII" if r["pii_redactions"] else ""), r["text"]) for r in s["kept"])
    out = ['<section id="samples"><h2>Samples</h2><p class="muted">Seeded and deterministic: the same dataset shows '
           'the same documents. Kept documents come from the shards (as a trainer reads them); rejected ones from '
           'stages 03 and 04, scrubbed of PII here as stage 05 would. <code>corpus why &lt;id&gt;</code> '
           '(<code>make why ID=&lt;id&gt;</code>) shows any id\'s whole path: the value and threshold that dropped '
           'it, its duplicate and their exact Jaccard, its shard, split and token offset.</p>',
           f'<h3>Kept documents</h3><div class="docs">{kept}</div>', "<h3>Rejected by rule</h3>"]
    for key, g in s["rejects"].items():
        cards = "".join(doc(f"{doc_id(r['id'])} · value <b>{r['value']:.4g}</b>",
                            first_lines(red[r["text_key"]], w, lines=6)) for r in g["rows"])
        out.append(f'<details open><summary><code>{e(key)}</code> — {g["count"]:,} documents</summary>'
                   f'<div class="docs">{cards}</div></details>')
    if s["dedup"]:
        out.append("<h3>Dropped by dedup</h3>")
        for key, g in s["dedup"].items():
            def why(r):
                return (f"duplicate of <code>{e(r['duplicate_of'])}</code>" if r["duplicate_of"] else
                        f"eval <code>{e(r['eval_source'])}</code>: <mark>{e(r['matched_ngram'])}</mark>")
            cards = "".join(doc(f"{doc_id(r['id'])} · {why(r)}", first_lines(red[r["text_key"]], w, lines=6))
                            for r in g["rows"])
            out.append(f'<details open><summary><code>{e(key)}</code> — {g["count"]:,} documents</summary>'
                       f'<div class="docs">{cards}</div></details>')
    out.append("</section>")
    return "".join(out)


def render(d: dict, red) -> str:
    body = header(d) + funnel(d) + licences(d) + filters(d) + dedup(d, red) + pii(d) + tokens(d) + samples(d, red)
    notes = "; ".join(d["notes"]) if d["notes"] else "every part was read in full"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
            "style-src 'unsafe-inline'\">"
            f"<title>{e(d['corpus']['dataset'])} {e(d['corpus']['version'])} — corpus report</title>"
            f"<style>{CSS}</style></head><body>{body}</main><footer>Generated by <code>corpus report</code> from the "
            f"dataset's manifests and parts only; deterministic for a given dataset (seed {d['seed']}). "
            f"Sampling: {e(notes)}.</footer></body></html>\n")
