"""``gradekit integrity ASSIGNMENT``: copy detection, as a table and reports/<assignment>/integrity.html."""

from __future__ import annotations

from gradekit.cli.common import course_of


def add_parser(sub) -> None:
    p = sub.add_parser(
        "integrity",
        help="copy detection: pairs of submissions that share what should be one student's own (never changes a grade)",
    )
    p.add_argument("assignment")
    p.add_argument("--json", action="store_true", help="print the flagged pairs as JSON instead of a table")
    p.set_defaults(run=run)


def run(args) -> int:
    import json

    from gradekit.integrity.detect import detect
    from gradekit.integrity.report import print_table, write_reports
    from gradekit.untrusted import require_id

    course = course_of(args)
    findings = detect(course, args.assignment)
    json_path, html_path = write_reports(course.root / "reports" / require_id("assignment", args.assignment), findings)
    if (json_path.parent / "index.html").is_file():  # the class report gains (or updates) its integrity section
        from gradekit.pages.report.build import write_report

        write_report(course, args.assignment)
    if args.json:
        print(json.dumps(findings.pairs, indent=1, ensure_ascii=False))
        return 0
    print_table(findings)
    print(
        f"{len(findings.students)} submission(s) compared in {findings.seconds:.1f} s; "
        f"wrote {html_path} and {json_path.name}"
    )
    return 0
