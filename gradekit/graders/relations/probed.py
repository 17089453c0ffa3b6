"""Right when, and what changes: the student's function called on inputs the engine derives from the failed check's, one
thing changed at a time (:mod:`.probing`), and compared with the reference on the same inputs -- "your
values are right when every column of X has mean 0", "right when the inputs have only their first 2
rows"; and on inputs changed one way (doubled, plus 1, each column shifted, the rows in another
order), compared with its own value where the right one stays the same or follows the change -- "your
values change when the rows of X and y are put in another order; the right ones do not". Where the
answer is right says where the mistake lives, never what the right values are.

All of a check's probes go to the sandbox in one request; the reference is called on each here. A
probe on which the reference gives nothing to compare (non-finite values, or all zeros: every
mistake that scales is right there) is not asked.
"""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import probing, words
from gradekit.graders.relations.family import Cost, Family, Whole
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

RIGHT_WHEN = phrase("your values are right when {condition}", zh="当 {condition} 时，你的结果是对的")
CONDITIONS = {
    "centred": phrase("every column of {name} has mean 0", zh="{name} 的每一列均值都是 0"),
    "centred_1d": phrase("{name} has mean 0", zh="{name} 的均值是 0"),
    "centred_all": phrase("{names} have mean 0", zh="{names} 的均值都是 0"),
    "centred_every": phrase(
        "every input has mean 0 (each column of a table)", zh="每个输入的均值都是 0（表格则每一列）"
    ),
    "standard_every": phrase(
        "every input has mean 0 and standard deviation 1 (each column of a table)",
        zh="每个输入的均值都为 0、标准差都为 1（表格则每一列）",
    ),
    "centred_all_2d": phrase("every column of {names} has mean 0", zh="{names} 的每一列均值都是 0"),
    "standard": phrase(
        "every column of {name} has mean 0 and standard deviation 1", zh="{name} 的每一列均值为 0、标准差为 1"
    ),
    "standard_1d": phrase("{name} has mean 0 and standard deviation 1", zh="{name} 的均值为 0、标准差为 1"),
    "standard_all": phrase("{names} have mean 0 and standard deviation 1", zh="{names} 的均值都为 0、标准差都为 1"),
    "standard_all_2d": phrase(
        "every column of {names} has mean 0 and standard deviation 1", zh="{names} 的每一列均值都为 0、标准差都为 1"
    ),
    "rows": phrase("the inputs keep only their first {k} rows", zh="输入只保留前 {k} 行"),
    "row": phrase("the inputs keep only their first row", zh="输入只保留第一行"),
    "set": phrase("{name} = {value}", zh="{name} = {value}"),
    "zeros": phrase("{name} is all zeros", zh="{name} 全是 0"),
    "ones": phrase("{name} is all ones", zh="{name} 全是 1"),
    "identity": phrase("{name} is the identity matrix", zh="{name} 是单位矩阵"),
}
SAME = phrase(
    "your values change when {change}; the right ones do not", zh="当 {change} 时，你的结果变了，而正确结果不变"
)
FOLLOW = phrase(
    "when {change}, the right values {follow}; yours do not", zh="当 {change} 时，正确结果{follow}，你的结果却没有"
)
CHANGES = {
    "double": phrase("{name} is doubled", zh="{name} 乘以 2"),
    "shift": phrase("1 is added to every entry of {name}", zh="{name} 的每个元素都加 1"),
    "shiftcols": phrase(
        "each column of {name} is shifted by a constant of its own", zh="{name} 的每一列各加上一个自己的常数"
    ),
    "order": phrase("the rows of {names} are put in another order", zh="{names} 的各行换了顺序"),
}
FOLLOWS = {
    "double": phrase("double", zh="也乘以 2"),
    "order": phrase("are reordered with them", zh="也跟着换了顺序"),
}
# the probes in the order they are preferred when several hold: the nearest to the grader's own input first
ORDER = ("centred", "standard", "rows", "set", "zeros", "ones", "identity")
INVARIANCES = ("order", "shiftcols", "shift", "double")


