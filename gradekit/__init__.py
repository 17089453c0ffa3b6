"""gradekit: per-student variants, sandboxed pytest graders, nbgrader's gradebook.

The package reads as the data flow of one assignment::

    course      -- the course directory, nbgrader_config.py, the course secret
    template    -- an assignment's source: jinja2 notebooks + params generator
    variant     -- seed from (secret, course, assignment, student) -> rendered notebooks
    release     -- strip solutions / hidden tests with nbgrader's preprocessors
    submission  -- read a submitted notebook, restore locked cells from the variant
    sandbox/    -- run the student's cells in bubblewrap; a narrow array protocol
    graders/    -- the hidden pytest graders, their fixtures and checks
    results     -- typed results: one currency from graders to gradebook and feedback
    gradebook   -- write results into nbgrader's Gradebook
    sections    -- exercise titles: the notebook heading each graded cell sits under
    page        -- the one look of the HTML pages (style, fonts, how points are written)
    feedback    -- per-student HTML
    terminal    -- progress bar and summary table while grading
    report/     -- the class report (HTML with inline SVG plots, JSON, CSV)
    autograde   -- the pipeline that ties the stages together for a class
"""

__version__ = "0.1.0"


def _skip_slow_optional_imports() -> None:
    """Keep jsonschema from importing rfc3987_syntax, which builds a lark grammar on import.

    nbformat imports jsonschema, and jsonschema's format checker imports
    rfc3987_syntax when it is installed (it arrives with jupyter-events): 1.4 s
    for every process that reads a notebook. Only the "iri" formats use it, and
    notebooks do not. A ``None`` entry in sys.modules makes that optional
    import fail fast, so jsonschema simply skips those two formats.
    """
    import sys

    sys.modules.setdefault("rfc3987_syntax", None)


_skip_slow_optional_imports()
