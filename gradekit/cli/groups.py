"""``gradekit groups ASSIGNMENT CELL``: the class's answers to one question, in groups that say the same thing."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "groups",
        help="group the class's answers to one question (free text by meaning, code by its tokens, numbers by "
        "the mistake they match), largest group first, each with its typical answer",
    )
    p.add_argument("assignment")
    p.add_argument("cell", help="the grade id of a manually graded cell (or of an autograded answer)")
    p.add_argument("--json", action="store_true", help='print [{"group", "students", "size", "sample"}] as JSON')
    p.set_defaults(run=run)


def run(args) -> int:
    import json

    from gradekit.extras import require
    from gradekit.manual import answers, glossary, groups
    from gradekit.untrusted import require_id, shown

    require("groups", "grouping answers (gradekit groups)")
    course = course_of(args)
    require_id("assignment", args.assignment)
    course.source_of(args.assignment)
    q = answers.question(course, args.assignment, args.cell)
    found = answers.read_answers(course, args.assignment, q)
    texts = [a.text for a in found.answers]
    made = groups.for_answers(
        q.kind,
        texts,
        [a.verdict for a in found.answers],
        glossary=glossary.for_cell(course.graders_dir(args.assignment), q.cell),
    )
    rows: list[dict] = []
    for number, group in enumerate(made, 1):
        students = [found.answers[i].student for i in group.members]
        row = {"group": number, "students": students, "size": len(students), "sample": texts[group.typical]}
        if group.kind:
            row["kind"] = group.kind
        if group.label:
            row["label"] = group.label
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return 0
    print(f"{q.cell} ({q.kind}, {q.notebook}): {len(texts)} answers in {len(rows)} groups")
    for row in rows:
        sample = " ".join(str(row["sample"]).split()) or "(empty)"
        label = f" [{row.get('label') or row.get('kind')}]" if row.get("kind") else ""
        print(f"{row['group']:>4}  {row['size']:>5}{label}  {shown(sample, 90)}")
    return 0
