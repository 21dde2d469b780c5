"""Router training questions in the style of a reader of full papers, for the training split only.

The base templates (:mod:`training.data.router_templates`) ask about models by name. A researcher
reading whole papers asks about a paper's tables, figures, captions, sections, appendix, setup and
numbers, names a system together with its baselines and data in one clause, refers to papers by
title, topic or authors, and often asks two things about the same fact. What separates the labels
is unchanged and stated by the kind of ask, never by any evaluation item:

- ``factual``: one paper. However many systems, baselines, datasets or numbers it names, they all
  come from that paper (its table, its figure, its setup).
- ``comparative``: two papers (or their systems) side by side, the same ask for each.
- ``multi_hop``: a chain across papers: find something in one paper (a dataset, a baseline, a
  borrowed component), then answer from the other paper about it.
- ``exploratory``: the collection as a whole, by the parts of papers (setups, tables, evaluations).
- ``follow_up``: a short ask that leans on the previous turn ("and in the appendix?").

Every paper, system, topic and title is invented here or drawn from :mod:`training.data.vocab`
(its training pools); nothing is taken from evaluation text. :func:`generate` is seeded and has its
own random stream, so adding it leaves the base templates' draws unchanged.
"""

from __future__ import annotations

import random

from training.data import vocab as V

SYLLABLES = ("tra", "vin", "kor", "bel", "nad", "rix", "sol", "mer", "quo", "dal", "fen", "gru", "lem", "pax",
             "tor", "zen", "bri", "cal", "hev", "mon", "sav", "ulo", "wex", "yar")
TOPICS = ["entity linking", "query expansion", "dependency parsing", "duplicate record detection",
          "learning to rank", "coreference resolution", "semantic role labeling", "web table extraction",
          "citation recommendation", "keyphrase extraction", "sentiment classification", "topic modelling",
          "word alignment", "part-of-speech tagging", "spam filtering", "document clustering",
          "collaborative filtering", "schema matching", "query optimization", "crowdsourced labeling",
          "active learning", "text simplification", "spelling correction", "image captioning"]
TOPICS_ZH = ["实体链接", "查询扩展", "依存句法分析", "重复记录检测", "排序学习", "指代消解", "网页表格抽取", "引文推荐",
             "关键词抽取", "情感分类", "主题模型", "词对齐", "垃圾邮件过滤", "文档聚类", "协同过滤", "模式匹配",
             "查询优化", "众包标注", "主动学习", "图像描述生成"]
METRICS = V.R_METRICS + ["precision", "recall", "AUC", "latency",
                         "accuracy", "mean reciprocal rank", "throughput", "Kendall's tau"]
HYPERS = ["the number of training iterations", "the beam width", "the feature set", "the confidence threshold",
          "the size of the test set", "the number of annotators", "the inter-annotator agreement",
          "the hardware used", "the random seed policy", "the smoothing constant", "the vocabulary cutoff",
          "the train/test split", "the number of folds", "the window size", "the regularization weight"]
HYPERS_ZH = ["训练轮数", "束搜索宽度", "特征集合", "置信度阈值", "测试集规模", "标注人数", "标注一致性", "硬件配置",
             "平滑系数", "词表截断", "训练/测试划分", "交叉验证折数", "窗口大小", "正则化系数"]
UNITS = ["sentences", "documents", "queries", "annotated pairs", "machines", "hours of compute", "web pages",
         "labelled relations", "users", "test questions", "tables", "features"]
UNITS_ZH = ["句子", "文档", "查询", "标注对", "台机器", "网页", "标注关系", "用户", "测试问题", "特征"]
PROCS = ["label the test data", "tune the parameters", "build the index", "train the classifier",
         "select the features", "clean the raw crawl", "sample the evaluation set", "resolve disagreements"]
ATTRS = ["evaluation data", "main metric", "annotation scheme", "feature set", "training corpus size",
         "error analysis", "baseline systems", "hardware", "test-set size", "definition of a correct output"]
ATTRS_ZH = ["评测数据", "主要指标", "标注方案", "特征集合", "训练语料规模", "错误分析", "基线系统", "硬件", "测试集规模"]
LOCS = ["Table {n}", "Figure {n}", "Section {n}", "the appendix", "the experimental setup", "the error analysis",
        "the ablation table", "the caption of Figure {n}", "a footnote", "the results section"]
