"""A paper's reference entries parsed in both common layouts, and its citation markers resolved to
the cited work (authors, year) where the list allows, on invented entries."""

from __future__ import annotations

from core.citations import MARKER_GROUP
from core.hub.pdf.references import Reference, mark_citations, parse_entry, short_cite


def test_authors_title_venue_year_layout_is_split_at_the_author_blocks_end():
    ref = parse_entry("[4] Q. Zhang, R. M. Okafor and L.-T. Brandt. Sparse quokka models for parsing. "
                      "Journal of Marsupial Computing, 4(2):1-9, 2003.")
    assert (ref.label, ref.year) == ("4", 2003)
    assert ref.authors == "Q. Zhang, R. M. Okafor and L.-T. Brandt"
    assert ref.title == "Sparse quokka models for parsing"
    assert ref.venue.startswith("Journal of Marsupial Computing")
    assert short_cite(ref) == "Zhang et al., 2003"


def test_initials_then_and_do_not_end_the_author_block():
    ref = parse_entry("O. Ferreira and A.L. Nakamura. Learning from bags of wombats. In Proc. of WOMB, 1998.")
    assert ref.authors == "O. Ferreira and A.L. Nakamura" and ref.title == "Learning from bags of wombats"
    assert short_cite(ref) == "Ferreira and Nakamura, 1998"


def test_surname_first_authors_and_the_year_first_layout():
    ref = parse_entry("Okafor, R. M. and Brandt, L. Reading tables by hand. In Proc. of the Table Workshop, 2011.")
    assert ref.title == "Reading tables by hand" and short_cite(ref) == "Okafor and Brandt, 2011"
    acl = parse_entry("Mira Castellanos. 2019. Counting kangaroos at scale. In Proceedings of the Outback Conference.")
    assert (acl.authors, acl.year, acl.title) == ("Mira Castellanos", 2019, "Counting kangaroos at scale")
    assert short_cite(acl) == "Castellanos, 2019"


def test_markers_name_the_cited_work_and_never_read_as_paperpilots_own():
    refs = {"1": Reference("", "1", "Q. Zhang", "Sparse quokkas", 2003),
            "2": Reference("", "2", "R. Okafor and L. Brandt", "Tables", 2011),
            "3": Reference("", "3", "A. One, B. Two and C. Three", "Three", 2020)}
    text = mark_citations("Quokkas [1] and tables [1, 2] were read; see also [1-3] and [7].", refs)
    assert text == ("Quokkas [ref 1: Zhang, 2003] and tables [ref 1: Zhang, 2003; 2: Okafor and Brandt, 2011] "
                    "were read; see also [ref 1-3] and [ref 7].")
    assert not MARKER_GROUP.search(text)
    assert mark_citations("three at once [1, 2, 3]", refs) == "three at once [ref 1, 2, 3]"  # a long group stays short
