"""The ``gradekit`` command. The course root is the current directory.

Every failure gradekit foresees is a GradekitError: one line on stderr and a
non-zero exit status, 2 for a mistake in the command or its input, 3 for a
broken course or machine (see :mod:`gradekit.errors`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gradekit.errors import GradekitError, UsageError


def _course(args):
    from gradekit.course import Course

    return Course.load(args.course)


def cmd_generate(args) -> int:
    from gradekit.release import generate

    course = _course(args)
    students = _class(course, args)
    paths = generate(course, args.assignment, students)
    print(f"{args.assignment}: released {len(paths)} notebook(s) for {len(students)} student(s) "
          f"in {course.root / 'release'}")
    _warn_untranslated(course, args.assignment, students)
    return 0


def _class(course, args) -> list[str]:
    """The students named with --student (each in the gradebook), else the gradebook's: at least one."""
    from gradekit import gradebook

    course.source_of(args.assignment)
    students = gradebook.check_students(course, args.student) if args.student else gradebook.students(course)
    if not students:
        raise UsageError("no students in the gradebook: add them with `nbgrader db student import roster.csv` "
                         "(or `nbgrader db student add ID`), then run this again")
    return students


def _warn_untranslated(course, assignment: str, students: list[str]) -> None:
    """A line on stderr for each language some students read that the assignment's catalog
    leaves (partly) in English."""
    from gradekit.i18n.languages_csv import untranslated

    for language, (readers, left) in untranslated(course, assignment, students).items():
        po = f"source/{assignment}/locale/{language}.po"
        what = f"{assignment} has no {po}: their notebooks are in English" if left is None else \
            f"{po} leaves {left} text(s) untranslated or fuzzy: those are in English"
        print(f"warning: {readers} student(s) read {language}, but {what}. `gradekit translate {assignment} "
              f"--language {language}` lists them; translate them and generate again.", file=sys.stderr)


def cmd_answer_key(args) -> int:
    from gradekit import gradebook
    from gradekit.release import answer_key

    course = _course(args)
    gradebook.check_students(course, [args.student])
    paths = answer_key(course, args.assignment, args.student, Path(args.out))
    for path in paths:
        print(path)
    return 0


def cmd_autograde(args) -> int:
    from gradekit.autograde import Options, autograde_class

    course = _course(args)
    course.source_dir(args.assignment)  # a valid id
    if args.no_sandbox:
        print("WARNING: --no-sandbox: student code runs UNCONFINED, with your rights, "
              "able to read and change your files. Use only for code you trust.", file=sys.stderr)
    options = Options(sandboxed=not args.no_sandbox, jobs=args.jobs, force=args.force, scheduler=args.scheduler)
    autograde_class(course, args.assignment, args.student, options, wide=args.wide)
    return 0


def cmd_feedback(args) -> int:
    from gradekit.feedback import write_class_feedback

    course = _course(args)
    count = write_class_feedback(course, args.assignment, args.student)
    print(f"wrote {count} feedback page(s) in {course.root / 'feedback'}")
    return 0


def cmd_report(args) -> int:
    from gradekit.report import write_report

    course = _course(args)
    written = write_report(course, args.assignment)
    counts = written.report["class"]
    print(f"{args.assignment}: class report of {counts['graded']} graded submission(s) "
          f"({counts['not_gradable']} not gradable, {counts['not_submitted']} not submitted)")
    print(f"  {written.html}")
    print(f"  {written.json.name} and {written.csv.name} beside it")
    if written.missing_feedback:
        print(f"  {written.missing_feedback} student(s) have no feedback page yet for the report to link to: "
              f"run `gradekit feedback {args.assignment}`")
    return 0


