"""Synthetic classes of free-text answers for the self_attention quiz (tq1_explain, tq5_explain).

    python synth.py N [SEED] [--set dev|holdout|all] > class.json

make_class(n, seed, question, templates="dev") -> list of {student, text, kind, language}
  * six kinds of answer per question (see KINDS), each with many paraphrases made
    combinatorially: clause templates x slot synonyms x clause order x connectors x
    openers x optional extra sentences (with the student's own numbers) x typos
    x punctuation / spacing / case noise;
  * half of the students write in Chinese (many of them code-mixed, as Chinese
    students write: "Q 和 K 决定 attention weights");
  * exact copies: about 7% of the students hand in a friend's text verbatim
    (same language), some in chains of 2-4;
  * lengths from 3 words to 4-5 sentences.
The "holdout" template set (new phrasings, new vocabulary: "matching", "blended",
"fragments", 匹配, 碎片 ...) is never used while tuning the grouping method and
its synonym map is written from the dev set only: it checks that the method is
not tuned to the phrasings it was developed on.
"""
from __future__ import annotations

import json
import random
import re
import sys

KINDS = {
    "tq1_explain": ["correct", "swapped", "same", "half", "offtopic", "empty"],
    "tq5_explain": ["correct", "linear", "half", "lang_wrong", "offtopic", "empty"],
}
SHARE = {   # how often each kind occurs in a class
    "tq1_explain": [0.34, 0.13, 0.08, 0.18, 0.12, 0.15],
    "tq5_explain": [0.30, 0.12, 0.21, 0.11, 0.11, 0.15],
}
STUB = {"en": "YOUR ANSWER HERE", "zh": "在这里写你的回答"}

# ----------------------------------------------------------------------------- slots
# A slot is {name}; values may contain slots themselves.
SLOTS = {
    "en": {
        "QK": ["Q and K", "the queries and keys", "the query and key vectors", "Q, K", "q and k",
               "W_q and W_k", "the queries and the keys", "Q and K together", "queries and keys"],
        "decide": ["decide", "determine", "control", "set", "are what decides", "are responsible for"],
        "decides": ["decides", "determines", "controls", "sets", "is responsible for"],
        "weights": ["the attention weights", "the weights", "how much each token attends to every other token",
                    "who attends to whom", "how much each position listens to the others", "the softmax weights",
                    "the attention pattern", "how strongly tokens attend to each other", "the weight matrix"],
        "V": ["V", "the values", "the value matrix", "W_v", "the value vectors", "V (the values)"],
        "content": ["what gets mixed", "the content that is mixed together", "what information is passed on",
                    "the output vectors", "the actual content of the output", "what each token contributes",
                    "what is being averaged", "the information that ends up in the output"],
        "scores": ["the scores", "the dot products", "q·k", "the similarity scores", "QK^T"],
    },
    "zh": {
        "QK": ["Q 和 K", "Q、K", "查询和键", "Query 和 Key", "q 和 k", "Wq 和 Wk", "查询向量和键向量", "QK", "Q跟K"],
        "decide": ["决定", "决定了", "负责", "控制", "管的是"],
        "weights": ["注意力权重", "权重", "每个位置关注别人的程度", "谁关注谁、关注多少", "softmax 之后的权重",
                    "注意力分布", "每个词该看谁", "attention weights", "权重矩阵"],
        "V": ["V", "值", "值矩阵", "Wv", "Value", "值向量", "V 矩阵"],
        "content": ["混合进来的内容", "输出的内容", "拿走的信息是什么", "输出向量本身", "被加权求和的东西",
                    "每个词贡献出去的信息", "最后输出里装的是什么", "混合的是什么"],
        "scores": ["分数", "点积", "q·k", "相似度分数", "QKᵀ"],
    },
}
SLOTS5 = {
    "en": {
        "square": ["grows with the square of the length", "grows quadratically", "is O(n²)", "scales with n²",
                   "grows as n squared", "is quadratic in the number of tokens"],
        "table": ["the score table", "the attention matrix", "the n × n table", "the score matrix", "QK^T"],
        "cost": ["the cost", "the compute and memory", "the memory and time", "the work", "the computation"],
        "long": ["long documents", "long texts", "long contexts", "very long inputs", "long sequences"],
        "expensive": ["get very expensive", "need a lot of GPU memory", "quickly run out of memory",
                      "become slow and memory-hungry", "are an engineering problem", "cost a lot more"],
        "pieces": ["languages that the tokenizer splits into many small pieces",
                   "languages that get cut into many small tokens", "text that turns into many tokens",
                   "languages like Chinese that need more tokens", "mixed-language text",
                   "languages the tokenizer handles badly"],
        "moretok": ["have more tokens for the same content", "need more tokens to say the same thing",
                    "produce longer sequences", "end up with many more tokens"],
    },
    "zh": {
        "square": ["按平方增长", "是平方级的", "随 token 数的平方增长", "是 O(n²) 的", "和长度的平方成正比",
                   "是 n² 级别的"],
        "table": ["打分表", "分数表", "注意力矩阵", "n×n 的表", "QKᵀ 这张表", "score 矩阵"],
        "cost": ["代价", "计算量和显存", "计算和存储", "开销", "算力和内存"],
        "long": ["长文档", "长文本", "长上下文", "很长的输入", "长序列"],
        "expensive": ["非常吃显存", "代价会变得很大", "很容易爆显存", "又慢又费内存", "是工程难题",
                      "成本高得多"],
        "pieces": ["被分词器切成很多小片的语言", "切得很碎的语言", "中文这类 token 比较多的语言",
                   "多语言混合的文本", "分词效果差的语言"],
        "moretok": ["同样的内容 token 更多", "序列会更长", "要用更多的 token", "token 数量会多很多"],
    },
}

