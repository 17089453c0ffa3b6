"""The private APIs gradekit uses, checked by name: an upgrade that removes one fails here, loudly.

gradekit drives pytest's session by hand (configure and collect once, replay the
items per submission), caches hypothesis's per-test digest, and reuses nbgrader's
late-penalty preprocessor and gradebook tables. Each is pinned in constraints.txt.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

INTERNALS = [
    # (module, attribute path, used by)
    ("_pytest.config", "_prepareconfig", "gradekit/grading/harness/suite.py: configure pytest once"),
    ("_pytest.config", "Config._do_configure", "gradekit/grading/harness/suite.py"),
    ("_pytest.main", "Session.from_config", "gradekit/grading/harness/suite.py: collect once"),
    ("_pytest.fixtures", "FuncFixtureInfo.argnames", "gradekit/grading/harness/plugin.py: item._fixtureinfo.argnames"),
    ("_pytest.python", "CallSpec.params", "gradekit/grading/harness/plugin.py: item.callspec.params"),
    ("hypothesis.core", "function_digest", "gradekit/grading/harness/suite.py: digest cache"),
    ("hypothesis.configuration", "set_hypothesis_home_dir", "gradekit/grading/harness/suite.py"),
    ("nbgrader.preprocessors", "AssignLatePenalties._check_late_penalty", "gradekit/gradebook/write.py: late penalties"),
    ("nbgrader.preprocessors", "AssignLatePenalties.init_plugin", "gradekit/gradebook/write.py"),
    ("nbgrader.api", "Grade.manual_score", "gradekit/gradebook/write.py: grades in one query"),
    ("nbgrader.api", "SubmittedNotebook.late_submission_penalty", "gradekit/gradebook/write.py"),
    ("nbgrader.api", "BaseCell.notebook_id", "gradekit/gradebook/write.py"),
    # LTI (issue 39): the hub's login subclasses the authenticator's callback; the tool's client fills in
    # pylti1p3next's abstract token cache and takes its deep-linking message before it is signed
    ("ltiauthenticator.lti13.handlers", "LTI13CallbackHandler.decode_and_validate_launch_request",
     "gradekit/lti/login.py: the authenticator's checks, then gradekit's"),
    ("ltiauthenticator.lti13.handlers", "LTI13CallbackHandler.redirect_to_next_url", "gradekit/lti/login.py"),
    ("ltiauthenticator.lti13.error", "InvalidAudienceError", "gradekit/lti/login.py: 401 for another tool's token"),
    ("pylti1p3.service_connector", "ServiceConnector._get_cached_access_token", "gradekit/lti/services.py"),
    ("pylti1p3.service_connector", "ServiceConnector._cache_access_token", "gradekit/lti/services.py"),
    ("pylti1p3.deep_link", "DeepLink.get_message_jwt", "gradekit/lti/deeplink.py: data: null left out"),
]


@pytest.mark.parametrize("module, path, used_by", INTERNALS, ids=[f"{m}.{p}" for m, p, _ in INTERNALS])
def test_internal_is_still_there(module, path, used_by):
    obj = importlib.import_module(module)
    for part in path.split("."):
        fields = getattr(obj, "__dataclass_fields__", {})  # a dataclass's fields are not class attributes
        assert hasattr(obj, part) or part in fields, \
            f"{module}.{path} is gone (used by {used_by}): pin the old version in constraints.txt " \
            f"or port {used_by.split(':')[0]}"
        obj = getattr(obj, part, None)


def test_prepareconfig_still_takes_args_and_plugins():
    from _pytest.config import _prepareconfig

    params = inspect.signature(_prepareconfig).parameters
    assert "plugins" in params, "_pytest.config._prepareconfig(args, plugins=...) changed (gradekit/grading/harness/suite.py)"


def test_testreport_constructor_still_takes_what_the_plugin_passes():
    params = inspect.signature(pytest.TestReport.__init__).parameters
    for name in ("nodeid", "location", "keywords", "outcome", "longrepr", "when", "duration", "start", "stop"):
        assert name in params, f"pytest.TestReport lost {name!r} (gradekit/grading/harness/plugin.py makes lean reports)"


def test_the_pins_are_what_is_installed():
    from importlib.metadata import version
    from pathlib import Path

    lines = [line.split("#", 1)[0].strip()  # pip reads a comment after a pin, and so do we
             for line in (Path(__file__).parents[1] / "constraints.txt").read_text().splitlines()]
    pins = dict(line.split("==") for line in lines if "==" in line)
    for package, pinned in pins.items():
        assert version(package) == pinned, f"{package} {version(package)} is installed, constraints.txt pins {pinned}"


def test_a_new_gradebook_is_stamped_as_nbgrader_stamps_it(tmp_path):
    """gradekit reads nbgrader's migration head from its migration files (gradekit/gradebook/connect.py)
    instead of letting the Gradebook run `alembic heads`: the same head, and the same database after."""
    import sqlite3

    from gradekit.gradebook.connect import alembic_head, api, stamp_new

    nbgrader_api = api()
    head = alembic_head()
    assert head is not None and head == nbgrader_api.get_alembic_version()   # `alembic heads`, as nbgrader asks it

    def schema(path):
        with sqlite3.connect(path) as db:
            tables = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
            return tables, db.execute("SELECT version_num FROM alembic_version").fetchall()

    ours, theirs = tmp_path / "ours.db", tmp_path / "theirs.db"
    stamp_new(f"sqlite:///{ours}")
    nbgrader_api.Gradebook(f"sqlite:///{ours}").close()
    nbgrader_api.Gradebook(f"sqlite:///{theirs}").close()
    assert schema(ours) == schema(theirs) and schema(ours)[1] == [(head,)]
    stamp_new(f"sqlite:///{ours}")                                   # a gradebook with tables: left as it is
    assert schema(ours) == schema(theirs)