class Probed(Family):
    name = "probed"
    rank = 165  # after independence: "did not change when X changed" says more than "does not double"
    cost = Cost(reference=32, student=24)  # a centred probe is asked on two inputs

    def search_call(self, whole: Whole) -> None:
        if whole.call.student is None or not whole.wants(self):
            return
        # (kind, probe, the reference's value on each of its inputs); a probe may be asked on several
        # inputs (probing.further) and holds only where the student is right on every one
        asked: list[tuple[str, str, list[list[np.ndarray]]]] = []
        calls: list[list] = []
        for kind, probe, changes in _probes(whole):
            more = probing.further(probe, whole.inputs) if kind == "right" else []
            if more is None:
                continue
            every = [changes, *more]
            if len(calls) + len(every) > self.cost.student:
                break
            rights = []
            for one in every:
                right = whole.reference(self, whole.inputs.args_with(**one))
                if right is None or (kind == "right" and not _telling(right, whole)):
                    break
                rights.append(right)
            if len(rights) < len(every):
                continue
            if kind != "right":
                kind = _kind(probe, rights[0], whole) or ""
                if not kind or not whole.wants(self, f"{kind}:{probe}"):
                    continue
            asked.append((kind, probe, rights))
            calls += [whole.inputs.args_with(**one) for one in every]
        if not calls:
            return
        answers = whole.student(self, calls)
        at = 0
        for kind, probe, rights in asked:
            theirs = answers[at : at + len(rights)]
            at += len(rights)
            got = [parts for parts in theirs if parts is not None]
            if len(got) == len(rights):
                self._record(whole, kind, probe, rights, got)

    def _record(
        self, whole: Whole, kind: str, probe: str, rights: list[list[np.ndarray]], answers: list[list[np.ndarray]]
    ) -> None:
        """What the student's answers on a probe's inputs show, of each wrong part (and of all of them)."""
        held = []
        for i in whole.failed:
            if kind == "right":
                holds = all(_same(parts[i], right[i], whole.tol) for parts, right in zip(answers, rights, strict=True))
            else:  # the student's value changed where the right one did not, or did not follow it
                expected = whole.got[i] if kind == "same" else _moved(probe, whole.got[i])
                holds = expected is not None and not _same(answers[0][i], expected, whole.tol)
            if holds:
                held.append(i)
            whole.evidence.test(f"{whole.subjects[i]}|{self.name}|{kind}:{probe}", holds, _detail(probe, whole))
        if kind == "right" and (whole.partly or len(whole.got) > 1):
            key = f"{whole.subject}|{self.name}|{kind}:{probe}"
            whole.evidence.test(key, len(held) == len(whole.failed), _detail(probe, whole))

    def prefer(self, arg: str, details: list[dict]) -> float:
        kind, probe = arg.split(":", 1)
        first = probe.split(":", 1)[0]
        if kind != "right":
            return float(len(ORDER) + 1 + INVARIANCES.index(first)) if first in INVARIANCES else 99.0
        if first == "rows":  # the more rows it is right on, the nearer the grader's input
            return float(ORDER.index(first)) + 1.0 / (1.0 + int(probe.split(":")[1]))
        return float(ORDER.index(first)) if first in ORDER else float(len(ORDER))

    def alias(self, arg: str, detail: dict) -> str:
        return arg

    def specific(self, arg: str) -> bool:
        return False  # where the values are right, not what they are: what they are may still be found

    def sentence(self, arg, relation) -> Text | None:
        kind, probe = arg.split(":", 1)
        if kind == "right":
            names = (relation.details.get("names") or [[]])[0]
            condition = condition_of(probe, (relation.details.get("ndim") or [2])[0], names)
            return RIGHT_WHEN.format(condition=condition) if condition is not None else None
        change = change_of(probe)
        if change is None:
            return None
        if kind == "same":
            return SAME.format(change=change)
        follow = FOLLOWS.get(probe.split(":", 1)[0])
        return FOLLOW.format(change=change, follow=follow) if follow is not None else None


