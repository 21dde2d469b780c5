"""The human-readable report of ``paperpilot eval qa``: every measure of the JSON, as Rich tables."""

from __future__ import annotations

from typing import Any


def format_report(report: dict) -> Any:
    """A Rich renderable: the headline table, routing per label/language, per strategy."""
    from rich.console import Group
    from rich.table import Table

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{v:.2f}"

    head = Table(title=f"QA on {report['collection']} ({report['n']} questions, brain: {report['brain']})",
                 show_header=True)
    head.add_column("measure")
    head.add_column("value", justify="right")
    for label, key in (("gold-term accuracy", "gold_term"), ("answer-first gold", "answer_first_gold"),
                       ("right document", "right_document"),
                       ("citation validity", "citation_validity"),
                       ("claim-level citation precision", "claim_citation_precision"),
                       ("claim precision before repair", "claim_precision_before_repair"),
                       ("abstention recall", "abstention_recall"),
                       ("false abstention", "false_abstention"), ("false answer (unanswerable)", "false_answer")):
        head.add_row(label, pct(report[key]))
    r = report["router"]
    head.add_row("router accuracy", pct(r["accuracy"]))
    for lang, v in r["per_language"].items():
        head.add_row(f"  router ({lang})", pct(v))
    head.add_row("router ECE", f"{r['ece']:.3f}")
    c = report["critic"]
    head.add_row(f"critic pass on misses ({c['misses']})", pct(c["pass_rate_on_miss"]))
    head.add_row(f"critic pass on hits ({c['hits']})", pct(c["pass_rate_on_hit"]))
    head.add_row("critic score ECE (score/10 vs gold)", f"{c['ece']:.3f}")
    comp = report["comparative"]
    head.add_row(f"comparative, any gold ({comp['n']})", pct(comp["any_gold"]))
    head.add_row(f"comparative, gold per document ({comp['n']})", pct(comp["per_document_gold"]))
    rec = report["recalled"]
    head.add_row("answers with recalled material / unrelated", f"{rec['answers_with_recalled']} / "
                 f"{rec['answers_with_unrelated']}")
    prov = report["provenance"]
    head.add_row("answers citing references/furniture/glued headings", str(prov["answers"]))
    head.add_row("seconds per turn p50 / p95", f"{report['seconds']['p50']:.2f} / {report['seconds']['p95']:.2f}")
    head.add_row("LLM calls / tokens", f"{report['llm']['calls']} / {report['llm']['tokens']}")
    if report.get("llm_fallbacks"):
        head.add_row("LLM steps answered offline (unusable or failed check)", str(report["llm_fallbacks"]))
    if report["errors"]:
        head.add_row("failed turns", str(report["errors"]))

    conf = Table(title="routing (rows: gold, columns: predicted)")
    conf.add_column("gold")
    for label in r["confusion"]["labels"]:
        conf.add_column(label[:11], justify="right")
    conf.add_column("recall", justify="right")
    for label, row in zip(r["confusion"]["labels"], r["confusion"]["matrix"]):
        conf.add_row(label, *map(str, row), pct(r["per_label"][label]))

    strat = Table(title="per strategy")
    for col in ("strategy", "n", "gold-term", "right doc", "false abst.", "abst. recall"):
        strat.add_column(col, justify="right" if col != "strategy" else "left")
    for name, s in report["per_strategy"].items():
        strat.add_row(name, str(s["n"]), pct(s["gold_term"]), pct(s["right_document"]), pct(s["false_abstention"]),
                      pct(s["abstention_recall"]))
    rel = Table(title="critic reliability (score/10 binned against gold)")
    for col in ("bin", "n", "mean score", "accuracy"):
        rel.add_column(col, justify="right")
    for b in c["reliability"]:
        rel.add_row(b["bin"], str(b["n"]), f"{b['mean_score']:.2f}", f"{b['accuracy']:.2f}")
    parts = [head, conf, strat, rel]
    if prov["ids"]:
        parts.append(f"provenance offenders: {', '.join(prov['ids'])}")
    if "default_settings" in report:
        d = report["default_settings"]
        ds = Table(title=f"default settings: memory on, {d['n']} questions in sequence, a session each")
        ds.add_column("measure")
        ds.add_column("value", justify="right")
        for label, key in (("gold-term accuracy", "gold_term"), ("answer-first gold", "answer_first_gold"),
                           ("right document", "right_document"), ("abstention recall", "abstention_recall"),
                           ("false abstention", "false_abstention")):
            ds.add_row(label, pct(d[key]))
        r2 = d["recalled"]
        ds.add_row("answers with recalled material", str(r2["answers_with_recalled"]))
        ds.add_row("answers with unrelated recalled text", str(r2["answers_with_unrelated"]))
        ds.add_row("recalled pieces / unrelated", f"{r2['pieces']} / {r2['unrelated_pieces']}")
        parts.append(ds)
    return Group(*parts)
