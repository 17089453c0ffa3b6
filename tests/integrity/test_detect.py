"""``gradekit integrity``: planted copies are found, honest students are not flagged.

The class (tests/integrity_class.py) is built from variants and submitted
notebooks only, without grading: 16 students who write their own code, 5
who hand in the answer key's code, two with unusual code of their own (each
differently), two who hard-code the lecture's numbers, two who hand in their
release untouched, and two planted pairs
of each kind (a whole notebook handed in, the hardest exercise copied with
renames, reformatting and a statement swapped, the quiz's right answers
copied, half a cell copied). The class is fixed (seed 0); over other seeds
an occasional copy of code made of common pieces goes unseen, and
bench/integrity.py measures how often.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import nbformat
import pytest

import integrity_class
from gradekit.integrity.detect import detect
from gradekit.integrity.fingerprints import all_kgrams, fingerprint
from gradekit.integrity.report import print_table, render_html

PLANTS = {kind: 2 for kind in integrity_class.KINDS}
EXPECTED_KIND = {"whole": "variant cells", "quiz": "answers", "exercise": "code", "partial": "code"}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    return integrity_class.build(tmp_path_factory.mktemp("integrity") / "course", honest=16, plants=PLANTS,
                                 canonical=5, unusual=True, lecture=2, untouched=2, seed=0)


@pytest.fixture(scope="module")
def findings(klass):
    from gradekit.course import Course

    return detect(Course.load(klass.root), integrity_class.ASSIGNMENT)


def flagged(findings) -> dict[tuple[str, str], dict]:
    return {tuple(p["students"]): p for p in findings.pairs}


def test_every_planted_pair_is_found_with_its_kind_of_evidence(klass, findings):
    found = flagged(findings)
    for (source, copier), kind in klass.planted.items():
        pair = tuple(sorted((source, copier)))
        assert pair in found, f"planted {kind} copy {source} -> {copier} not found"
        kinds = {e["kind"] for e in found[pair]["evidence"]}
        assert EXPECTED_KIND[kind] in kinds, (kind, found[pair]["evidence"])
        for evidence in found[pair]["evidence"]:
            if "from" in evidence:  # the direction: the copier carries the source's numbers
                assert (evidence["from"], evidence["by"]) == (source, copier), evidence


def test_no_honest_pair_is_flagged(klass, findings):
    planted = klass.planted_pairs()
    wrongly = {pair: p["evidence"] for pair, p in flagged(findings).items() if pair not in planted}
    assert not wrongly
    # the groups that tempt a detector are in the class: the same canonical code, unusual code,
    # the same stub handed in untouched
    assert len(klass.canonical) == 5 and len(klass.unusual) == 2 and len(klass.untouched) == 2


def test_the_lecture_numbers_are_reported_for_the_students_who_hard_coded_them(klass, findings):
    by_student = {}
    for item in findings.public_numbers:
        by_student.setdefault(item["student"], set()).add(item["where"])
    assert set(by_student) == set(klass.lecture)
    first, second = klass.lecture
    assert by_student[first] == {"self_attention/self_attention", "quiz/tq1"}
    assert by_student[second] == {"self_attention/kv_cache"}


def test_json_lists_each_flagged_pair_once_with_its_evidence(klass, findings, capsys):
    from gradekit.cli.main import main

    assert main(["--course", str(klass.root), "integrity", integrity_class.ASSIGNMENT, "--json"]) == 0
    pairs = json.loads(capsys.readouterr().out)
    keys = [tuple(p["students"]) for p in pairs]
    assert len(keys) == len(set(keys)) == len(klass.planted)
    assert set(keys) == set(klass.planted_pairs())
    for pair in pairs:
        assert pair["students"] == sorted(pair["students"]) and len(set(pair["students"])) == 2
        assert pair["evidence"] and pair["score"] == pytest.approx(sum(e["strength"] for e in pair["evidence"]), abs=0.2)
        for evidence in pair["evidence"]:
            assert evidence["count"] >= 1 and evidence["strength"] > 0
    assert [p["score"] for p in pairs] == sorted((p["score"] for p in pairs), reverse=True)
    report = klass.root / "reports" / integrity_class.ASSIGNMENT
    written = json.loads((report / "integrity.json").read_text())
    assert written["pairs"] == pairs and written["students"] == len(klass.students)
    page = (report / "integrity.html").read_text()
    assert page.count("<div class='side'>") >= len(pairs) and "<mark>" in page
    assert "http://" not in page and "https://" not in page and "<script" not in page  # self-contained


def test_the_table_lists_the_pairs_strongest_first(klass, findings):
    from rich.console import Console

    console = Console(record=True, width=200)
    print_table(findings, console)
    text = console.export_text()
    positions = [text.index(" & ".join(p["students"])) for p in findings.pairs]
    assert positions == sorted(positions)
    assert "lecture's weights" in text


def test_robust_to_renames_comments_layout_and_reordering():
    original = (
        "def decode_step(x_t, W_q, W_k, W_v, cache):\n"
        "    x = np.reshape(x_t, (1, -1))\n"
        "    q = x @ W_q\n"
        "    k = np.dot(x, W_k)\n"
        "    v = np.matmul(x, W_v)\n"
        "    cache.append(k[0], v[0])\n"
        "    logits = q @ cache.keys.T / np.sqrt(k.shape[-1])\n"
        "    logits = np.nan_to_num(logits)\n"
        "    w = softmax(logits, axis=-1)\n"
        "    return (w @ cache.values)[0]\n")
    disguised = (
        "def decode_step(x_t,W_q,W_k,W_v,cache):\n"
        "    # my own version\n"
        "    row=np.reshape(x_t,(1,-1))\n\n"
        "    query=row@W_q\n"
        "    value=np.matmul(row,W_v)   # values first\n"
        "    key=np.dot(row,W_k)\n"
        "    cache.append(key[0],value[0])\n"
        "    scores=query@cache.keys.T/np.sqrt(key.shape[-1])\n"
        "    scores=np.nan_to_num(scores)\n\n"
        "    attn=softmax(scores,axis=-1)\n"
        '    """the output"""\n'
        "    return (attn@cache.values)[0]\n")
    other = (
        "def decode_step(x_t, W_q, W_k, W_v, cache):\n"
        "    q, k, v = project_qkv(np.atleast_2d(x_t), W_q, W_k, W_v)\n"
        "    cache.append(k.ravel(), v.ravel())\n"
        "    return weighted_sum(softmax(scaled_scores(q, cache.keys)), cache.values)[0]\n")
    stub = all_kgrams("def decode_step(x_t, W_q, W_k, W_v, cache):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n")
    a, b, c = (set(fingerprint(s, stub).marks) for s in (original, disguised, other))
    assert len(a & b) >= 0.6 * min(len(a), len(b))
    assert not a & c


def test_a_long_answer_copied_whole_is_found_where_every_passage_is_common(monkeypatch):
    """In a large class every way of writing a step is dozens of students' (here each
    fingerprint is about 30 of 300 students'): no passage is rare enough for the rare-passage
    test, yet a whole long answer that is nearly another's is. Honest students who share some
    steps (up to half of them here) are not flagged, nor is a crowd of over MAX_DF students who all
    hand in the same answer (posted somewhere: common code in this class, as in the first test)."""
    import random

    from gradekit.integrity import code
    from gradekit.integrity.material import Handed
    from gradekit.integrity.report import describe

    rng = random.Random(7)
    key = ("notebook", "long_answer")

    def way(step: int, choice: int) -> frozenset[int]:      # 10 fingerprints for one way of one step
        return frozenset(1_000_000 * step + 1_000 * choice + i for i in range(10))

    cells = {f"s{i:03d}": [rng.randrange(10) for _ in range(10)] for i in range(300)}
    cells["s300"] = list(cells["s007"])                        # a copy of s007's answer...
    cells["s300"][3] = (cells["s300"][3] + 1) % 10             # ... with one step of its own
    posted = [rng.randrange(10) for _ in range(10)]
    cells.update({f"p{i:02d}": list(posted) for i in range(code.MAX_DF + 1)})   # a crowd: one posted answer
    handed = {student: Handed(student, marks={key: frozenset().union(*(way(step, c) for step, c in enumerate(ways)))})
              for student, ways in cells.items()}
    honest_overlap = max(sum(x == y for x, y in zip(cells[a], cells[b]))
                         for a in cells for b in cells if a < b and a[0] == b[0] == "s" and "s300" not in (a, b))
    assert honest_overlap >= 5          # the class holds honest pairs sharing half their steps

    found, marks = code.code_evidence(handed)
    assert set(found) == {("s007", "s300")}          # the crowd is common code here, not 210 pairs
    (cell,) = found[("s007", "s300")][0]["cells"]
    assert cell["test"] == "whole cell" and 0.85 <= cell["containment"] < 1     # one step in ten is its own
    assert len(marks[("s007", "s300", key, key)]) == 90         # the shared code is highlighted
    assert "as a whole" in describe(found[("s007", "s300")][0])

    monkeypatch.setattr(code, "NEARLY_WHOLE", 2.0)             # the rare-passage test alone misses it
    assert code.code_evidence(handed)[0] == {}


def test_html_escapes_what_students_wrote(klass, findings):
    payload = "</pre><script>alert('x')</script><img src=x onerror=alert(1)>"
    pair = findings.pairs[0]
    block = {"student": pair["students"][0], "cell": "nb/cell", "source": f"x = '{payload}'\n",
             "spans": [(0, 5)]}
    findings.sides[tuple(pair["students"])] = [{"left": block, "right": dict(block, student=pair["students"][1])}]
    try:
        page = render_html(findings)
    finally:
        findings.sides.pop(tuple(pair["students"]))
    assert "<script>" not in page and "<img" not in page
    assert "&lt;/pre&gt;&lt;script&gt;" in page


def test_rich_markup_in_what_students_wrote_is_shown_as_text(findings):
    from rich.console import Console

    fake = type(findings)(findings.assignment, ["a[bold]", "b"], [], [
        {"student": "a[bold]", "where": "nb/[red]cell[/red]", "what": "numbers [blink]x[/blink]", "numbers": [1.0]}],
        {"a[bold]": ["[red]broken[/red].ipynb: the file is empty"]})
    console = Console(record=True, width=200)
    print_table(fake, console)
    text = console.export_text()
    assert "nb/[red]cell[/red]" in text and "[red]broken[/red].ipynb" in text


def test_a_copier_who_restores_their_own_cells_is_still_caught_by_the_checksums(klass, tmp_path):
    from gradekit.course import Course

    (source, copier), = [pair for pair, kind in klass.planted.items() if kind == "whole"][:1]
    root = tmp_path / "course"
    shutil.copytree(klass.root, root, ignore=shutil.ignore_patterns("reports"))
    course = Course.load(root)
    from gradekit.release.stripper import Stripper
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    variant = build_variant(course, AssignmentSource.load(course, integrity_class.ASSIGNMENT), copier)
    own = {name: Stripper().student_version(nb) for name, nb in variant.notebooks.items()}
    for name, release in own.items():
        path = course.submitted_dir(copier, integrity_class.ASSIGNMENT) / f"{name}.ipynb"
        nb = nbformat.read(str(path), as_version=4)
        mine = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in release.cells}
        for cell in nb.cells:  # the copier's own read-only sources back, the source's metadata kept
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid in mine and not cell.metadata["nbgrader"].get("solution"):
                cell.source = mine[gid].source
        nbformat.write(nb, str(path))
    pairs = flagged(detect(course, integrity_class.ASSIGNMENT))
    evidence = {e["kind"]: e for e in pairs[tuple(sorted((source, copier)))]["evidence"]}
    assert evidence["variant cells"]["checksums_only"] == evidence["variant cells"]["cells"]
    assert evidence["variant cells"]["from"] == source


def _snapshot(root):
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "reports" not in p.parts}


def test_an_unreadable_submission_is_listed_and_changes_nothing_else(klass, tmp_path, capsys):
    from gradekit.cli.main import main

    root = tmp_path / "course"
    shutil.copytree(klass.root, root, ignore=shutil.ignore_patterns("reports"))
    honest = sorted(set(klass.students) - {s for pair in klass.planted for s in pair})[0]
    path = root / "submitted" / honest / integrity_class.ASSIGNMENT / "quiz.ipynb"
    path.write_text(path.read_text()[:500])  # truncated
    results = root / "autograded" / honest / integrity_class.ASSIGNMENT / "results.json"
    results.parent.mkdir(parents=True)
    results.write_text(json.dumps({"student": honest, "assignment": integrity_class.ASSIGNMENT, "notebooks": []}))
    (root / "submitted" / "linked").symlink_to(root / "submitted" / honest)  # a link: never followed
    (root / "submitted" / "not an id").mkdir()
    before = _snapshot(root)
    assert main(["--course", str(root), "integrity", integrity_class.ASSIGNMENT]) == 0
    out = capsys.readouterr().out
    assert f"not compared: {honest}: quiz.ipynb: not valid JSON" in out
    assert "skipped submitted/linked: a symbolic link" in out and "skipped submitted/not an id" in out
    assert _snapshot(root) == before  # never changes a grade, a submission or a result
    written = json.loads((root / "reports" / integrity_class.ASSIGNMENT / "integrity.json").read_text())
    assert {tuple(p["students"]) for p in written["pairs"]} == set(klass.planted_pairs())


@pytest.mark.parametrize("case, code", [("unknown assignment", 2), ("no submissions", 2), ("broken public examples", 3)])
def test_bad_input_is_one_line_and_a_non_zero_exit(klass, tmp_path, capsys, case, code):
    from gradekit.cli.main import main

    root = tmp_path / "course"
    integrity_class.make_course(root)
    assignment = integrity_class.ASSIGNMENT
    if case == "unknown assignment":
        assignment = "no_such_assignment"
    elif case == "broken public examples":
        shutil.copytree(klass.root / "submitted", root / "submitted")
        (root / "source" / assignment / "public_examples.json").write_text('{"examples": [{"numbers": [1]}]}')
    assert main(["--course", str(root), "integrity", assignment]) == code  # 3: the course's own data is broken
    err = capsys.readouterr().err.strip()
    assert err.startswith("gradekit: ") and "\n" not in err and "Traceback" not in err
    assert {"unknown assignment": "unknown assignment", "no submissions": "nothing to compare",
            "broken public examples": "public_examples.json"}[case] in err
