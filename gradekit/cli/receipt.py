"""``gradekit receipt CHECK``: is this a receipt of this course, and what was handed in with it?"""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser("receipt", help="check a receipt a student shows: made by this course? which hand-in?")
    p.add_argument("receipt", metavar="CHECK", help="the receipt, as the student's feedback page gives it")
    p.set_defaults(run=run)


def run(args) -> int:
    from gradekit.exchange import receipts
    from gradekit.exchange.ledger import LEDGER, Ledger

    course = course_of(args)
    found = receipts.verify(course.secret(), course.course_id, args.receipt)
    if found is None:
        print("not a receipt of this course: it was not made with this course's secret, or it was changed")
        return 1
    what = (
        f"{found.student}'s hand-in {found.number} of {found.assignment}, counted at "
        f"{found.counted:%Y-%m-%d %H:%M:%S} UTC, files {found.sha256}"
    )
    entry = kept = None
    if (course.root / LEDGER).exists():
        with Ledger(course) as ledger:
            entry = ledger.find(args.receipt.strip())
            kept = ledger.kept_path(entry) if entry is not None else None
    if entry is None:
        print(f"a receipt of this course: {what}; no hand-in with it is on record here")
        return 1
    it = (
        f"{entry.ref.place}, handed in by the hub user {entry.account}"
        if entry.ref.exchange == "hub"
        else f"the hand-in {entry.ref.place} on record"
    )
    print(f"a receipt of this course: {what}; it is {it} (SHA-256 {entry.sha256}, kept as {kept})")
    return 0