def cmd_release(args) -> int:
    from gradekit.release import generate

    course = _course(args)
    students = _class(course, args)
    generate(course, args.assignment, students)
    _warn_untranslated(course, args.assignment, students)
    if args.zip:
        from gradekit.lms import write_release_zips

        write_release_zips(course, args.assignment, students, Path(args.zip))
        print(f"{args.assignment}: one notebook and one zip per student for {len(students)} student(s) "
              f"in {args.zip} (index.csv lists them)")
        return 0
    from gradekit.exchange import release

    done = {}
    for student in students if args.student else [None]:
        done.update(release(course, args.assignment, force=args.force, student=student).protection)
    kinds = {k: sum(1 for v in done.values() if v == k) for k in sorted(set(done.values()))}
    print(f"{args.assignment}: released {len(done)} personal variant(s) to the nbgrader exchange "
          f"({', '.join(f'{n} {k}' for k, n in kinds.items())})")
    return 0


def cmd_collect(args) -> int:
    from gradekit.lms import collect_zip

    report = collect_zip(_course(args), args.assignment, Path(args.archive),
                         Path(args.roster) if args.roster else None, args.match, args.timezone)
    for line in report.lines():
        print(line)
    return 0


def cmd_integrity(args) -> int:
    import json

    from gradekit.course import check_id
    from gradekit.integrity import check
    from gradekit.integrity.report import print_table, write_reports

    course = _course(args)
    findings = check(course, args.assignment)
    json_path, html_path = write_reports(course.root / "reports" / check_id("assignment", args.assignment), findings)
    if (json_path.parent / "index.html").is_file():   # the class report gains (or updates) its integrity section
        from gradekit.report import write_report

        write_report(course, args.assignment)
    if args.json:
        print(json.dumps(findings.pairs, indent=1, ensure_ascii=False))
        return 0
    print_table(findings)
    print(f"{len(findings.students)} submission(s) compared in {findings.seconds:.1f} s; "
          f"wrote {html_path} and {json_path.name}")
    return 0


def cmd_new(args) -> int:
    from gradekit.scaffold import new_assignment

    course = _course(args)
    paths = new_assignment(course, args.assignment, args.template)
    for path in paths:
        print(path.relative_to(course.root))
    origin = f"a copy of {args.template}" if args.template else "one example exercise and one question"
    print(f"{args.assignment}: {len(paths)} file(s), {origin}. Edit them, checking as you go with "
          f"`gradekit check {args.assignment}`; then `gradekit generate {args.assignment}` hands them out")
    return 0


def cmd_check(args) -> int:
    from gradekit.qa import check_assignment, print_report

    course = _course(args)
    course.source_of(args.assignment)
    if args.students < 1 or args.jobs < 0:
        raise UsageError("--students must be at least 1 and --jobs at least 0")
    if not args.no_sandbox:
        from gradekit.autograde import Options, check_sandbox

        check_sandbox(Options())
    report = check_assignment(course, args.assignment, students=args.students, jobs=args.jobs,
                              sandboxed=not args.no_sandbox)
    print_report(report)
    return 0 if report.ok else 1


def cmd_translate(args) -> int:
    from gradekit.i18n.cli import translate

    return translate(None if args.gradekit else _course(args), args.assignment, args.language, args.check)