LOCS_ZH = ["表{n}", "图{n}", "第{n}节", "附录", "实验设置部分", "错误分析部分", "消融实验表", "图{n}的说明文字", "脚注"]

TEMPLATES: dict[str, dict[str, list[str]]] = {
    "factual": {"en": [
        "In {loc} of {P}, what {M} does {S} reach on {D}?",
        "In Table {n} of {P}, how much does {S} gain over {B} and {B2} in {M}?",
        "{P} reports {M} for {S}, {B} and {B2} in Table {n}; what is the number for {S}?",
        "What does Figure {n} in {P} plot, and what happens to {S}'s {M} as the {U} grow?",
        "Going by the caption of Figure {n}, which curve belongs to {S} in {P}?",
        "Which baselines does {P} run against {S} on {D}, and which one comes closest?",
        "How many {U} did the authors of {P} use to {proc}?",
        "In the experimental setup of {P}, what is {H}, and why was it chosen?",
        "What does {P} give as {H} for its experiments on {D}?",
        "Which row of Table {n} in {P} has the best {M}, and by what margin over {B}?",
        "In {P}, what {M} does {S} get on {D} when {H} is changed, per the ablation?",
        "What do the authors of {P} say causes most of {S}'s errors in the error analysis?",
        "How was {D} split into training and test data in {P}, and how many {U} are in the test part?",
        "Section {n} of {P} describes how they {proc}: what exactly did they do?",
        "What is {S}, as defined in Section {n} of {P}, and what input does it take?",
        "According to {P}, does {S} beat {B} on {D} at every {H}, or only some?",
        "What {M} do {S} and the {B} baseline reach in {P}'s main results table?",
        "The appendix of {P} lists extra results for {S}; what {M} appears there for {D}?",
        "Which {U} did {P} drop before training {S}, and how many were left?",
        "What are {S}'s precision and recall on {D} in {P}, and at what threshold?",
        "In {P}, how long does {S} take to process {D} compared with {B}?",
        "What does the footnote in Section {n} of {P} clarify about {D}?",
        "Who annotated {D} for {P}, and how was agreement measured?",
        "How does {S} in {P} handle {U} that {B} cannot, according to the authors?",
        "{P}: what is the headline {M} of {S}, and on how many {U} was it measured?",
        "For the experiments in {P}, which {thing} and which {M} were used, and why those?",
        "In {P}'s comparison of {S} with {B}, {B2} and {B3}, what is {S}'s {M} on {D}?",
        "What are the two variants of {S} tested in {P}, and which scores higher on {D}?",
        "Does {P} release {D} and the code for {S}, and under what terms?",
        "Which features does {S} use in {P}, and which one matters most in the ablation?",
        "What is the reported {M} of {S} on {D} in {P}, with and without {H}?",
        "When {P} scales {S} up to more {U}, what happens to {M}?",
        "What limitation of {S} do the authors of {P} state in their conclusion?",
        "Table {n} of {P}: what is in its last column?",
        "In {P}, which {thing} underlies the {M} numbers for {S}, {B} and {B2}?",
    ], "zh": [
        "{P}的{loc}里，{S} 在 {D} 上的 {M} 是多少？",
        "{P}表{n}中，{S} 比 {B} 和 {B2} 高出多少 {M}？",
        "{P}图{n}画的是什么？{S} 的曲线怎么变化？",
        "{P}的实验设置里，{H}是多少？为什么这么设？",
        "训练 {S} 时，{P}一共动用了多少{U}？",
        "表{n}里最好的结果是哪一行？",
        "{P}附录中 {S} 在 {D} 上的结果是多少？",
        "{P}的错误分析说 {S} 主要错在哪里？",
        "{P}里 {D} 是怎么划分训练集和测试集的？测试集有多少{U}？",
        "{P}把 {S} 和 {B}、{B2} 放在表{n}里比较，{S} 的 {M} 是多少？",
        "{P}第{n}节是怎么定义 {S} 的？",
        "{P}里 {S} 去掉{H}之后，{M} 下降了多少？",
        "图{n}的说明文字说了什么？",
        "{P}的 {D} 是谁标注的？一致性怎么样？",
        "{P}中 {S} 在 {D} 上的准确率和召回率分别是多少？",
    ]},
    "comparative": {"en": [
        "How does the {A} in {P} differ from the one in {P2}?",
        "{P} and {P2} both report {M}; which paper's system scores higher, and on what data?",
        "What {A} does each of {P} and {P2} use?",
        "Set {S} from {P} beside {S2} from {P2}: how do their {A} and {M} compare?",
        "What does {P} report as its best {M}, and what does {P2} report for its own system?",
        "Which of the two papers, {P} or {P2}, evaluates on more {U}?",
        "Do {P} and {P2} define a correct output the same way? Give each one's definition.",
        "In their main tables, how do {S} and {S2} differ in {M}?",
        "Between {P} and {P2}, whose error analysis finds more errors from {U}, and what are they?",
        "{S} ({P}) and {S2} ({P2}) both address {topic}; what is the key difference in how they do it?",
        "For {P} and for {P2}, list the {A}, one line per paper.",
        "How do the experimental setups of {P} and {P2} differ in {H}?",
        "Which paper relies more on hand-built features, {P} or {P2}, and how can you tell from their tables?",
        "What are the strengths of {S} compared with {S2}, as each paper reports them?",
        "{P} uses {D} and {P2} uses {D2}; how do the two evaluation sets differ in size and kind?",
        "Are the {M} figures in {P} and {P2} measured the same way?",
        "How does each paper, {P} and {P2}, choose {H}?",
        "What do {P} and {P2} each say is the main limitation of their system?",
    ], "zh": [
        "{P}和{P2}的{A}有什么不同？",
        "{P}和{P2}各自用了什么{A}？",
        "{S} 和 {S2} 在各自论文的主表里，{M} 谁更高？",
        "{P}和{P2}的实验设置在{H}上有什么区别？",
        "{P}与{P2}对正确输出的定义一样吗？请分别说明",
        "{P}和{P2}分别在多少{U}上做了评测？",
        "同样做{topic}，{S} 和 {S2} 的方法差在哪里？",
        "{P}和{P2}各自认为自己系统的主要局限是什么？",
        "比较{P}和{P2}的错误分析结论",
        "{P}用 {D}，{P2}用 {D2}，两个评测集在规模上差多少？",
    ]},
    "multi_hop": {"en": [
        "{P} evaluates on a dataset introduced by another paper in the collection; how large is it according to that paper?",
        "Find the baseline {P} compares against in Table {n}, then tell me what the paper that proposed it reports on {D}.",
        "{S} in {P} borrows its {C} from {P2}; how was that {C} trained in {P2}, and what does {P} change?",
        "The corpus behind {S}'s training in {P} comes from {P2}; how did {P2} collect it?",
        "Which paper does {P} cite for its {M} definition, and how does that paper compute it?",
        "{P} builds its system on top of {S2}; what {M} did {S2} itself reach in {P2}, and how much does {P} add?",
        "First find which {U} {P2} releases, then say how {P} uses them to {proc}.",
        "{P} says it fixes a weakness of {S2}; what was that weakness according to {P2}, and how does {P} address it?",
        "Take the best system in Table {n} of {P2}; how does {P} use it, and with what result?",
        "Starting from the error analysis of {P2}, which of those errors does {S} in {P} target, and how well does it do?",
        "The threshold {P} uses for {S} is taken from another paper; what value did that paper choose, and why?",
        "{P2} introduces {D}; which systems in {P} are then tested on it, and what {M} do they get?",
        "How does the output of {S2} from {P2} feed into {S} in {P}, and what does {S} do with it?",
        "{P} reuses the annotation guidelines of {P2}; who annotated the data there, and how many {U} were labelled?",
        "Which earlier system in the collection does {S} extend, and what did that system's paper report on {D}?",
        "Trace the {C} of {S} back to the paper that first proposed it, and give its {M} there.",
        "{S} is trained on the output of {S2}; what {M} does {S2} reach in its own paper, and how does that bound {S}?",
        "The metric {P} optimizes was designed in {P2}; what does {P2} say it measures, and how does {P} use it?",
        "Which baseline from {P2} is re-run in {P}, and does {P} get the same {M} that {P2} reported?",
        "Because {P} depends on the parser from {P2}, how do that parser's errors show up in {P}'s error analysis?",
    ], "zh": [
        "{P}用的数据集出自另一篇论文，那篇论文里这个数据集有多大？",
        "先找出{P}表{n}里的基线，再说说提出它的论文在 {D} 上报告了什么结果",
        "{S} 的{C}借自{P2}，{P2}里它是怎么训练的？{P}又改了什么？",
        "{P}是在 {S2} 的基础上做的，{S2} 在原论文里的 {M} 是多少？{P}提升了多少？",
        "{P}的评价指标来自哪篇论文？那篇论文是怎么计算它的？",
        "{P2}提出了 {D}，{P}里哪些系统在它上面测试过？结果如何？",
        "{P}说它解决了 {S2} 的一个缺陷，{P2}里这个缺陷是怎么描述的？",
        "顺着 {S} 的{C}找到最早提出它的论文，它在那篇论文里的 {M} 是多少？",
        "{S2} 的输出被 {S} 拿来用，{S2} 在自己论文里的效果如何？这对 {S} 有什么影响？",
        "{P}沿用了{P2}的标注规范，{P2}里标注了多少{U}？",
    ]},
    "exploratory": {"en": [
        "Across the papers in my collection, how are {topic} systems usually evaluated, and which metrics recur in their tables?",
        "What kinds of experimental setups appear across these papers, and how do their test sets differ?",
        "Which error types come up again and again in the error analyses of the indexed papers?",
        "How do the papers here report {M}, and which of them explain how they computed it?",
        "Survey the datasets that the indexed papers build or release.",
        "What do the appendices across my library typically contain?",
        "How has the evaluation of {topic} changed across the papers I have indexed?",
        "Which baselines keep reappearing across the tables of these papers?",
    ], "zh": [
        "这些论文一般怎么评测{topic}系统？表格里常见哪些指标？",
        "库里论文的实验设置大致有哪几类？",
        "这些论文的错误分析里反复出现哪些错误类型？",
        "帮我梳理一下这批论文发布的数据集",
        "库里关于{topic}的论文，评测方式是怎么演变的？",
        "这些论文的表格里反复出现哪些基线？",
    ]},
    "follow_up": {"en": [
        "And in Table {n}?",
        "What does the figure after that one show?",
        "Which section says so?",
        "How large was that test set, according to the appendix?",
        "Is that number from the ablation or the main table?",
        "What about the caption — does it say more?",
        "And the same measure for the baseline?",
        "Where in the paper is that described?",
        "Did they report it with and without that feature?",
        "How many annotators were involved in that?",
    ], "zh": [
        "那表{n}呢？",
        "这个数字出自哪一节？",
        "图下面的说明怎么说的？",
        "附录里还有别的结果吗？",
        "那基线的结果呢？",
        "这是消融实验还是主实验的数字？",
        "论文哪一部分写了这个？",
    ]},
}
# per label: how many rows to add to the training split
COUNTS = {"factual": 450, "comparative": 250, "multi_hop": 300, "exploratory": 100, "follow_up": 100}
ZH_RATE = 0.3
COMPONENTS = ["parser", "tokenizer", "feature extractor", "candidate generator", "scoring function",
              "lexicon", "entity tagger", "similarity measure", "ranking model", "pre-processing pipeline"]
