"""A session's own facts are left out of its recall before the top k is taken (real SQLite, real MiniLM).

They used to be dropped after the store had picked the top k: with ``recall_top_k`` small, this session's
facts took the places and an earlier session's relevant fact was never recalled, and the dropped facts'
recall counters (eviction order) were bumped although no answer used them.
"""

from __future__ import annotations

from core.config import MemorySettings
from core.memory.facts import FactStore

OWN = "Thistlenet trains its adapter on 40,000 hours of transcribed speech."
OWN_TOO = "Thistlenet's adapter is trained for 40,000 hours of speech at rank 8."
EARLIER = "Thistlenet was trained on transcribed speech from public radio archives."
PINNED = "Thistlenet's speech adapter is the project's favourite baseline."
QUESTION = "How many hours of transcribed speech is Thistlenet trained on?"


async def test_own_unpinned_facts_take_no_place_and_keep_their_counters(tmp_path):
    store = FactStore(tmp_path / "s.sqlite3", MemorySettings())
    try:
        await store.memorize([OWN, OWN_TOO], source_question="q1", session_id="now")
        await store.memorize([EARLIER], source_question="q0", session_id="before")
        pinned = store.add(PINNED, pinned=True, session_id="now")
        everything = await store.recall(QUESTION, 4)
        assert {f.content for f in everything} >= {OWN, OWN_TOO, EARLIER}  # all relevant: else this proves nothing
        ranked = [f.content for f in everything]
        assert ranked.index(EARLIER) > min(ranked.index(OWN), ranked.index(OWN_TOO))  # an own fact ranks first
        counts = {f.content: f.recall_count for f in store.list()}

        got = await store.recall(QUESTION, 2, exclude_session="now")

        assert {f.content for f in got} == {EARLIER, PINNED}
        after = {f.content: f.recall_count for f in store.list()}
        assert after[OWN] == counts[OWN] and after[OWN_TOO] == counts[OWN_TOO]
        assert after[EARLIER] == counts[EARLIER] + 1 and store.get(pinned.id).pinned
    finally:
        store.close()
