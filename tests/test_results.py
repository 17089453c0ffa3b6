"""gradekit.results: the typed currency's plain-data form."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings, strategies as st

from gradekit.results import CellResult, CellRun, Check, NotebookResult, SubmissionResult

text = st.text(max_size=12)
checks = st.builds(Check, text, st.booleans(), text, st.floats(0, 5), st.none() | text)
cells = st.builds(CellResult, text, st.floats(0, 10), st.none() | st.floats(0, 10), st.lists(checks, max_size=4),
                  st.booleans(), st.booleans(), st.lists(text, max_size=2), st.booleans())
runs = st.builds(CellRun, text, st.booleans(), st.none() | text)
notebooks = st.builds(NotebookResult, text, st.lists(cells, max_size=4), st.lists(runs, max_size=3),
                      st.none() | text, st.none() | st.floats(0, 3))
results = st.builds(SubmissionResult, text, text, st.lists(notebooks, max_size=3), st.none() | text,
                    st.none() | text, st.floats(0, 9), st.floats(0, 9), text, st.lists(text, max_size=2))


@settings(max_examples=200, deadline=None)
@given(results)
def test_to_dict_is_asdict_and_survives_json(result):
    plain = result.to_dict()
    assert plain == dataclasses.asdict(result)
    assert json.dumps(plain) == json.dumps(dataclasses.asdict(result))   # key order too
    assert SubmissionResult.from_dict(json.loads(json.dumps(plain))).to_dict() == plain