COMPONENTS_ZH = ["句法分析器", "分词器", "特征抽取器", "候选生成器", "打分函数", "词典", "实体标注器", "相似度度量"]


def _name(rng: random.Random) -> str:
    """An invented system name ("Travin", "KORBEL")."""
    word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3))))
    return word.upper() if rng.random() < 0.4 else word.capitalize()


def _paper(rng: random.Random, system: str, topic: str, lang: str) -> str:
    """A reference to one invented paper by title, topic, authors or its system."""
    surname = rng.choice(V.R_SURNAMES_TRAIN)
    year = rng.randint(2003, 2024)
    lead, source = rng.choice(V.R_TITLE_LEADS_TRAIN), rng.choice(["Noisy Labels", "the Web", "Weak Supervision",
                                                                   "Few Examples"])
    kind = rng.choice(["Simple", "Scalable", "Probabilistic", "Joint"])
    lead2, core = rng.choice(V.R_TITLE_LEADS_TRAIN), rng.choice(V.R_TITLE_CORES_TRAIN)
    name = topic.title()
    title = rng.choice([f"{system}: {lead} {name}", f"Learning {name} from {source}", f"A {kind} Approach to {name}",
                        f"{lead2} {core} for {name}"])
    if lang == "zh":
        return rng.choice([f"《{title}》", f"{system} 这篇工作", f"关于{rng.choice(TOPICS_ZH)}的那篇论文",
                           f"{surname} 等人的论文"])
    return rng.choice([f"the paper '{title}'", f"'{title}'", f"the {topic} paper", f"the paper on {topic}",
                       f"{surname} et al.'s paper", f"the {system} paper", f"{surname} et al. ({year})",
                       f"the paper introducing {system}"])


