"""``gradekit doctor``: the course and its exchange's folders.

the course      source/, autograder/, solutions/, .gradekit/ (the secret, the ledger, the kept
                hand-ins) and the gradebook: no other account may read them
the exchange    the modes of gradekit.exchange.filesystem.layout: a root nobody can rename a course
                out of, an inbound/ nobody lists, releases and feedback pages for one student each,
                submissions that are their student's and the staff's alone (the staff group,
                c.Gradekit.staff_group, may: Formgrader as an instructor who is not root; a group any
                student is in may not)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gradekit.doctor.access import (
    Problem,
    others_can,
    reachable,
    share_line,
    students_can,
    students_groups,
    uid_of,
)
from gradekit.exchange.filesystem import layout


def course_problems(course) -> list[Problem]:
    out: list[Problem] = []
    root = course.root
    groups = students_groups(course)
    staff = str(getattr(course.settings, "staff_group", "") or "")
    if staff:
        gid = layout.staff_gid(staff)
        if gid in groups:
            out.append(
                Problem(
                    f"{', '.join(groups[gid])} (students) are in the staff group {staff}, which reads the course",
                    f"gpasswd -d STUDENT {staff}",
                )
            )
    for path in [root, root / "source", root / "autograder", root / "solutions", root / ".gradekit"]:
        readers = students_can(path, stat.S_IROTH | stat.S_IXOTH, groups) if path.exists() else []
        if readers:
            share = f"; then share it with the staff alone: {share_line(root, staff)}" if staff else ""
            out.append(
                Problem(
                    f"{path.relative_to(root) if path != root else root} can be read by students through a group "
                    f"({', '.join(readers)})",
                    f"setfacl -R -b {root} && chmod -R g-rwx,o-rwx {root}{share}",
                )
            )
            break
    private = [root / "source", root / "autograder", root / "solutions", root / ".gradekit"]
    db = course.db_url.removeprefix("sqlite:///") if course.db_url.startswith("sqlite:///") else None
    if db:
        private.append(Path(db))
    if not reachable(root) or not others_can(root, stat.S_IXOTH):
        return out  # nobody else even gets to the course directory
    for path in private:
        if path.exists() and others_can(path, stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0)):
            name = path.relative_to(root) if path.is_relative_to(root) else path
            out.append(
                Problem(
                    f"{name} can be read by other accounts (the reference, the graders, the secret or the grades)",
                    f"chmod 0700 {root}   # the course directory: the instructor's alone",
                )
            )
            break
    return out


def exchange_problems(course) -> list[Problem]:
    out = []
    root = layout.exchange_root(course)
    here = layout.course_exchange(course)
    if not root.exists():
        return [Problem(f"no exchange at {root}", f"gradekit release ASSIGNMENT (creates {root} 1777)")]
    problem = layout.root_problem(root)
    if problem:
        out.append(Problem(problem, f"chmod 1777 {root}"))
    inbound = here / "inbound"
    if inbound.exists() and layout.mode_of(inbound) != layout.INBOUND_MODE:
        out.append(
            Problem(
                f"{inbound} is {oct(layout.mode_of(inbound) or 0)}, not 3753: students could list or "
                "remove each other's submissions",
                "gradekit release ASSIGNMENT (sets it)",
            )
        )
    for folder in sorted((here / "outbound").glob("*")) if (here / "outbound").is_dir() else []:
        if layout.mode_of(folder) != layout.ASSIGNMENT_MODE:
            out.append(
                Problem(
                    f"{folder} is {oct(layout.mode_of(folder) or 0)}, not 0711: students could list each "
                    "other's releases",
                    f"chmod 0711 {folder}",
                )
            )
        for student in sorted(folder.iterdir()) if os.access(folder, os.R_OK) else []:
            uid = uid_of(student.name)
            if uid is not None and others_can(student, stat.S_IROTH | stat.S_IXOTH, frozenset({uid})):
                out.append(
                    Problem(
                        f"{student} can be read by every account",
                        f"gradekit release {folder.name} --force (as root, or where ACLs work)",
                    )
                )
    feedback = here / "feedback"
    if feedback.exists():
        if layout.mode_of(feedback) not in (layout.FEEDBACK_MODE, None):
            out.append(
                Problem(
                    f"{feedback} is {oct(layout.mode_of(feedback) or 0)}, not 0711: students could list "
                    "the feedback pages",
                    f"chmod 0711 {feedback}",
                )
            )
        readable = [p for p in feedback.glob("*.html") if stat.S_IMODE(p.stat().st_mode) & stat.S_IROTH]
        if readable:
            out.append(
                Problem(
                    f"{len(readable)} feedback page(s) in {feedback} can be read by every account "
                    "(their hashed names are the only secret)",
                    "nbgrader release_feedback ASSIGNMENT as root, or on a file system with ACLs",
                )
            )
    if inbound.exists() and os.access(inbound, os.R_OK):
        open_ones = [
            p
            for p in inbound.iterdir()
            if p.is_dir() and not p.is_symlink() and stat.S_IMODE(os.lstat(p).st_mode) & stat.S_IWOTH
        ]
        if open_ones:
            out.append(
                Problem(
                    f"{len(open_ones)} submission(s) in {inbound} can be changed by every account (handed "
                    "in with nbgrader's own submit)",
                    "gradekit student-config > /etc/jupyter/nbgrader_config.py (gradekit's submit class)",
                )
            )
    return out
