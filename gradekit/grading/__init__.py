"""Grading one submission: a :class:`Pipeline` of :mod:`stages <gradekit.grading.stages>`.

    options.py    Options: how to grade (light: no pytest, nbgrader or numpy)
    pipeline.py   Pipeline (one per grading process)
    stages.py     NotebookJob, Stage and the default stages, in order

``Pipeline`` and the stages are imported on first use, so that ``Options`` is
cheap for a command that may find nothing to grade.
"""

from gradekit.grading.options import Options

__all__ = ["Options", "Pipeline", "Stage", "NotebookJob", "DEFAULT_STAGES"]


def __getattr__(name: str):
    if name == "Pipeline":
        from gradekit.grading.pipeline import Pipeline

        return Pipeline
    if name in ("Stage", "NotebookJob", "DEFAULT_STAGES"):
        from gradekit.grading import stages

        return getattr(stages, name)
    raise AttributeError(name)