def _slots(rng: random.Random, lang: str) -> dict[str, str]:
    zh = lang == "zh"
    s, s2 = _name(rng), _name(rng)
    while s2 == s:
        s2 = _name(rng)
    t, t2 = rng.sample(TOPICS, 2)
    n = str(rng.randint(1, 9))
    loc = rng.choice(LOCS_ZH if zh else LOCS).format(n=n)
    b, b2, b3 = rng.sample(V.R_MODELS_TRAIN + [_name(rng) for _ in range(6)], 3)
    d, d2 = rng.sample(V.R_DATASETS_TRAIN, 2)
    return {"S": s, "S2": s2, "P": _paper(rng, s, t, lang), "P2": _paper(rng, s2, t2, lang), "B": b, "B2": b2,
            "B3": b3, "D": d, "D2": d2, "M": rng.choice(METRICS), "n": n, "loc": loc,
            "H": rng.choice(HYPERS_ZH if zh else HYPERS), "U": rng.choice(UNITS_ZH if zh else UNITS),
            "proc": rng.choice(PROCS), "A": rng.choice(ATTRS_ZH if zh else ATTRS),
            "C": rng.choice(COMPONENTS_ZH if zh else COMPONENTS),
            "topic": rng.choice(TOPICS_ZH) if zh else t, "thing": rng.choice(["corpus", "test set", "benchmark"])}


