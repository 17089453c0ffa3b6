"""Honest code for the synthetic class: each exercise written step by step, every step one of several ways.

A student has habits (how they multiply matrices, convert arguments, take a
square root, whether they name intermediate results or keep docstrings) and
makes an independent choice at every step of every exercise, as people
solving the same problem do: the same ideas, their own details. Two honest
students agree on a short passage often and on a whole cell rarely; a few
common passages (``return weights @ V``) are everybody's.

Only the token structure matters to copy detection, so the code is
plausible rather than tested: nothing here is run.
"""

from __future__ import annotations

import random
import re


class Habits:
    """One student's habits, drawn once and used in every exercise."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.mul = rng.choices(["@", "dot", "matmul", "method"], [6, 3, 2, 1])[0]
        self.convert = rng.choices(["none", "asarray", "asarray_float", "array_float64"], [4, 3, 3, 1])[0]
        self.sqrt = rng.choices(["np.sqrt({})", "{} ** 0.5", "math.sqrt({})", "np.power({}, 0.5)"], [6, 3, 2, 1])[0]
        self.temp = rng.random() < 0.5          # names intermediate results
        self.docstring = rng.random() < 0.5
        self.transpose = rng.choices(["{}.T", "np.transpose({})", "{}.transpose()", "np.swapaxes({}, -1, -2)"],
                                     [6, 2, 1, 1])[0]

    def pick(self, *forms, weights=None):
        return self.rng.choices(forms, weights)[0] if weights else self.rng.choice(forms)

    def maybe(self, p: float = 0.5) -> bool:
        return self.rng.random() < p

    def mm(self, a: str, b: str) -> str:
        form = self.mul if self.maybe(0.85) else self.pick("@", "dot", "matmul", "method")
        return {"@": f"{a} @ {b}", "dot": f"np.dot({a}, {b})", "matmul": f"np.matmul({a}, {b})",
                "method": f"{a}.dot({b})"}[form]

    def root(self, x: str) -> str:
        return self.sqrt.format(x)

    def tr(self, x: str) -> str:
        return self.transpose.format(x)

    def conv(self, name: str) -> str | None:
        style = self.convert if self.maybe(0.8) else self.pick("none", "asarray", "asarray_float")
        return {"none": None, "asarray": f"{name} = np.asarray({name})",
                "asarray_float": f"{name} = np.asarray({name}, dtype=float)",
                "array_float64": f"{name} = np.array({name}, dtype=np.float64)"}[style]

    def name(self, *options: str) -> str:
        return self.pick(*options)

    def ret(self, expr: str, ind: str = "    ") -> list[str]:
        if self.temp and "," not in expr and self.maybe(0.7):
            var = self.pick("result", "out", "res", "output", "ans")
            return [f"{ind}{var} = {expr}", f"{ind}return {var}"]
        return [f"{ind}return {expr}"]

    def doc(self, text: str, ind: str = "    ") -> list[str]:
        return [f'{ind}"""{text}"""'] if self.docstring else []

    def extras(self, params: list[str], ind: str = "    ") -> list[str]:
        lines = [line for line in (self.conv(p) for p in params) if line]
        if self.maybe(0.2):
            p = self.pick(*params)
            lines.append(self.pick(f"assert np.ndim({p}) >= 1", f"assert {p} is not None",
                                   f"shape = np.shape({p})", f"if np.size({p}) == 0:\n{ind}    raise ValueError('empty')"))
        if self.maybe(0.08):
            lines.append(f"print(np.shape({self.pick(*params)}))")
        self.rng.shuffle(lines)
        return [ind + line for line in lines]


def project_qkv(h: Habits) -> str:
    out = ["def project_qkv(X, W_q, W_k, W_v):"] + h.doc("Queries, keys and values.")
    out += h.extras(["X"] + (["W_q", "W_k", "W_v"] if h.maybe(0.3) else []))
    form = h.pick("three", "three", "tuple", "loop", "helper", "comp")
    if form == "three":
        names = h.pick(("Q", "K", "V"), ("q", "k", "v"), ("queries", "keys", "values"))
        lines = [f"    {n} = {h.mm('X', w)}" for n, w in zip(names, ("W_q", "W_k", "W_v"))]
        h.rng.shuffle(lines)
        out += lines + [f"    return {', '.join(names)}" if h.maybe(0.7) else f"    return ({', '.join(names)})"]
    elif form == "tuple":
        out.append("    return " + ", ".join(h.mm("X", w) for w in ("W_q", "W_k", "W_v")))
    elif form == "loop":
        acc = h.name("out", "result", "mats", "parts")
        out += [f"    {acc} = []", f"    for W in ({h.pick('W_q, W_k, W_v', '[W_q, W_k, W_v]')}):",
                f"        {acc}.append({h.mm('X', 'W')})", f"    return tuple({acc})" if h.maybe() else
                f"    return {acc}[0], {acc}[1], {acc}[2]"]
    elif form == "helper":
        fn = h.name("proj", "project", "apply", "mul")
        out += [f"    def {fn}(W):", f"        return {h.mm('X', 'W')}",
                f"    return {fn}(W_q), {fn}(W_k), {fn}(W_v)"]
    else:
        out.append(f"    return tuple({h.mm('X', 'W')} for W in {h.pick('(W_q, W_k, W_v)', '[W_q, W_k, W_v]')})")
    return "\n".join(out) + "\n"


def scaled_scores(h: Habits) -> str:
    out = ["def scaled_scores(Q, K):"] + h.doc("Scaled dot-product scores.") + h.extras(["Q", "K"])
    dk = h.pick("K.shape[-1]", "Q.shape[-1]", "np.shape(K)[-1]", "K.shape[1]", "len(K[0])", "Q.shape[1]")
    raw = h.pick(h.mm("Q", h.tr("K")), h.mm("Q", h.tr("K")), "np.einsum('ik,jk->ij', Q, K)")
    if h.maybe(0.6):
        d = h.name("d_k", "dk", "d", "dim")
        out.append(f"    {d} = {dk}")
        dk = d
    if h.maybe(0.5):
        s = h.name("scores", "S", "s", "raw")
        out.append(f"    {s} = {raw}")
        raw = s
    scale = h.root(dk)
    if h.maybe(0.3):
        out.append(f"    scale = {scale}")
        scale = "scale"
    out += h.ret(h.pick(f"{raw} / {scale}", f"np.divide({raw}, {scale})", f"{raw} * (1 / {scale})",
                        weights=[6, 1, 1]))
    return "\n".join(out) + "\n"


def softmax(h: Habits) -> str:
    out = ["def softmax(x, axis=-1):"] + h.doc("Stable softmax along axis.") + h.extras(["x"])
    mx = h.pick("np.max(x, axis=axis, keepdims=True)", "x.max(axis=axis, keepdims=True)",
                "np.amax(x, axis=axis, keepdims=True)", "np.expand_dims(np.max(x, axis=axis), axis)")
    shifted = h.name("shifted", "z", "x_shift", "stable", "d")
    e = h.name("e", "ex", "exps", "exp_x", "num")
    if h.maybe(0.4):
        m = h.name("m", "mx", "x_max", "peak")
        out.append(f"    {m} = {mx}")
        mx = m
    if h.maybe(0.6):
        out.append(f"    {shifted} = x - {mx}")
        out.append(f"    {e} = {h.pick('np.exp', 'np.exp', 'np.power(np.e, ')}({shifted})".replace(", (", ", "))
    else:
        out.append(f"    {e} = np.exp(x - {mx})")
    total = h.pick(f"np.sum({e}, axis=axis, keepdims=True)", f"{e}.sum(axis=axis, keepdims=True)",
                   f"{e}.sum(axis, keepdims=True)", f"np.expand_dims({e}.sum(axis=axis), axis)")
    if h.maybe(0.5):
        t = h.name("total", "denom", "s", "norm", "z_sum")
        out.append(f"    {t} = {total}")
        total = t
    out += h.ret(h.pick(f"{e} / {total}", f"np.divide({e}, {total})", f"{e} * (1.0 / {total})", weights=[6, 1, 1]))
    return "\n".join(out) + "\n"


def weighted_sum(h: Habits) -> str:
    out = ["def weighted_sum(weights, V):"] + h.doc("Mix the values.") + h.extras(["weights", "V"])
    form = h.pick("mm", "mm", "mm", "einsum", "loop", "sum")
    if form == "mm":
        out += h.ret(h.mm("weights", "V"))
    elif form == "einsum":
        out += h.ret(h.pick("np.einsum('ij,jk->ik', weights, V)", "np.einsum('qk,kd->qd', weights, V)"))
    elif form == "loop":
        r = h.name("rows", "out", "mixed", "result")
        out += [f"    {r} = []", "    for w in weights:",
                f"        {r}.append({h.pick('sum(wj * vj for wj, vj in zip(w, V))', h.mm('w', 'V'))})",
                f"    return np.array({r})"]
    else:
        out += h.ret("np.sum(weights[:, :, None] * V[None, :, :], axis=1)")
    return "\n".join(out) + "\n"


def self_attention(h: Habits) -> str:
    out = ["def self_attention(X, W_q, W_k, W_v):"] + h.doc("Single-head self-attention.")
    out += h.extras(["X"]) if h.maybe(0.4) else []
    q, k, v = h.pick(("Q", "K", "V"), ("q", "k", "v"))
    out.append(f"    {q}, {k}, {v} = project_qkv(X, W_q, W_k, W_v)")
    w = h.name("weights", "w", "A", "attn", "probs")
    axis = h.pick("", ", axis=-1", ", axis=1", ", -1")
    if h.maybe(0.5):
        s = h.name("scores", "S", "s", "logits")
        out.append(f"    {s} = scaled_scores({q}, {k})")
        out.append(f"    {w} = softmax({s}{axis})")
    else:
        out.append(f"    {w} = softmax(scaled_scores({q}, {k}){axis})")
    mix = h.pick(f"weighted_sum({w}, {v})", f"weighted_sum({w}, {v})", h.mm(w, v))
    if h.maybe(0.5):
        o = h.name("output", "out", "Y", "result", "z")
        out += [f"    {o} = {mix}", f"    return {o}, {w}" if h.maybe(0.7) else f"    return ({o}, {w})"]
    else:
        out.append(f"    return {mix}, {w}")
    return "\n".join(out) + "\n"


def kv_cache(h: Habits) -> str:
    store = h.pick("lists", "lists", "arrays", "dict", "pairs")
    ks, vs = h.pick(("_keys", "_values"), ("_k", "_v"), ("key_list", "value_list"), ("ks", "vs"), ("K", "V"))
    to1d = h.pick("np.asarray({}, dtype=float).reshape(-1)", "np.ravel({})", "np.array({}).flatten()",
                  "np.asarray({}).ravel()", "np.reshape({}, -1)", "np.array({}, dtype=float)")
    out = ["class KVCache:"] + h.doc("Keys and values seen so far.")
    if store in ("lists", "arrays"):
        init = "[]" if store == "lists" else h.pick("None", "np.empty((0, 0))")
        out += ["", "    def __init__(self):", f"        self.{ks} = {init}", f"        self.{vs} = {init}"]
        if h.maybe(0.3):
            out.append("        self.count = 0")
    elif store == "dict":
        out += ["", "    def __init__(self):", f"        self.store = {{'k': [], 'v': []}}"]
    else:
        out += ["", "    def __init__(self):", "        self.items = []"]
    out += ["", "    def append(self, k, v):"] + h.doc("Store one key and one value.", "        ")
    out += h.extras(["k", "v"], "        ") if h.maybe(0.5) else []
    kk, vv = to1d.format("k"), to1d.format("v")
    if store == "lists":
        add = h.pick("self.{0}.append({1})", "self.{0} += [{1}]", "self.{0}.extend([{1}])")
        lines = [f"        {add.format(ks, kk)}", f"        {add.format(vs, vv)}"]
    elif store == "arrays":
        stack = h.pick("np.vstack([{0}, {1}])", "np.concatenate([{0}, {1}])", "np.append({0}, {1}, axis=0)")
        lines = [f"        k = np.atleast_2d({kk})", f"        v = np.atleast_2d({vv})",
                 f"        self.{ks} = k if self.{ks} is None else {stack.format('self.' + ks, 'k')}",
                 f"        self.{vs} = v if self.{vs} is None else {stack.format('self.' + vs, 'v')}"]
    elif store == "dict":
        lines = [f"        self.store['k'].append({kk})", f"        self.store['v'].append({vv})"]
    else:
        lines = [f"        self.items.append(({kk}, {vv}))"]
    if h.maybe(0.5) and len(lines) == 2:
        lines.reverse()
    out += lines
    if "        self.count = 0" in out:
        out.append(h.pick("        self.count += 1", "        self.count = self.count + 1"))
    getter = {"lists": "np.array(self.{0})", "arrays": "self.{0}", "dict": "np.array(self.store['{1}'])",
              "pairs": "np.array([p[{2}] for p in self.items])"}[store]
    blocks = []
    for prop, attr, letter, idx in (("keys", ks, "k", 0), ("values", vs, "v", 1)):
        if h.maybe(0.8):
            blocks.append(["", "    @property", f"    def {prop}(self):"] + h.doc(f"All {prop}.", "        ")
                          + [f"        return {getter.format(attr, letter, idx)}"])
        else:
            blocks.append(["", f"    {prop} = property(lambda self: {getter.format(attr, letter, idx)})"])
    length = {"lists": f"len(self.{ks})", "arrays": f"0 if self.{ks} is None else len(self.{ks})",
              "dict": "len(self.store['k'])", "pairs": "len(self.items)"}[store]
    if "        self.count = 0" in out:
        length = "self.count"
    blocks.append(["", "    def __len__(self):", f"        return {length}"])
    if h.maybe(0.3):
        blocks.append(["", "    def __repr__(self):", f"        return f'KVCache({{len(self)}} tokens)'"])
    if h.maybe(0.2):
        blocks.append(["", "    def clear(self):", "        self.__init__()"])
    h.rng.shuffle(blocks)
    out += [line for block in blocks for line in block] + ["", ""]
    out += ["def decode_step(x_t, W_q, W_k, W_v, cache):"] + h.doc("One decoding step.")
    x = h.name("x", "x_t", "row", "xt")
    if x != "x_t":
        out.append(f"    {x} = " + h.pick("np.atleast_2d(x_t)", "np.asarray(x_t, dtype=float).reshape(1, -1)",
                                          "np.reshape(x_t, (1, -1))", "np.asarray(x_t)[None, :]"))
    else:
        out.append("    x_t = " + h.pick("np.atleast_2d(x_t)", "np.reshape(x_t, (1, -1))", "x_t[None, :]"))
    q, k, v = h.pick(("q", "k", "v"), ("Q", "K", "V"), ("q_t", "k_t", "v_t"))
    if h.maybe(0.6):
        out.append(f"    {q}, {k}, {v} = project_qkv({x}, W_q, W_k, W_v)")
    else:
        lines = [f"    {n} = {h.mm(x, w)}" for n, w in zip((q, k, v), ("W_q", "W_k", "W_v"))]
        h.rng.shuffle(lines)
        out += lines
    out.append(f"    cache.append({k}[0], {v}[0])")
    w = h.name("w", "weights", "attn", "p", "alpha")
    if h.maybe(0.6):
        out.append(f"    {w} = softmax(scaled_scores({q}, cache.keys){h.pick('', ', axis=-1', ', -1')})")
    else:
        s = h.name("s", "scores", "logits")
        out += [f"    {s} = {h.mm(q, h.tr('cache.keys'))} / {h.root(f'{k}.shape[-1]')}",
                f"    {w} = softmax({s})"]
    mix = h.pick(f"weighted_sum({w}, cache.values)", h.mm(w, "cache.values"))
    out += h.ret(f"{mix}[0]" if h.maybe(0.7) else f"np.ravel({mix})")
    return "\n".join(out) + "\n"


EXERCISES = {"project_qkv": project_qkv, "scaled_scores": scaled_scores, "softmax": softmax,
             "weighted_sum": weighted_sum, "self_attention": self_attention, "kv_cache": kv_cache}


# idioms that students write in several ways: each occurrence is written one of them
IDIOMS = [
    (r"(?<![\w.])(\w+) @ (\w+)(?![\w(\[.])", ["{0} @ {1}", "np.dot({0}, {1})", "np.matmul({0}, {1})", "{0}.dot({1})"]),
    (r"np\.sqrt\(([\w.\[\]-]+)\)", ["np.sqrt({0})", "{0} ** 0.5", "math.sqrt({0})", "np.power({0}, 0.5)"]),
    (r"\.reshape\(-1\)", [".reshape(-1)", ".ravel()", ".flatten()", ".reshape((-1,))"]),
    (r"np\.asarray\(", ["np.asarray(", "np.array(", "np.asanyarray("]),
    (r", dtype=float\)", [", dtype=float)", ", dtype=np.float64)", ", float)", ").astype(float)"]),
    (r"(\w+)\.T(?!\w)", ["{0}.T", "{0}.transpose()", "np.transpose({0})", "np.swapaxes({0}, -1, -2)"]),
    (r"np\.sum\((\w+), axis=(\w+|-?\d), keepdims=True\)", ["np.sum({0}, axis={1}, keepdims=True)",
     "{0}.sum(axis={1}, keepdims=True)", "np.expand_dims(np.sum({0}, axis={1}), {1})", "{0}.sum({1}, keepdims=True)"]),
    (r"np\.max\((\w+), axis=(\w+|-?\d), keepdims=True\)", ["np.max({0}, axis={1}, keepdims=True)",
     "{0}.max(axis={1}, keepdims=True)", "np.amax({0}, axis={1}, keepdims=True)", "np.expand_dims({0}.max({1}), {1})"]),
    (r"len\((\w+(?:\.\w+)?)\)", ["len({0})", "{0}.shape[0]", "np.shape({0})[0]", "int(np.size({0}, 0))"]),
    (r"(\w+)\.shape\[-1\]", ["{0}.shape[-1]", "np.shape({0})[-1]", "{0}.shape[{0}.ndim - 1]", "len({0}[0])"]),
    (r"np\.exp\(", ["np.exp(", "np.e ** (", "np.power(np.e, "]),
    (r"([\w.]+)\.append\(([^\n]+)\)$", ["{0}.append({1})", "{0} += [{1}]", "{0}.extend([{1}])"]),
    (r"^(\s*)return ([^\n]+), (\w+)$", ["{0}return {1}, {2}", "{0}return ({1}, {2})",
                                        "{0}pair = ({1}, {2})\n{0}return pair"]),
]


def idioms(source: str, rng: random.Random, p: float = 1.0) -> str:
    """Each occurrence of a common idiom, with probability p, written one of its usual ways."""
    for pattern, forms in IDIOMS:
        source = re.sub(pattern, lambda m: rng.choice(forms).format(*m.groups()) if rng.random() < p else m.group(),
                        source, flags=re.M)
    return source



NOISE = ("print({v})", "assert {v} is not None", "{v} = np.asarray({v})", "print('{v}', np.shape({v}))",
         "assert np.all(np.isfinite({v}))", "{v} = {v}.copy()", "print({v}.shape, {v}.dtype)", "_ = len({v})",
         "if {v} is None:\n{i}    return None", "assert len({v}) > 0, '{v} is empty'", "print(f'{v}={{{v}}}')",
         "{v} = np.nan_to_num({v})", "debug = {v}", "assert not np.any(np.isnan({v}))",
         "if np.ndim({v}) == 0:\n{i}    {v} = np.atleast_1d({v})", "{v} = {v} + 0.0")


def sprinkle(source: str, h: Habits, p: float = 0.3) -> str:
    """Here and there a line of the student's own after an assignment: a print, a check, a conversion."""
    out = []
    for line in source.split("\n"):
        out.append(line)
        m = re.match(r"^(\s+)((?:self\.)?[A-Za-z_]\w*) = ", line)
        if m and h.maybe(p):
            ind, var = m.groups()
            out.append(ind + h.pick(*NOISE).format(v=var, i=ind))
    return "\n".join(out)


def honest_cell(gid: str, habits: Habits) -> str:
    return sprinkle(idioms(EXERCISES[gid](habits), habits.rng, 0.35), habits)