# ----------------------------------------------------------------------------- kinds
# Each kind: "parts" (clauses; each part a list of alternative templates; order of the
# parts may be permuted), "whole" (whole-answer templates), "extra" (optional sentences
# of the same meaning), per language.
DEV = {
    "tq1_explain": {
        "correct": {
            "en": {
                "parts": [
                    ["{QK} {decide} {weights}",
                     "{weights} come only from {QK}",
                     "the scores q·k and the softmax give the weights, so {QK} {decide} {weights}",
                     "{QK} decide how much attention each token pays to the others"],
                    ["{V} {decides} {content}",
                     "{content} is decided by {V}",
                     "{V} only changes the output, not the weights",
                     "{V} is what is actually mixed"],
                ],
                "whole": ["QK -> weights, V -> content.", "Q/K: who attends to whom. V: what is passed along.",
                          "Q and K give the weights; V gives the values that are averaged with those weights.",
                          "Weights = softmax(QK^T/sqrt(d)), they only use Q and K. V is the stuff being weighted."],
                "extra": ["In this question W_v went from 2I to {c}I and the weights stayed [{w1}, {w2}]; only the output was scaled.",
                          "That is why the weights don't change when W_v changes.",
                          "The output is just a weighted sum of the value vectors.",
                          "Like in the library example: you match your query against the labels (keys) but take home the books' content (values).",
                          "Changing W_v only rescaled the output by {c}/2."],
            },
            "zh": {
                "parts": [
                    ["{QK}{decide}{weights}", "{weights}是由{QK}决定的",
                     "{QK}通过点积和 softmax 算出{weights}，也就是决定“看谁、看多少”",
                     "{QK}负责打分，分数经过 softmax 就是{weights}", "权重只跟{QK}有关"],
                    ["{V}{decide}{content}", "{content}由{V}决定",
                     "{V}决定的是被加权求和的那些向量，也就是{content}",
                     "{V}只影响输出，不影响权重", "{V}相当于书的内容，是最后真正拿走的东西"],
                ],
                "whole": ["QK决定权重，V决定内容", "Q、K 管“看谁”，V 管“拿什么”。",
                          "权重 = softmax(QKᵀ/√dk)，只用到 Q 和 K；V 是被加权的内容。",
                          "Q 和 K 算出注意力权重，V 提供被混合的信息。"],
                "extra": ["这题里 Wv 从 2I 换成 {c}I，权重还是 [{w1}, {w2}]，只有输出被放大了。",
                          "所以改 Wv 权重不会变。", "输出就是值向量的加权和。",
                          "就像图书馆检索：拿查询去对标签（键），最后带走的是书的内容（值）。",
                          "Wv 变了以后输出只是整体乘了 {c}/2。"],
            },
        },
        "swapped": {
            "en": {
                "parts": [
                    ["{V} {decides} {weights}", "{weights} are decided by {V}",
                     "the value matrix decides how much attention each token gets"],
                    ["{QK} {decide} {content}", "{content} is decided by {QK}",
                     "{QK} decide what the output contains"],
                ],
                "whole": ["V -> weights, QK -> content.", "V gives the weights and Q and K give the information that is mixed.",
                          "The values set the attention weights, the queries and keys set the output."],
                "extra": ["When W_v changed, the output changed, so V must control the weights.",
                          "So the weights would change if W_v were 2I.",
                          "The weights here are [{w1}, {w2}] because of W_v = {c}I."],
            },
            "zh": {
                "parts": [
                    ["{V}{decide}{weights}", "{weights}是由{V}决定的", "{V}决定每个词被关注多少"],
                    ["{QK}{decide}{content}", "{content}由{QK}决定", "{QK}决定最后输出什么"],
                ],
                "whole": ["V决定权重，QK决定内容", "值矩阵决定每个词被关注多少，查询和键决定最后混合出来的信息。",
                          "V 管权重，Q、K 管输出。"],
                "extra": ["因为 Wv 一变输出就变了，说明权重是 V 决定的。", "所以 Wv 换成 2I 的话权重会变。",
                          "这题的权重 [{w1}, {w2}] 就是 Wv = {c}I 带来的。"],
            },
        },
        "same": {
            "en": {
                "parts": [],
                "whole": ["Q, K and V all do the same thing: here W_q = W_k = I, so they are all just copies of the input.",
                          "There is no real difference, all three of them decide the output together.",
                          "Q, K and V are the same vectors, so they decide the same thing.",
                          "They are all the same, each one is the input multiplied by a matrix.",
                          "Queries, keys and values all decide both the weights and the output, together.",
                          "All three matrices play the same role, they just transform x."],
                "extra": ["In this question they are all equal to x.", "The lecture just gives them different names.",
                          "So changing any of them changes everything."],
            },
            "zh": {
                "parts": [],
                "whole": ["Q、K、V 其实是同一个东西，这题里 Wq = Wk = I，它们都等于输入。",
                          "三个没有本质区别，都是一起决定输出。", "QKV 都一样，都是输入乘一个矩阵而已。",
                          "查询、键、值决定的东西是一样的，权重和输出都由它们三个共同决定。",
                          "Q K V 三个作用相同，只是名字不一样。", "它们都是对 x 做线性变换，作用一样。"],
                "extra": ["这题里它们都等于 x。", "课上只是给它们起了不同的名字。", "所以改哪一个结果都会变。"],
            },
        },
        "half": {
            "en": {
                "parts": [],
                "whole": ["{QK} {decide} {weights}.", "{QK} {decide} {weights}, through the softmax of their dot product.",
                          "The weights come from {QK}: softmax of q·k / sqrt(d_k).",
                          "{QK} {decide} {weights}. I'm not sure what V does.",
                          "{QK} {decide} {weights}; V is just the input.",
                          "The attention weights are computed from {scores} of {QK}, so they decide who attends to whom."],
                "extra": ["The weights here are [{w1}, {w2}].", "Each weight is the softmax of q·k/√d_k.",
                          "That is why the weights sum to 1."],
            },
            "zh": {
                "parts": [],
                "whole": ["{QK}{decide}{weights}。", "{QK}{decide}{weights}，是通过点积和 softmax 算出来的。",
                          "权重来自{QK}：softmax(q·k/√dk)。", "{QK}{decide}{weights}。V 我不太确定。",
                          "{QK}{decide}{weights}，V 就是输入本身。", "注意力权重是用{QK}的{scores}算出来的，所以它们决定谁关注谁。"],
                "extra": ["这题的权重是 [{w1}, {w2}]。", "每个权重都是 q·k/√dk 的 softmax。", "所以权重加起来等于 1。"],
            },
        },
        "offtopic": {
            "en": {
                "parts": [],
                "whole": ["Dividing by sqrt(d_k) keeps the softmax from saturating.",
                          "Self-attention lets every token look at every other token, unlike an RNN.",
                          "The output of position 1 is [{o1}, {o2}].",
                          "Softmax normalizes the scores so that each row sums to 1.",
                          "Without positional encoding, attention treats the sentence as a set.",
                          "Transformers replaced RNNs because they can be parallelized on GPUs.",
                          "Attention is all you need.", "The weights are [{w1}, {w2}] and the output is [{o1}, {o2}]."],
                "extra": ["This was covered in lecture 9.", "It is very important for large language models."],
            },
            "zh": {
                "parts": [],
                "whole": ["除以根号 dk 是为了防止 softmax 饱和。", "自注意力让每个词都能看到所有其他词，比 RNN 好。",
                          "位置 1 的输出是 [{o1}, {o2}]。", "softmax 把分数变成和为 1 的概率。",
                          "没有位置编码的话，自注意力分不清顺序。", "Transformer 可以用 GPU 并行，所以取代了 RNN。",
                          "注意力机制就是 Attention is all you need。", "权重是 [{w1}, {w2}]，输出是 [{o1}, {o2}]。"],
                "extra": ["这是第 9 讲的内容。", "这对大模型很重要。"],
            },
        },
        "empty": {"en": {"idk": ["I don't know", "idk", "not sure", "no idea, sorry", "I don't understand this part"]},
                  "zh": {"idk": ["不知道", "不会", "没想明白", "不太懂", "这题不会"]}},
    },
    "tq5_explain": {
        "correct": {
            "en": {
                "parts": [
                    ["{table} {square}, so {long} {expensive}",
                     "{cost} of attention {square}: a text four times as long costs about sixteen times as much",
                     "doubling the length makes {cost} four times larger, so {long} {expensive}",
                     "{long} {expensive} because {cost} {square}"],
                    ["{pieces} {moretok} and pay that square on top",
                     "{pieces} {moretok}, so they are hit even harder",
                     "for {pieces} it is worse, because they {moretok} and the cost is squared",
                     "more tokens per sentence means a quadratically bigger table for {pieces}"],
                ],
                "whole": ["n² cost: long docs are expensive, and languages with many tokens are even more expensive.",
                          "Quadratic: 2x tokens = 4x cost. Languages split into many pieces get longer sequences and pay more."],
                "extra": ["Here going from {n1} to {n2} tokens is a factor of {f}.",
                          "That's why FlashAttention and sparse attention exist.",
                          "Long context is an engineering problem, not a setting.",
                          "With {n} tokens one score matrix already takes {mib} MiB."],
            },
            "zh": {
                "parts": [
                    ["{table}的大小{square}，所以{long}{expensive}",
                     "{cost}{square}：文本长 4 倍，代价大约是 16 倍",
                     "长度翻倍，{cost}就变成 4 倍，所以{long}{expensive}",
                     "{long}{expensive}，因为{cost}{square}"],
                    ["{pieces}{moretok}，还要再付一次平方的代价",
                     "{pieces}{moretok}，所以更吃亏",
                     "对{pieces}来说更糟，因为 token 更多，代价又是平方级的",
                     "分词切得越碎，token 越多，平方之后就更贵"],
                ],
                "whole": ["n² 的代价：长文档很贵，token 多的语言更贵。",
                          "平方增长：token 翻倍，代价 4 倍。切得碎的语言序列更长，付出更多。"],
                "extra": ["这题从 {n1} 到 {n2} 个 token，代价是 {f} 倍。", "所以才有 FlashAttention、稀疏注意力这些方法。",
                          "长上下文是工程难题，不是调个参数就行。", "{n} 个 token 的一张分数矩阵就要 {mib} MiB。"],
            },
        },
        "linear": {
            "en": {
                "parts": [
                    ["{cost} grows linearly with the number of tokens, so {long} are just proportionally slower",
                     "twice as many tokens means twice {cost}",
                     "{cost} is proportional to the length of the text"],
                    ["{pieces} cost a bit more, in proportion to their extra tokens",
                     "{pieces} are slower by the same factor as they have more tokens"],
                ],
                "whole": ["It is linear: a text twice as long takes twice as long to process.",
                          "O(n) cost, so long documents are fine, just a bit slower."],
                "extra": ["Going from {n1} to {n2} tokens multiplies the work by {k}.", "Each token adds the same amount of work."],
            },
            "zh": {
                "parts": [
                    ["{cost}和 token 数成正比，所以{long}只是按比例变慢", "token 多一倍，{cost}也多一倍",
                     "{cost}是线性增长的"],
                    ["{pieces}多出几个 token，成本也按比例多一些", "{pieces}会慢一点，慢多少取决于多了多少 token"],
                ],
                "whole": ["线性增长，文本长一倍，处理时间也长一倍。", "代价是 O(n) 的，长文档没什么问题，就是慢一点。"],
                "extra": ["这题从 {n1} 到 {n2} 个 token，工作量是 {k} 倍。", "每个 token 增加的工作量是一样的。"],
            },
        },
        "half": {
            "en": {
                "parts": [],
                "whole": ["{table} {square}, so {long} {expensive}.", "{cost} of attention {square}: a text four times as long costs about sixteen times as much.",
                          "Doubling the length makes {cost} four times larger, so {long} {expensive}.",
                          "{long} {expensive} because {cost} {square}. I am not sure about the second part."],
                "extra": ["Here going from {n1} to {n2} tokens is a factor of {f}.",
                          "With {n} tokens one score matrix already takes {mib} MiB.", "That's why FlashAttention exists."],
            },
            "zh": {
                "parts": [],
                "whole": ["{table}的大小{square}，所以{long}{expensive}。", "{cost}{square}：文本长 4 倍，代价大约是 16 倍。",
                          "长度翻倍，{cost}就变成 4 倍，所以{long}{expensive}。", "{long}{expensive}，因为{cost}{square}。后半问不太会。"],
                "extra": ["这题从 {n1} 到 {n2} 个 token，代价是 {f} 倍。", "{n} 个 token 的一张分数矩阵就要 {mib} MiB。",
                          "所以才有 FlashAttention。"],
            },
        },
        "lang_wrong": {
            "en": {
                "fixed_order": True, "parts": [
                    ["{table} {square}, so {long} {expensive}", "{long} {expensive} because {cost} {square}"],
                    ["but {pieces} are actually cheaper, because each small token needs less computation",
                     "but the tokenizer does not matter, small pieces are cheap so the total stays the same",
                     "{pieces} are not affected, the cost depends on the number of words, not tokens"],
                ],
                "whole": ["Languages with many small tokens are cheaper because the tokens are smaller."],
                "extra": ["Here going from {n1} to {n2} tokens is a factor of {f}."],
            },
            "zh": {
                "fixed_order": True, "parts": [
                    ["{table}的大小{square}，所以{long}{expensive}", "{long}{expensive}，因为{cost}{square}"],
                    ["但是{pieces}反而更便宜，因为每个小 token 的计算量更小",
                     "但分词切得碎没关系，每片都很小，总代价不变",
                     "{pieces}不受影响，代价只跟字数有关，跟 token 数无关"],
                ],
                "whole": ["切得碎的语言更省，因为每个 token 都很小。"],
                "extra": ["这题从 {n1} 到 {n2} 个 token，代价是 {f} 倍。"],
            },
        },
        "offtopic": {
            "en": {
                "parts": [],
                "whole": ["{n} tokens take {mib} MiB in FP16.", "FP16 uses 2 bytes per number.",
                          "Dividing by sqrt(d_k) prevents vanishing gradients.",
                          "GPUs compute attention in parallel, so it is fast.",
                          "An RNN has to go step by step, a transformer does not.",
                          "Long documents are harder for people to read too.", "The factor is {f}."],
                "extra": ["This is from lecture 23.", "Attention is global."],
            },
            "zh": {
                "parts": [],
                "whole": ["{n} 个 token 用 FP16 要 {mib} MiB。", "FP16 每个数 2 字节。", "除以根号 dk 是为了防止梯度消失。",
                          "GPU 可以并行计算注意力，所以很快。", "RNN 要一步一步算，Transformer 不用。",
                          "长文档人读起来也更累。", "倍数是 {f}。"],
                "extra": ["这是第 23 讲的内容。", "注意力是全局的。"],
            },
        },
        "empty": {"en": {"idk": ["I don't know", "idk", "not sure", "no idea", "skipped"]},
                  "zh": {"idk": ["不知道", "不会", "没想好", "不太懂", "略"]}},
    },
}

