"""Question templates for the five router intents, in English and Chinese.

Placeholders: ``{e}`` an entity, ``{a}``/``{b}`` a related pair, ``{attr}`` an attribute, ``{dim}``/
``{dim2}`` comparison dimensions, ``{goal}`` a goal, ``{topic}`` a research area. Each (label,
language) has training templates and held-out templates; held-out ones never reach training, so the
held-out split measures generalisation to unseen phrasings, not memorisation.
"""

from __future__ import annotations

Templates = dict[str, dict[str, tuple[list[str], list[str]]]]

TEMPLATES: Templates = {
    "factual": {
        "en": ([
            "What {attr} does {e} use by default?",
            "What is the {attr} of {e}?",
            "Which {attr} did the {e} paper report?",
            "Who proposed {e}?",
            "When was {e} published?",
            "What does {e} stand for?",
            "Which paper introduced {e}?",
            "What {attr} is recommended for {e}?",
            "Define {e} in one sentence.",
            "What is {e}?",
            "What value of {attr} did the authors of {e} choose?",
            "Tell me the {attr} used in {e}.",
            "How many layers does {e} have?",
            "Which benchmark did {e} report results on?",
            "Is {e} open source?",
            "Where was {e} published?",
        ], [
            "In the {e} paper, what was the {attr}?",
            "What {attr} was used to train {e}?",
            "Which venue published {e}?",
            "Give me the {attr} that {e} reports.",
        ]),
        "zh": ([
            "{e} 默认使用的{attr}是多少？",
            "{e} 的{attr}是什么？",
            "{e} 是谁提出的？",
            "{e} 是哪一年发表的？",
            "{e} 论文里报告的{attr}是多少？",
            "什么是 {e}？",
            "{e} 这个名字是什么意思？",
            "哪篇论文提出了 {e}？",
            "{e} 用的{attr}是什么？",
            "{e} 有多少层？",
            "告诉我 {e} 的{attr}",
            "{e} 开源了吗？",
        ], [
            "{e} 论文中使用了什么{attr}？",
            "请告诉我 {e} 的{attr}。",
            "{e} 发表在哪个会议上？",
        ]),
    },
    "comparative": {
        "en": ([
            "Compare {a} and {b} in {dim} and {dim2}",
            "What are the differences between {a} and {b}?",
            "How does {a} differ from {b} in terms of {dim}?",
            "{a} vs {b}: which is better for {dim}?",
            "Which has lower {dim}, {a} or {b}?",
            "Contrast {a} with {b} on {dim}.",
            "What are the pros and cons of {a} versus {b}?",
            "Is {a} or {b} more efficient in {dim}?",
            "Give a side-by-side comparison of {a} and {b}.",
            "How do {a} and {b} compare on {dim}?",
            "Which is cheaper to train, {a} or {b}?",
            "Should I use {a} or {b} if I care about {dim}?",
            "{a} versus {b} on {dim} and {dim2}?",
        ], [
            "Weigh {a} against {b} with respect to {dim} and {dim2}.",
            "Between {a} and {b}, which wins on {dim}?",
            "Where do {a} and {b} disagree in {dim}?",
            "Put {a} and {b} head to head on {dim}.",
        ]),
        "zh": ([
            "对比 {a} 和 {b} 在{dim}和{dim2}上的差异",
            "{a} 和 {b} 有什么区别？",
            "{a} 与 {b} 哪个{dim}更好？",
            "比较一下 {a} 和 {b} 的{dim}",
            "{a} 相比 {b} 在{dim}方面有哪些优缺点？",
            "{a} 和 {b} 在{dim}上谁更有优势？",
            "{a} 与 {b} 的{dim}对比",
            "选 {a} 还是 {b}？我更关心{dim}",
            "{a} 和 {b} 哪个更适合{dim}要求高的场景？",
        ], [
            "请从{dim}和{dim2}两个角度比较 {a} 与 {b}",
            "{a} 跟 {b} 的{dim}差别大吗？",
            "{a} 还是 {b}，哪个{dim}更低？",
        ]),
    },
    "multi_hop": {
        "en": ([
            "How does {a} build on {b} to {goal}?",
            "What technique from {b} made {a} possible, and how did it help {goal}?",
            "Why does {a}'s use of ideas from {b} help {goal}?",
            "Which method does {a} extend, and what problem did that method originally solve?",
            "How did the findings of {b} influence the design of {a}?",
            "What is the {attr} of the model that {a} was built on?",
            "How does {a} combine {b} with other components to {goal}?",
            "Which component of {b} does {a} reuse, and what effect does it have on {dim}?",
            "Explain step by step how {a} uses {b} to {goal}.",
            "What idea did {a} take from {b}, and how does it let it {goal}?",
            "Since {a} is based on {b}, how does that affect its {dim}?",
            "Which paper does {a} cite for its use of {b}, and what did that paper find?",
        ], [
            "Starting from {b}, what changes did {a} introduce to {goal}?",
            "What did {a} inherit from {b}, and why does that matter for {dim}?",
            "Through which mechanism does {a} rely on {b} to {goal}?",
        ]),
        "zh": ([
            "{a} 是如何借助 {b} 实现{goal}的？",
            "{a} 继承了 {b} 的哪项设计，它对{dim}有什么影响？",
            "{a} 扩展了哪种方法？那种方法最初解决了什么问题？",
            "{b} 的研究结论如何影响了 {a} 的设计？",
            "{a} 基于的模型的{attr}是多少？",
            "请一步步解释 {a} 怎样利用 {b} 来{goal}",
            "{a} 借鉴了 {b} 的什么思想，从而能够{goal}？",
            "既然 {a} 建立在 {b} 之上，这对它的{dim}有什么影响？",
            "{a} 为了{goal}对 {b} 做了哪些改进？",
        ], [
            "从 {b} 出发，{a} 做了哪些改动来{goal}？",
            "{a} 依赖 {b} 的什么机制来{goal}？",
            "{a} 从 {b} 那里借鉴了什么，为什么这对{dim}很重要？",
        ]),
    },
    "exploratory": {
        "en": ([
            "Trace how {topic} evolved from {a} to {b}",
            "What are the main approaches to {topic}?",
            "Give me an overview of {topic}.",
            "Survey the landscape of {topic}.",
            "What are the open problems in {topic}?",
            "How has {topic} developed over the past few years?",
            "What are the research trends in {topic}?",
            "Walk me through the history of {topic}.",
            "Map out the key ideas in {topic}.",
            "What has been tried in {topic} so far?",
            "Give me a broad picture of {topic} research.",
            "Which families of methods exist in {topic}, and where is the field going?",
        ], [
            "I'm new to {topic}; what should I know about the field?",
            "Summarize the lines of work in {topic} and how they relate.",
            "What directions is {topic} heading in?",
            "Chart the progression of {topic} from early work to today.",
        ]),
        "zh": ([
            "梳理一下{topic}的发展脉络",
            "{topic}领域有哪些主要方法？",
            "从 {a} 到 {b}，{topic}是如何演进的？",
            "介绍一下{topic}的研究现状",
            "{topic}还有哪些开放问题？",
            "近几年{topic}有哪些研究趋势？",
            "全面介绍一下{topic}这个方向",
            "{topic}目前有哪些流派？未来趋势如何？",
            "帮我整体了解一下{topic}的研究进展",
        ], [
            "我刚接触{topic}，这个方向整体是什么样的？",
            "总结{topic}的几条研究路线及其联系",
            "{topic}未来会往哪些方向发展？",
        ]),
    },
    "follow_up": {
        "en": ([
            "And how much memory does it save?",
            "What about its {dim}?",
            "Can you elaborate on that?",
            "Why is that?",
            "Could you give an example?",
            "And what about {e}?",
            "Does that also apply to {e}?",
            "How does that compare with what you said before?",
            "What did they use for the {attr} then?",
            "Can you explain the second point in more detail?",
            "Is that still true for larger models?",
            "Which of those is better for {dim}?",
            "So what's the catch?",
            "Where in the paper is that stated?",
            "And for smaller models?",
            "Could you clarify what you meant?",
        ], [
            "Interesting. How was that measured?",
            "And the {attr}?",
            "Say more about the last part.",
            "Does the same hold for {e}?",
            "Why did they choose that instead?",
        ]),
        "zh": ([
            "那显存呢？",
            "能再详细说说吗？",
            "为什么会这样？",
            "它的{dim}怎么样？",
            "那 {e} 呢？",
            "能举个例子吗？",
            "这个结论对 {e} 也成立吗？",
            "那{attr}是多少？",
            "你刚才说的第二点是什么意思？",
            "这个在论文哪里提到的？",
            "那训练成本呢？",
            "你能解释一下原因吗？",
        ], [
            "那它的{attr}呢？",
            "为什么他们这样选择？",
            "这对更大的模型也适用吗？",
            "再展开讲讲最后那部分",
        ]),
    },
}

# Paraphrase patterns wrapped around a filled template.
PREFIXES_EN = ["", "", "", "Quick question: ", "I was wondering: ", "Please tell me: ", "Hey, ", "Hmm, "]
SUFFIXES_EN = ["", "", "", " Thanks!", " Please cite sources.", " Keep it short.", " (from the paper)"]
PREFIXES_ZH = ["", "", "", "请问", "想知道", "帮我看看：", "麻烦问一下，"]
SUFFIXES_ZH = ["", "", "", "谢谢！", "请给出出处。", "简单说说就行。"]
