"""The docs site of gradekit: Sphinx, the furo theme, MyST Markdown pages.

Built with warnings as errors by ``make docs`` (and so by ``make test``)::

    .venv/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

The references are generated from the code: the command line from its argparse parser
(sphinx-argparse), the configuration from the traits of ``c.Gradekit`` (``_ext/gradekit_docs.py``),
the grader API from the docstrings of ``gradekit.graders`` (autodoc).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

project = "gradekit"
author = "the gradekit authors"
copyright = "2026, the gradekit authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinxarg.ext",
    "gradekit_docs",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
# every heading down to ### gets an anchor, so pages can link to a section: [x](page.md#a-section)
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist", "attrs_inline"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "furo"
html_title = "gradekit"
html_static_path: list[str] = []
html_show_sourcelink = False