# Written after the method was frozen: new phrasings of the same meanings.
HOLDOUT = {
    "tq1_explain": {
        "correct": {
            "en": {"parts": [["the matching between queries and keys fixes {weights}",
                              "which tokens a token looks at, and how much, is settled by {QK}"],
                             ["the values only supply the material that gets blended",
                              "what comes out is made of {V}, weighted by those numbers"]],
                   "whole": ["Q·K is the 'where to look', V is the 'what you get'."], "extra": []},
            "zh": {"parts": [["看哪里、看多少，是查询和键匹配出来的", "{QK}配对打分，定下了{weights}"],
                             ["值只是提供被混合的材料", "最后拿到的东西来自{V}，按这些权重加起来"]],
                   "whole": ["Q·K 决定往哪儿看，V 决定看到什么。"], "extra": []},
        },
        "swapped": {
            "en": {"parts": [["how much each token is attended to is fixed by the values"],
                             ["the queries and keys supply the material that gets blended"]],
                   "whole": ["V is the 'where to look', Q·K is the 'what you get'."], "extra": []},
            "zh": {"parts": [["看哪里、看多少，是值矩阵定的"], ["查询和键提供被混合的材料"]],
                   "whole": ["V 决定往哪儿看，Q·K 决定看到什么。"], "extra": []},
        },
        "same": {"en": {"parts": [], "whole": ["Q, K and V have one and the same job.", "No difference between the three, they are interchangeable."], "extra": []},
                 "zh": {"parts": [], "whole": ["Q、K、V 干的是同一件事。", "三者可以互换，没有区别。"], "extra": []}},
        "half": {"en": {"parts": [], "whole": ["The matching between queries and keys fixes {weights}.", "Which tokens a token looks at is settled by {QK}."], "extra": []},
                 "zh": {"parts": [], "whole": ["看哪里、看多少，是查询和键匹配出来的。", "{QK}配对打分，定下了{weights}。"], "extra": []}},
        "offtopic": {"en": {"parts": [], "whole": ["Multi-head attention runs several attentions in parallel.", "The KV cache stores K and V when generating text."], "extra": []},
                     "zh": {"parts": [], "whole": ["多头注意力就是同时算好几组注意力。", "生成的时候可以把 K、V 缓存下来。"], "extra": []}},
        "empty": {"en": {"idk": ["dunno", "?? no clue"]}, "zh": {"idk": ["不清楚", "完全不懂"]}},
    },
    "tq5_explain": {
        "correct": {
            "en": {"parts": [["every extra token has to be scored against all the others, so a long report blows up the memory"],
                             ["a language that comes out as many fragments has a longer sequence and the blow-up is squared"]],
                   "whole": ["Pairs of tokens: n·n of them. Long texts explode, and scripts cut into tiny tokens explode sooner."], "extra": []},
            "zh": {"parts": [["每多一个 token 都要和所有 token 两两打分，所以长报告会把显存撑爆"],
                             ["被切成碎片的语言序列更长，这个膨胀还要再平方"]],
                   "whole": ["两两配对，一共 n·n 个。长文本会爆炸，切得碎的文字爆得更早。"], "extra": []},
        },
        "linear": {"en": {"parts": [], "whole": ["Each extra token adds a fixed amount of work, so the cost follows the length one to one."], "extra": []},
                   "zh": {"parts": [], "whole": ["每多一个 token 就多固定的一份工作，代价和长度一比一增长。"], "extra": []}},
        "half": {"en": {"parts": [], "whole": ["Every extra token has to be scored against all the others, so a long report blows up the memory."], "extra": []},
                 "zh": {"parts": [], "whole": ["每多一个 token 都要和所有 token 两两打分，所以长报告会把显存撑爆。"], "extra": []}},
        "lang_wrong": {"en": {"parts": [], "whole": ["Long reports blow up the memory, but fragment-heavy languages save compute since the fragments are tiny."], "extra": []},
                       "zh": {"parts": [], "whole": ["长报告会撑爆显存，但切得碎的语言反而省算力，因为碎片都很小。"], "extra": []}},
        "offtopic": {"en": {"parts": [], "whole": ["The KV cache makes generation faster.", "Byte pair encoding merges frequent pairs of characters."], "extra": []},
                     "zh": {"parts": [], "whole": ["KV 缓存能让生成更快。", "BPE 会合并出现频率高的字符对。"], "extra": []}},
        "empty": {"en": {"idk": ["dunno"]}, "zh": {"idk": ["不清楚"]}},
    },
}

