"""Grading one submission: a :class:`Pipeline` of :mod:`stages <gradekit.grading.stages>`.

    pipeline.py   Pipeline (one per grading process) and Options
    stages.py     NotebookJob, Stage and the default stages, in order
"""

from .pipeline import Options, Pipeline
from .stages import DEFAULT_STAGES, NotebookJob, Stage

__all__ = ["Options", "Pipeline", "Stage", "NotebookJob", "DEFAULT_STAGES"]