def templates() -> list[str]:
    """Every template of this module (the disjointness test checks them against the dev questions)."""
    return [t for langs in TEMPLATES.values() for forms in langs.values() for t in forms]


HISTORY_RATE = 0.3  # non-follow-up rows with a (decoy) earlier exchange, as in the base data


def _previous_turn(rng: random.Random, lang: str) -> list[dict]:
    """An earlier exchange about one invented paper: a factual question and a short cited answer."""
    slots = _slots(rng, lang)
    question = rng.choice(TEMPLATES["factual"][lang]).format(**slots)
    value = f"{rng.randint(40, 95)}.{rng.randint(0, 9)}"
    answer = (f"{slots['S']} 在 {slots['D']} 上的 {slots['M']} 为 {value}（{slots['loc']}）[1]。" if lang == "zh"
              else f"{slots['S']} reaches {value} {slots['M']} on {slots['D']} ({slots['loc']}) [1].")
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


def generate(rng: random.Random) -> list[dict]:
    """Rows for the training split: ``COUNTS`` per label, about ``ZH_RATE`` in Chinese, deduplicated.

    Every follow-up carries an earlier exchange; about ``HISTORY_RATE`` of the others carry one too.
    """
    rows: list[dict] = []
    seen: set[str] = set()
    for label, target in COUNTS.items():
        got, tries = 0, 0
        while got < target and tries < target * 50:
            tries += 1
            lang = "zh" if rng.random() < ZH_RATE else "en"
            question = rng.choice(TEMPLATES[label][lang]).format(**_slots(rng, lang))
            question = question[0].upper() + question[1:]  # "the … paper" opening a question
            key = " ".join(question.lower().split())
            if key in seen:
                continue
            seen.add(key)
            with_history = label == "follow_up" or rng.random() < HISTORY_RATE
            history = _previous_turn(rng, lang) if with_history else []
            rows.append({"question": question, "history": history, "label": label, "lang": lang})
            got += 1
    return rows