OPENERS = {"en": ["", "", "", "I think ", "Basically, ", "In self-attention, ", "From this question: ", "So ", "My answer: "],
           "zh": ["", "", "", "我觉得", "简单来说，", "在自注意力里，", "从这道题可以看出，", "答：", "总之，"]}
GENERIC_EXTRA = {"en": ["This is the core idea of self-attention.", "I hope this is right.", "(see the lecture notes)"],
                 "zh": ["这就是自注意力的核心。", "不知道对不对。", "（参考讲义）"]}
CONNECT = {"en": [". ", "; ", ", and ", ", while ", " — ", ". On the other hand, ", ", "],
           "zh": ["，", "；", "。", "，而", "，另外"]}

EN_MISSPELL = {"weights": ["wieghts", "weigths", "weight"], "attention": ["atention", "attension"],
               "quadratically": ["quadraticly", "quadratically"], "determine": ["determin"], "decide": ["decied"],
               "values": ["vaules"], "queries": ["querys", "queires"], "tokens": ["tokes", "tokenz"],
               "memory": ["memroy"], "expensive": ["expesive"], "language": ["langauge"], "square": ["sqaure"]}
ZH_HOMOPHONE = {"权重": ["全重", "权中"], "决定": ["绝定", "决订"], "注意力": ["注意里"], "内容": ["内荣"],
                "输出": ["输处"], "平方": ["平放"], "计算": ["记算"], "显存": ["现存"], "混合": ["混和"],
                "关注": ["关住"], "矩阵": ["距阵"], "分词": ["分次"], "代价": ["代驾"], "长文档": ["常文档"]}


