"""A comparison's per-side search asks the question of that side alone: the rival's name is taken out."""

from __future__ import annotations

from core.strategies.comparative import plan_queries, side_query


def test_each_side_query_drops_the_other_names_only():
    planned = plan_queries(["LoRA", "QLoRA"], [], "How do LoRA and QLoRA differ in what they train?")
    assert planned == [("LoRA", "LoRA: How do LoRA and differ in what they train?"),
                       ("QLoRA", "QLoRA: How do and QLoRA differ in what they train?")]


def test_a_name_inside_a_longer_name_is_not_cut_out_of_it():
    assert side_query("Compare QLoRA with LoRA", "QLoRA", ["QLoRA", "LoRA"]) == "Compare QLoRA with"
    assert side_query("Compare QLoRA with LoRA", "LoRA", ["QLoRA", "LoRA"]) == "Compare with LoRA"


def test_dimensions_still_phrase_the_side_queries():
    assert plan_queries(["A1", "B2"], ["memory"], "Compare A1 and B2 in memory") == [("A1", "A1 memory"), ("B2", "B2 memory")]
