"""Steps: the value is step t of an output built step by step (``check.array(..., step=t)``) whose
earlier steps were right: right for the first t steps, then wrong. Said beside what the values are,
even where a known mistake matched them: it says where the values go wrong, not what they are."""

from __future__ import annotations

from gradekit.graders.relations.family import Evidence, Family
from gradekit.i18n.text import Text, phrase

FIRST_STEP = phrase("your values are right at the first step, then wrong", zh="你的结果第 1 步正确，之后就错了")
STEPS = phrase("your values are right for the first {t} steps, then wrong", zh="你的结果前 {t} 步正确，之后就错了")
SOME_STEPS = phrase(
    "your first steps are right, then a step is wrong (the first wrong one: step {steps})",
    zh="你的结果开头几步正确，后面某一步错了（第一个错的是第 {steps} 步）",
)


class Step(Family):
    name = "step"
    rank = 170
    beside = True

    def search_step(self, evidence: Evidence, subject: str, step: int) -> None:
        evidence.test(f"{subject}|step|some", step >= 1, {"t": step})
        evidence.tested.append(f"{subject}|step|first:*")
        if step >= 1:
            evidence.holds[f"{subject}|step|first:{step}"] = {"t": step}

    def level(self, arg: str) -> int:
        return 1 if arg == "some" else 0

    def sentence(self, arg, relation) -> Text | None:
        steps = relation.details.get("t", [])
        if arg == "some":
            return SOME_STEPS.format(steps=", ".join(str(t + 1) for t in steps[:3]))
        t = int(arg.split(":", 1)[1])
        return FIRST_STEP if t == 1 else STEPS.format(t=t)


FAMILY = Step()