def _fill(template: str, slots: dict, nums: dict, rng: random.Random) -> str:
    out = template
    for _ in range(5):
        new = re.sub(r"\{(\w+)\}", lambda m: rng.choice(slots[m.group(1)]) if m.group(1) in slots
                     else str(nums.get(m.group(1), m.group(0))), out)
        if new == out:
            break
        out = new
    return out


def _numbers(rng: random.Random) -> dict:
    w1 = round(rng.uniform(0.52, 0.9), 3)
    c = rng.choice([3, 4, 5, 0.5, 1.5])
    n1 = rng.choice([500, 800, 1000, 1500, 2000])
    k = rng.randint(2, 8)
    n = rng.randint(3, 96) * 1024
    return {"w1": w1, "w2": round(1 - w1, 3), "c": c, "o1": round(c * w1, 3), "o2": round(c * (1 - w1), 3),
            "n1": n1, "n2": n1 * k, "k": k, "f": k * k, "n": n, "mib": round(2 * n * n / 2 ** 20, 3)}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def _typos(text: str, lang: str, rng: random.Random, rate: float) -> str:
    if lang == "en":
        words = text.split(" ")
        for i, w in enumerate(words):
            core = w.strip(".,;:()").lower()
            if core in EN_MISSPELL and rng.random() < rate * 3:
                words[i] = w.replace(core, rng.choice(EN_MISSPELL[core]))
            elif len(core) > 4 and core.isalpha() and rng.random() < rate:
                j = rng.randrange(1, len(w) - 2)
                op = rng.random()
                if op < 0.4:
                    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
                elif op < 0.7:
                    words[i] = w[:j] + w[j + 1:]
                else:
                    words[i] = w[:j] + w[j] + w[j:]
        return " ".join(words)
    for right, wrongs in ZH_HOMOPHONE.items():
        if right in text and rng.random() < rate * 4:
            text = text.replace(right, rng.choice(wrongs), 1)
    return text


