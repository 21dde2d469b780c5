"""format_output's marker validation: unknown markers go, cited chunks are renumbered by first use."""

from core.nodes.format_output import renumber_citations
from core.state import RetrievedContext


def ctx(i: int) -> RetrievedContext:
    return RetrievedContext(content=f"text {i}", chunk_id=f"c{i}", doc_id=f"d{i}", title=f"T{i}")


def test_renumbers_by_first_appearance_and_drops_unknown():
    contexts = [ctx(1), ctx(2), ctx(3)]
    text, sources, removed = renumber_citations("A [3]. B [1, 3]. C [9]. D [2][2].", contexts)
    assert text == "A [1]. B [2][1]. C. D [3]."
    assert [s.chunk_id for s in sources] == ["c3", "c1", "c2"]
    assert [s.index for s in sources] == [1, 2, 3]
    assert removed == [9]


def test_no_markers_no_sources():
    text, sources, removed = renumber_citations("The knowledge base holds no evidence.", [ctx(1)])
    assert sources == [] and removed == [] and text.endswith("evidence.")


def test_marker_zero_is_invalid():
    _, sources, removed = renumber_citations("X [0].", [ctx(1)])
    assert sources == [] and removed == [0]
