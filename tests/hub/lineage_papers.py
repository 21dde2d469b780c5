"""Four invented papers on an invented technique ("quokka attention", 2014 → 2016 → 2018 → 2020) that
cite each other, drawn with fpdf2 (:mod:`tests.hub.pdfgen`): numbered lists ([1] ...) in 2016 and
2020, an author-year list in 2018, and a reference each to work outside the library. The tests of
the citation graph, the lineage answer and the lineage view read them."""

from __future__ import annotations

from pathlib import Path

from tests.hub.pdfgen import LEFT, Paper, filler_lines

ARXIV_2014 = "1403.01234"  # the 2014 paper's arXiv id: ingest it with this page as its url

PAPERS = {
    "quokka2014": dict(
        title="Quokka Attention for Sequence Labelling", authors="Mira Castellanos and Oleg Ferreira", year=2014,
        body=["We introduce quokka attention, which weighs each token by its distance to a pouch token.",
              "Quokka attention labels sequences better than sparse parsers [1] on three benchmarks."],
        refs=["[1] Q. Zhang. Sparse models for parsing. Journal of Marsupial Computing, 4(2):1-9, 2003."]),
    "gated2016": dict(
        title="Gated Quokka Attention Networks", authors="Lena Okafor", year=2016,
        body=["Castellanos and Ferreira introduced quokka attention [1], which we extend with learned gates.",
              "Gates keep quokka attention stable on long sequences where the original diverges."],
        refs=["[1] Mira Castellanos and Oleg Ferreira. 2014. Quokka attention for sequence labelling. In",
              "Proceedings of the Marsupial Workshop, pages 1-9.",
              "[2] R. Hopper. Training wombats. Outback Letters, 2011."]),
    "deep2018": dict(
        title="Deep Quokka Attention at Scale", authors="Tomas Brandt and Yuki Nakamura", year=2018,
        body=["The original quokka attention of Castellanos and Ferreira (2014) used a single layer.",
              "Gated networks (Okafor, 2016) made it stable, and we stack forty gated layers of it."],
        refs=["Castellanos, M. and Ferreira, O. 2014. Quokka attention for sequence labelling. arXiv:1403.01234.",
              "Okafor, L. 2016. Gated quokka attention networks. In Proceedings of the Outback Conference.",
              "Zhang, Q. 2003. Sparse models for parsing. Journal of Marsupial Computing."]),
    "nogates2020": dict(
        title="Quokka Attention without Gates", authors="Ada Lovelace", year=2020,
        body=["Brandt and Nakamura showed that deep quokka attention scales to forty layers [1].",
              "We remove the gates of Okafor [2] and keep the depth, with a pouch norm in their place."],
        refs=["[1] T. Brandt and Y. Nakamura. Deep quokka attention at scale. Journal of Marsupial Computing,",
              "12(3):1-20, 2018.",
              "[2] L. Okafor. Gated quokka attention networks. In Proceedings of the Outback Conference, 2016.",
              "[3] G. Turing. Counting kangaroos. Outback Letters, 2019."]),
}


def draw(name: str, out: Path) -> Path:
    """One of :data:`PAPERS` as a one-page PDF: title, authors, a venue line with the year (the
    reader's year), an abstract, an introduction that cites, and the reference list."""
    p = PAPERS[name]
    paper = Paper().page()
    paper.line(p["title"], 110, 80, 16, bold=True)
    paper.line(p["authors"], 200, 110, 12)
    paper.line(f"Proceedings of the Marsupial Workshop {p['year']}", 200, 126, 9)
    paper.line("Abstract", 280, 160, 12, bold=True)
    y = paper.lines([p["body"][0], *filler_lines(2)], LEFT, 180)
    paper.line("1 Introduction", LEFT, y + 20, 12, bold=True)
    y = paper.lines([*p["body"], *filler_lines(3)], LEFT, y + 40)
    paper.line("References", LEFT, y + 20, 12, bold=True)
    paper.lines(p["refs"], LEFT, y + 40)
    return paper.save(out / f"{name}.pdf")


def draw_all(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    return [draw(n, out) for n in PAPERS]