def _noise(text: str, lang: str, rng: random.Random) -> str:
    if lang == "en":
        if rng.random() < 0.15:
            text = text.lower()
        if rng.random() < 0.2:
            text = text.rstrip(".")
        if rng.random() < 0.05:
            text = text.replace(". ", ".  ")
    else:
        if rng.random() < 0.25:
            text = text.replace("，", ",").replace("。", ".").replace("；", ";")
        if rng.random() < 0.3:   # spacing around Latin letters is a matter of taste
            text = re.sub(r" ?([A-Za-z·ᵀ²√()]+) ?", r"\1", text)
        if rng.random() < 0.2:
            text = text.rstrip("。.")
    if rng.random() < 0.04:
        text = "**" + text + "**"   # markdown bold, the cell is markdown
    if rng.random() < 0.05:
        text = text + "\n"
    return text


def _answer(question: str, kind: str, lang: str, rng: random.Random, sets: list[dict]) -> str:
    nums = _numbers(rng)
    if kind == "empty":
        r = rng.random()
        if r < 0.45:
            return STUB[lang] if rng.random() < 0.85 else STUB[lang] + "\n\n"
        if r < 0.65:
            return rng.choice(["", " ", "\n", "  \n"])
        if r < 0.72:
            return rng.choice(["?", "-", "...", "？", "。"])
        if r < 0.77:
            return STUB[lang] + "\n\n" + rng.choice(["?", "", "…"])
        idk = [i for s in sets for i in s[question]["empty"][lang]["idk"]]
        return rng.choice(idk)
    specs = [s[question][kind][lang] for s in sets]
    slots = {**SLOTS[lang], **SLOTS5[lang]}
    n_parts = sum(len(s["parts"]) and 1 for s in specs)
    wholes = [w for s in specs for w in s["whole"]]
    use_parts = n_parts and (not wholes or rng.random() < 0.7)
    if use_parts:
        spec = rng.choice([s for s in specs if s["parts"]])
        parts = [_fill(rng.choice(p), slots, nums, rng) for p in spec["parts"]]
        if rng.random() < 0.4 and not spec.get("fixed_order"):
            parts.reverse()
        body = parts[0]
        for p in parts[1:]:
            sep = rng.choice(CONNECT[lang])
            body += sep + (_cap(p) if sep.strip() in (".", ". On the other hand,") and lang == "en" else p)
        body = _cap(body) if lang == "en" else body
        body += "." if lang == "en" else "。"
    else:
        body = _fill(rng.choice(wholes), slots, nums, rng)
    opener = rng.choice(OPENERS[lang])
    if opener:
        body = opener + (body[:1].lower() + body[1:] if lang == "en" and not body[:2].isupper() else body)
    extras = [e for s in specs for e in s["extra"]]
    n_extra = rng.choices([0, 1, 2], [0.5, 0.35, 0.15])[0]
    chosen = rng.sample(extras, min(n_extra, len(extras)))
    if rng.random() < 0.08:
        chosen.append(rng.choice(GENERIC_EXTRA[lang]))
    if rng.random() < 0.3:
        rng.shuffle(chosen)
        text = " ".join([_fill(e, slots, nums, rng) for e in chosen] + [body]) if rng.random() < 0.2 else \
            body + (" " if lang == "en" else "") + " ".join(_fill(e, slots, nums, rng) for e in chosen)
    else:
        text = body
        for e in chosen:
            text += (" " if lang == "en" else "") + _fill(e, slots, nums, rng)
    text = _typos(text, lang, rng, rate=rng.choice([0, 0, 0.02, 0.05, 0.1]))
    return _noise(text.strip(), lang, rng)


