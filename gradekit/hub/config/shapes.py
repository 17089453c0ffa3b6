"""The shapes of hub ``gradekit hub-config`` writes, by name (see gradekit.hub.config)."""

from __future__ import annotations

from gradekit.hub.config.accounts import Accounts
from gradekit.hub.config.docker import Docker
from gradekit.hub.config.kubernetes import Kubernetes
from gradekit.hub.config.one_account import OneAccount
from gradekit.hub.config.plan import Plan
from gradekit.hub.config.shape import Shape

SHAPES: dict[str, Shape] = {shape.name: shape for shape in (Accounts(), OneAccount(), Docker(), Kubernetes())}


def shape_of(plan: Plan) -> Shape:
    return SHAPES[plan.shape]


def text(plan: Plan) -> str:
    """The shape's main file (jupyterhub_config.py, or values.yaml)."""
    return shape_of(plan).text(plan)


__all__ = ["SHAPES", "Plan", "Shape", "shape_of", "text"]
