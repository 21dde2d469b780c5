"""Comparison dimensions are signalled in evidence by kinds of words and values, never by one paper's numbers."""

from __future__ import annotations

import re

from core.brains.offline.lexicon import DIMENSIONS, dimension_hits


def test_no_dimension_cue_is_a_number_from_a_paper():
    # a cue such as "10,000" or "65b" matches one paper's claim; a value's shape is stated per dimension instead
    for dim in DIMENSIONS:
        for cue in (*dim.cues, *dim.evidence):
            assert not re.search(r"\d", cue), f"{dim.name}: {cue!r}"


def test_a_count_with_its_magnitude_signals_parameters_in_invented_evidence():
    assert dimension_hits("Sparrow cuts the count by 3,000 times.", "parameters") > \
        dimension_hits("Sparrow cuts the count.", "parameters")
    assert dimension_hits("Heron is trained with 12 million updates.", "parameters") >= 1


def test_a_model_size_signals_scalability_and_a_bit_width_signals_memory():
    assert dimension_hits("Heron runs a 33B network on one card.", "scalability") >= 1
    assert dimension_hits("Heron runs a 33 network on one card.", "scalability") == 0
    assert dimension_hits("Weights are stored in 3-bit blocks.", "memory") >= 1
    assert dimension_hits("Weights are stored in blocks.", "memory") == 0
