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
    """Import jsonschema without the optional packages its format checkers use.

    nbformat imports jsonschema, and jsonschema's ``_format`` module imports,
    when they are installed (they arrive with Jupyter), a package per string
    format: rfc3987_syntax (which builds a lark grammar on import: 1.4 s),
    rfc3986_validator, isoduration with arrow and dateutil, webcolors... --
    a fifth of a second of every process that reads a notebook. Neither
    nbformat's schemas nor gradekit check string formats. While (and only
    while) ``jsonschema._format`` executes, those imports fail fast, so
    jsonschema simply leaves those formats out; afterwards they import as usual.
    """
    import importlib.machinery
    import sys

    class _PlainFormats:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != "jsonschema._format":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or not hasattr(spec.loader, "exec_module"):
                return spec
            assert spec.loader is not None  # it has exec_module
            execute = spec.loader.exec_module

            def exec_module(module):
                blocked = [n for n in _FORMAT_PACKAGES if n not in sys.modules]
                for n in blocked:
                    sys.modules[n] = None  # type: ignore[assignment]  # None: an import of it fails at once
                try:
                    execute(module)
                finally:
                    for n in blocked:
                        if n in sys.modules and sys.modules[n] is None:
                            del sys.modules[n]

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    if not any(type(f).__name__ == "_PlainFormats" for f in sys.meta_path):
        sys.meta_path.insert(0, _PlainFormats())


_FORMAT_PACKAGES = (
    "fqdn",
    "idna",
    "rfc3987",
    "rfc3986_validator",
    "rfc3987_syntax",
    "rfc3339_validator",
    "webcolors",
    "jsonpointer",
    "uri_template",
    "isoduration",
)

_skip_slow_optional_imports()