def cmd_demo(args) -> int:
    from gradekit.demo import run_demo

    return run_demo(keep=args.keep, students=args.students, sandboxed=not args.no_sandbox)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gradekit", description=(
        "Autograded assignments with every student's own numbers: generate and release the variants, grade "
        "the class in sandboxes with hidden graders, write feedback, the class report and copy detection. "
        "Run it in the course directory (or give --course). Exit status: 0 done, 1 a check failed, "
        "2 a mistake in the command or its input, 3 a broken course or machine."))
    parser.add_argument("--course", default=".", help="course directory (default: the current one)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("generate", help="write each student's own release notebooks")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[], help="only these students (repeatable)")
    p.set_defaults(run=cmd_generate)

    p = sub.add_parser("answer-key", help="one student's notebooks with the solutions filled in")
    p.add_argument("assignment")
    p.add_argument("--student", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(run=cmd_answer_key)

    p = sub.add_parser("autograde", help="grade submitted/<student>/<assignment>/ into the gradebook")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[])
    p.add_argument("--jobs", type=int, default=0, help="parallel graders (default: one per core)")
    p.add_argument("--no-sandbox", action="store_true", help="run student code without bubblewrap (unsafe)")
    p.add_argument("--force", action="store_true", help="regrade submissions that have not changed")
    p.add_argument("--wide", action="store_true", help="the summary with one column per graded cell "
                   "(default: one per notebook, to fit 100 columns)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="grade on this Dask distributed cluster (workers must see the course directory)")
    p.set_defaults(run=cmd_autograde)

    p = sub.add_parser("feedback", help="write feedback/<student>/<assignment>/*.html")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[])
    p.set_defaults(run=cmd_feedback)

    p = sub.add_parser("report", help="the class report: reports/<assignment>/index.html, report.json, report.csv")
    p.add_argument("assignment")
    p.set_defaults(run=cmd_report)

    p = sub.add_parser("release", help="each student's own variant into nbgrader's exchange (or --zip DIR)")
    p.add_argument("assignment")
    p.add_argument("--student", action="append", default=[], help="only these students (repeatable)")
    p.add_argument("--force", action="store_true", help="replace what is already in the exchange")
    p.add_argument("--zip", metavar="DIR", help="write DIR/<student>/*.ipynb and DIR/<assignment>_<student>.zip instead")
    p.set_defaults(run=cmd_release)

    p = sub.add_parser("collect", help="import an LMS bulk download (Canvas, Moodle zip) into submitted/")
    p.add_argument("assignment")
    p.add_argument("archive", metavar="SUBMISSIONS.zip")
    p.add_argument("--roster", metavar="CSV", help="a CSV with an id column and the --match column "
                   "(default: the gradebook's students)")
    p.add_argument("--match", default="id", choices=["id", "email", "lms_user_id"],
                   help="the roster column the file names carry (default: id)")
    p.add_argument("--timezone", default="UTC", help="time zone of the zip's file dates (default: UTC)")
    p.set_defaults(run=cmd_collect)

    p = sub.add_parser("integrity", help="copy detection: pairs of submissions that share what should be "
                       "one student's own (never changes a grade)")
    p.add_argument("assignment")
    p.add_argument("--json", action="store_true", help="print the flagged pairs as JSON instead of a table")
    p.set_defaults(run=cmd_integrity)

    p = sub.add_parser("new", help="start an assignment that grades at once (or a copy of an existing one)")
    p.add_argument("assignment")
    p.add_argument("--from", dest="template", metavar="EXISTING", help="copy this assignment instead")
    p.set_defaults(run=cmd_new)

    p = sub.add_parser("check", help="grade a simulated class and check the assignment's graders (QA)")
    p.add_argument("assignment")
    p.add_argument("--students", type=int, default=20, help="simulated students (default: 20)")
    p.add_argument("--jobs", type=int, default=0, help="parallel graders (default: one per core)")
    p.add_argument("--no-sandbox", action="store_true", help="run the QA set's code without bubblewrap")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("translate", help="bring ASSIGNMENT's catalog for a language in step with its texts "
                                         "(source/<assignment>/locale/<lang>.po) and list what is left to translate")
    p.add_argument("assignment", nargs="?")
    p.add_argument("--language", required=True, help="a language code, e.g. zh")
    p.add_argument("--gradekit", action="store_true", help="gradekit's own catalog instead (gradekit/locale/)")
    p.add_argument("--check", action="store_true", help="change nothing: exit 1 if anything is left to translate")
    p.set_defaults(run=cmd_translate)

    p = sub.add_parser("demo", help="run a simulated class through the whole pipeline")
    p.add_argument("--keep", metavar="DIR", help="build the demo course here and keep it")
    p.add_argument("--students", type=int, default=30)
    p.add_argument("--no-sandbox", action="store_true")
    p.set_defaults(run=cmd_demo)
    return parser


def _one_blas_thread() -> None:
    """numpy's BLAS starts a thread per core on import, which spins while it waits for work: a
    tenth of a CPU second of every gradekit process that imports numpy, for nothing -- they compute
    on small arrays, one process per core. A setting of the user's own is kept."""
    import os

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def main(argv: list[str] | None = None) -> int:
    from gradekit.timeline import mark

    mark("coordinator", "main")
    _one_blas_thread()
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except GradekitError as exc:
        print(f"gradekit: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("gradekit: interrupted; results recorded so far are kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
