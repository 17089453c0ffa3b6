"""A grader who knows the kind of every answer, driving the grading page in a browser and counting
every action (a key press or a click) -- the bench's measure and the browser tests' hands.

    robot = Robot(page, kinds, items)      # kinds: student -> kind; items: kind -> rubric item text (None: right)
    robot.make_rubric(spec)                # [(points, sentence, translation)] through the new-item form
    robot.grade_question()                 # every group: the typical answer's kind, then each misfit fixed

Grading a group is one action: the key of the item its typical answer deserves, or Enter for
a right one. Each answer in it of another kind then costs a click to select it, a key to take
the group's item away (when there was one) and a key (or Enter) for its own.
"""

from __future__ import annotations


class Robot:
    def __init__(self, page, kinds: dict[str, str], items: dict[str, str | None]):
        self.page, self.kinds, self.items = page, kinds, items
        self.actions = 0
        self.keys: dict[str, str] = {}  # kind -> the key of its item

    def act(self, what: str, *args) -> None:
        self.actions += 1
        if what == "press":
            self.page.keyboard.press(args[0])
        else:
            self.page.click(args[0])
        self.settle()

    def settle(self) -> None:
        self.page.wait_for_selector("body[data-busy='0']", state="attached")

    def make_rubric(self, spec: list[tuple[str, float, str, str]]) -> None:
        """spec: (kind, points, sentence, translation) per item, in key order."""
        self.page.click("#new summary")
        self.actions += 1
        for n, (kind, points, sentence, translation) in enumerate(spec, 1):
            form = self.page.locator("#new-form")
            form.locator("input[name=points]").fill(str(points))
            form.locator("textarea[name=text]").fill(sentence)
            form.locator("textarea[name=translation]").fill(translation)
            form.locator("button.save").click()
            self.actions += 4  # points, sentence, translation, save
            self.settle()
            self.page.wait_for_selector(f"#items .item:nth-child({n})")
            self.keys[kind] = str(n)

    def key_for(self, kind: str) -> str:
        return self.keys.get(kind, "Enter") if self.items.get(kind) else "Enter"

    def group_ids(self) -> list[str]:
        return self.page.eval_on_selector_all(".g", "els => els.map(e => e.dataset.group)")

    def grade_question(self, limit: int | None = None) -> None:
        for gid in self.group_ids()[:limit]:
            if self.page.get_attribute(".g.sel", "data-group") != gid:
                self.act("click", f'.g[data-group="{gid}"]')
            self._show_all()
            members = self.page.eval_on_selector_all(".ans", "els => els.map(e => e.dataset.student)")
            key = self.key_for(self.kinds[members[0]])
            misfits = [s for s in members[1:] if self.key_for(self.kinds[s]) != key]
            if key == "Enter" and not misfits:
                self.act("press", "Enter")  # graded as it is, and on to the next group
                continue
            if key == "Enter":
                self.act("click", "#grade-as-is")  # stays on this group for its misfits
            else:
                self.act("press", key)
            for student in misfits:
                own = self.key_for(self.kinds[student])
                box = f'.ans[data-student="{student}"] input[type=checkbox]'
                self.act("click", box)
                if key != "Enter":
                    self.act("press", key)  # takes the group's item away from this answer
                if own != "Enter":
                    self.act("press", own)
                self.act("click", box)  # unselected again

    def _show_all(self) -> None:
        while self.page.locator("#more").count():
            self.page.click("#more")  # reading more answers is not a grading decision: not counted
            self.settle()