def _probes(whole: Whole):
    """(kind, probe, changed arguments): the probes whose answer is compared with the reference's
    ("right"), then those compared with the student's own value ("" until the reference says which)."""
    for probe, changes in probing.right_when(whole.inputs):
        if whole.wants(FAMILY, f"right:{probe}"):
            yield "right", probe, changes
    for probe, changes in probing.invariances(whole.inputs):
        if whole.wants(FAMILY, f"same:{probe}") or whole.wants(FAMILY, f"follow:{probe}"):
            yield "", probe, changes


def condition_of(probe: str, ndim: int = 2, names: list[str] | None = None):
    """The words of a probe's condition ("every column of X has mean 0"; of a vector, "x has mean 0")."""
    kind, _sep, rest = probe.partition(":")
    if kind in ("centred", "standard"):
        if rest == "*" and not names:  # a rival's words, without its own details: every input
            return CONDITIONS[f"{kind}_every"]
        if rest == "*":
            return CONDITIONS[f"{kind}_all" + ("_2d" if ndim >= 2 else "")].format(names=words.names(list(names or [])))
        return CONDITIONS[kind if ndim >= 2 else f"{kind}_1d"].format(name=rest)
    if kind == "rows":
        return CONDITIONS["row"] if rest == "1" else CONDITIONS["rows"].format(k=rest)
    if kind == "set":
        name, _sep, value = rest.partition("=")
        return CONDITIONS["set"].format(name=name, value=value)
    if kind in ("zeros", "ones", "identity"):
        return CONDITIONS[kind].format(name=rest)
    return None


def _detail(probe: str, whole: Whole) -> dict | None:
    """What the sentence needs of a probe: the number of axes of the input it centres."""
    kind, _sep, key = probe.partition(":")
    if kind in ("centred", "standard") and key in whole.inputs.arrays:
        return {"ndim": whole.inputs.arrays[key].ndim}
    if kind in ("centred", "standard") and key == "*":
        moved = [k for k, a in probing.tables(whole.inputs).items() if a.shape[0] >= 2]
        return {"ndim": max(whole.inputs.arrays[k].ndim for k in moved), "names": moved}
    return None


def _telling(right: list[np.ndarray], whole: Whole) -> bool:
    """Whether the reference's value on a probe can tell a right answer from a wrong one: finite, and
    not all zeros on the parts that are wrong."""
    for i in whole.failed:
        r = right[i]
        if r.shape != whole.expected[i].shape and r.ndim == 0:
            return False
        if not np.all(np.isfinite(r)) or not np.any(np.abs(r) > whole.tol[1]):
            return False
    return True


def _same(a: np.ndarray, b: np.ndarray, tol) -> bool:
    return a.shape == b.shape and close(a, b, tol)


def change_of(probe: str):
    kind, _sep, rest = probe.partition(":")
    if kind == "order":
        from gradekit.graders.relations import words

        return CHANGES["order"].format(names=words.names(rest.split("+")))
    said = CHANGES.get(kind)
    return said.format(name=rest) if said is not None else None


def _kind(probe: str, right: list[np.ndarray], whole: Whole) -> str | None:
    """ "same" when the right values do not change with the probe, "follow" when they change as it
    says (doubled, reordered); None when neither (nothing the student's can be held to)."""
    kinds = set()
    for i in whole.failed:
        R, T = whole.expected[i], right[i]
        if T.shape == R.shape and close(T, R, whole.tol):
            kinds.add("same")
            continue
        moved = _moved(probe, R)
        if moved is not None and T.shape == moved.shape and close(T, moved, whole.tol):
            kinds.add("follow")
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def _moved(probe: str, value: np.ndarray) -> np.ndarray | None:
    """What a value that follows the probe becomes: doubled, or its rows reordered as the inputs' were."""
    kind = probe.split(":", 1)[0]
    if kind == "double":
        return 2.0 * value
    if kind == "order" and value.ndim >= 1 and value.shape[0] >= 3:
        return value[::-1]
    return None


FAMILY = Probed()
