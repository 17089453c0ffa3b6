"""gradekit.results: the typed currency's plain-data form."""

from __future__ import annotations

import dataclasses
import json
import types
import typing

from hypothesis import given, settings, strategies as st

from gradekit.results import SubmissionResult


def strategy(kind):
    """Values of an annotated type: the results' dataclasses, built field by field (so a field
    added to a result is covered without changing this test)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        return st.builds(kind, **{f.name: strategy(hints[f.name]) for f in dataclasses.fields(kind) if f.init})
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(strategy(a) for a in args))
    if origin is list:
        return st.lists(strategy(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(strategy(args[0]), strategy(args[1]), max_size=3)
    return {str: st.text(max_size=12), bool: st.booleans(), int: st.integers(0, 9), float: st.floats(0, 10),
            type(None): st.none(), typing.Any: st.one_of(st.integers(0, 9), st.text(max_size=5))}[kind]


@settings(max_examples=200, deadline=None)
@given(strategy(SubmissionResult))
def test_to_dict_is_asdict_and_survives_json(result):
    plain = result.to_dict()
    assert plain == dataclasses.asdict(result)
    assert json.dumps(plain) == json.dumps(dataclasses.asdict(result))   # key order too
    assert SubmissionResult.from_dict(json.loads(json.dumps(plain))).to_dict() == plain
