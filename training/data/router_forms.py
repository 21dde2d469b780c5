"""Training-only question forms that draw the factual / multi_hop line by what is asked, not by length.

The two labels are defined by the shape of the request (see ``router_templates``):

- **factual** asks for one fact about the question's own subject, however long the question is and however
  many names it carries: datasets, hardware, baselines or sibling models that only locate the fact
  ("on D1 and D2, with H, what does M reach?"), a "how is X done in M" frame, or a second clause that asks
  about the same fact ("…, and under which setting?").
- **multi_hop** asks for a chain: find X, then use it to find Y; or how A leads to B through something a
  second paper supplied. The thing finally asked about is reached through a relation.

These forms were written from scratch from those definitions (never from an evaluation question); they
join the training templates only, so the held-out split stays the yardstick it was.
``tests/training/test_router_data_disjoint.py`` checks them with the other templates.
"""

from __future__ import annotations

FACTUAL_EN = [
    "On {ds} and {ds2}, trained on {hw} with {amount}, what {metric} does {m} reach?",
    "How many {count} does {m} use in its {setting} runs on {ds}?",
    "How is {comp} configured in {m} when it is trained on {ds}?",
    "How is {comp} used inside {m} during pre-training?",
    "How much {metric} does {m} lose on {ds} once {comp} is taken out?",
    "How long does {m} train on {hw} before it is scored on {ds} and {ds2}?",
    "In the {m} paper, which table holds the {metric} on {ds}, and which entry there is highest?",
    "What {prop} did {authors} pick for {m}, and is it kept for the {size} variant?",
    "Which {ds_kind} does {m} train on, and which does it hold out for testing?",
    "{m} is run next to {m2} and {m3} on {ds}; what {metric} does {m} itself get?",
    "When {m} runs on {hw}, how much memory does it take, and at which batch size?",
    "How does {m} encode its inputs before they reach {comp}?",
    "What does {m} do with {comp} in the {setting} setting on {ds}?",
    "How many {count} are in {ds}, the benchmark used by {paper}?",
    "Starting from a {m2} checkpoint and using {ds} as data, which {prop} does {m} settle on?",
    "What {metric} on {ds} does the {size} {m} post in {paper}, and under which {prop}?",
    "According to {authors}, how is {m} evaluated on {ds} and {ds2}?",
    "Which section of {paper} gives the {prop} of {m}, and what value is stated there?",
    "After training with {amount} on {hw}, what does {m} score on {ds}?",
    "How is the {prop} of {m} set for {ds}, and does it change for {ds2}?",
    "How does {m} do on {ds} in terms of {metric}?",
    "How are the {count} behind {m} gathered, and how many are there in total?",
    "Which {comp} does {m} place right after {comp2}?",
    "{org} trained {m} on {ds} with {hw}: what {metric} did that run end at?",
    "For {task}, how does {m} turn {comp} outputs into its final prediction?",
    "In {m}, how is {comp} combined with {comp2}, and at which layer?",
    "What {metric} does {m} report on {ds} when {m2} and {m3} serve only as reference rows?",
    "Under {setting} conditions on {ds} and {ds2}, which {prop} does {m} report?",
]

FACTUAL_ZH = [
    "{m} 在 {hw_zh} 上训练了多久？之后在 {ds} 上的 {metric} 是多少？",
    "{m} 的{comp}是怎么配置的？",
    "论文里 {m} 与 {m2}、{m3} 一起在 {ds} 上评测，{m} 本身的 {metric} 是多少？",
    "去掉{comp}以后，{m} 在 {ds} 上的 {metric} 下降了多少？",
    "{m} 在{task}中是如何使用{comp}的？",
    "{authors}的 {m} 用了哪些{count}，规模有多大？",
    "{m} 用{amount}训练时，在 {ds} 上能拿到多少 {metric}？",
    "{m} 论文的哪张表给出了 {ds} 上的结果？其中最好的数字是多少？",
    "以 {m2} 的权重初始化、在 {ds} 上训练的 {m}，{prop}设成了多少？",
    "{m} 在 {ds} 和 {ds2} 上测试时，用的{prop}一样吗？是多少？",
    "{org} 用 {hw_zh} 训练的 {m}，最后在 {ds} 上的 {metric} 是多少？",
    "{m} 在输入进入{comp}之前做了什么处理？",
]

MULTI_HOP_EN = [
    "First, which {comp} does {a} take from {b}; second, how does that part help {a} {goal}?",
    "Which paper does {a} cite for its {comp}, and which {prop} was chosen there?",
    "Go from {a} to the model it was fine-tuned from, then tell me what data that model saw.",
    "Because {a} reuses {comp} from {b}, what {metric} had {b} reported on {ds} before the reuse?",
    "How does the {comp} of {b} lead to {a} being able to {goal}?",
    "What links {b} to {a}: what did {b} introduce, and what did {a} do with it?",
    "Find the teacher behind {a}, then find who trained that teacher.",
    "Which baseline does {a} beat on {ds}, and which {prop} does that baseline use?",
    "Once you know which model {a} extends, give me that model's {metric} on {ds}.",
    "What does {a} borrow from {b}, and how does the borrowed part lead to better {metric} on {ds}?",
    "Pin down the encoder {a} starts from, then report how many {count} that encoder was trained on.",
    "How did a result reported for {b} lead the {a} authors to change {comp}?",
]

MULTI_HOP_ZH = [
    "先查 {a} 的{comp}来自哪篇论文，再告诉我那篇论文用的{prop}",
    "{b} 的{comp}是怎样一步步带来 {a} 在 {ds} 上的提升的？",
    "{a} 是从哪个模型微调来的？那个模型又是用什么数据训练的？",
    "{a} 在 {ds} 上击败的基线是哪个？那个基线的{prop}是多少？",
    "顺着 {a} 找到它扩展的模型，再说说那个模型在 {ds} 上的 {metric}",
    "{a} 从 {b} 借来的部分，是如何让它能够{goal}的？",
    "找出 {a} 的教师模型，再查一下是谁训练了这个教师模型",
]

FORMS = {("factual", "en"): FACTUAL_EN, ("factual", "zh"): FACTUAL_ZH,
         ("multi_hop", "en"): MULTI_HOP_EN, ("multi_hop", "zh"): MULTI_HOP_ZH}