def make_class(n: int, seed: int = 0, question: str = "tq1_explain", templates: str = "dev",
               zh_share: float = 0.5, copy_rate: float = 0.07) -> list[dict]:
    """n answers to one question. templates: 'dev', 'holdout' or 'all'."""
    sets = {"dev": [DEV], "holdout": [HOLDOUT], "all": [DEV, HOLDOUT]}[templates]
    rng = random.Random(f"{seed}/{question}/{templates}")
    kinds, shares = KINDS[question], SHARE[question]
    out = []
    for i in range(n):
        lang = "zh" if rng.random() < zh_share else "en"
        student = f"s{i:05d}"
        same_lang = [a for a in out if a["language"] == lang]
        if same_lang and rng.random() < copy_rate:
            src = rng.choice(same_lang[-200:] if rng.random() < 0.5 else same_lang)   # friends hand in near in time
            out.append({"student": student, "text": src["text"], "kind": src["kind"], "language": lang})
            continue
        kind = rng.choices(kinds, shares)[0]
        out.append({"student": student, "text": _answer(question, kind, lang, rng, sets), "kind": kind,
                    "language": lang})
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tset = "dev"
    if "--set" in sys.argv:
        tset = sys.argv[sys.argv.index("--set") + 1]
        args = [a for a in args if a != tset]
    n = int(args[0]) if args else 1000
    seed = int(args[1]) if len(args) > 1 else 0
    json.dump({q: make_class(n, seed, q, tset) for q in KINDS}, sys.stdout, ensure_ascii=False, indent=0)
