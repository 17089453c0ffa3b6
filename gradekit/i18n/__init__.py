"""Everything a student reads, in their language: English and Chinese today.

    text.py       _("..."), Text, Say (grading stores English, notes the translation), View (a page shows it)
    catalogs.py   the gettext catalogs: gradekit/locale/<lang>.po, source/<assignment>/locale/<lang>.po
    cli.py        ``python -m gradekit.i18n compile``: the stale catalogs compiled (what ``make`` runs)

Which student reads which language is the course's (:mod:`gradekit.authoring.languages`);
the message ids an author translates are :mod:`gradekit.authoring.translation`.

A grader marks a text for translation with ``_``::

    from gradekit.i18n import _

    MISTAKES = {_("divided by the variance"): ...}
    raise check.Mismatch(_("{what}: wrong answer").format(what=what))

The command line stays English: it is the instructor's.
"""

from gradekit.i18n.text import N_, Text, _, join  # what a course imports; the rest from the modules

__all__ = ["_", "N_", "Text", "join"]
