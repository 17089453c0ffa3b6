"""Answer groups: the class's answers to one cell, answers that say the same thing together.

Free text (:func:`group_texts`), in any language, with no model and nothing fetched:

1. **Normalise**: NFKC, lower case, nbgrader's stub removed (in every language gradekit
   speaks), markdown marks and extra spaces dropped. An answer with no letter, digit or CJK
   character left is *empty*: all of them form one group, listed first.
2. **Copies**: identical normalised texts are clustered as one, so they always share a group.
3. **Similarity**: the weighted mean of four cosines (a block where neither answer has a
   feature is left out of that pair's mean), times ``(shorter/longer) ** 0.5`` in characters
   (so "A" and "A, and also B" -- half right and right -- stay apart):

   * ``char`` (1): character 2-4-grams, TF-IDF -- works for Chinese without segmentation;
   * ``word`` (2): token 1-3-grams of the answer with the glossary's terms replaced by tokens;
   * ``roles`` (1): the pairs of key terms that stand in one clause ("V decides the weights"
     is ``VAL~WGT``, not ``KEY~WGT``), negated or not;
   * ``concepts`` (1): which key terms occur at all.

   The glossary is the course's (:mod:`gradekit.manual.glossary`); without one, ``roles``
   and ``concepts`` are empty and the characters and words decide.
4. **Clusters**: average linkage on 1 - similarity, cut at :data:`THRESHOLD` (on the side of
   purity: a group that mixes two meanings costs a grader more than two groups of one).
5. **Order**: each group's typical answer (its medoid, copies counted) first, then the others
   from the most to the least similar to it, so an answer that does not belong sits last;
   groups largest first, the empty group before all.

Measured on synthetic classes of 1,000 and 3,000 answers, half in Chinese, six kinds of answer
(bench/groups.py): 3,000 answers in about 3 s, 98-99% of each group's answers of its typical
answer's kind. Chinese and English answers that say the same thing fall in two groups, one
per language, never in a group with another meaning.

Code (:func:`group_code`): answers with the same normalised tokens (copy detection's
tokenizer: names, numbers and strings as their kind, comments and layout dropped) form a group.

Numbers (:func:`group_numbers`): the autograder's verdicts -- right, the named mistake
the values match, wrong with no known mistake, not answered.

scikit-learn and scipy are imported inside :func:`similarity` and :func:`group_texts`: the
command line's other verbs do not pay their second of import.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradekit.extras import require
from gradekit.manual.glossary import Glossary

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

WEIGHTS = {"char": 1.0, "word": 2.0, "roles": 1.0, "concepts": 1.0}
THRESHOLD = 0.6  # average-linkage cut, in cosine distance (tuned on synthetic classes, bench/groups.py)
LENGTH_POWER = 0.5

EMPTY = "empty"  # the kind of the group of empty and untouched answers

_TOKENS = re.compile(r"[A-Z]{3,}|[a-z]+|[0-9]+(?:\.[0-9]+)?|[\u3400-\u9fff]")
_CLAUSES = re.compile(r"[,.;:!?，。；：！？—()（）]| while | and | but | so | whereas |而|但|另外|所以|然而")
_LIST_JOINERS = r"(?:,|、|和|跟|与|及|and|together|&|/)?"


@dataclass
class Group:
    """One group of answers: ``members`` are indices into the answers, the typical one first."""

    members: list[int]
    kind: str = ""  # EMPTY, "copies", or for numbers "right" / a mistake / "unexplained"
    label: str = ""  # what the group is, for a person (numbers: the mistake's name)
    extra: dict = field(default_factory=dict)

    @property
    def typical(self) -> int:
        return self.members[0]


def stubs() -> tuple[str, ...]:
    """nbgrader's stub of a free-text answer in every language gradekit speaks, normalised."""
    from gradekit.i18n.catalogs import languages
    from gradekit.release.stripper import stubs as release_stubs

    return tuple(sorted({normalize_plain(release_stubs(lang)[1]) for lang in ["en", *languages()]}, key=len)[::-1])


_STUBS: tuple[str, ...] | None = None


def normalize_plain(text: str) -> str:
    t = unicodedata.normalize("NFKC", text or "").lower()
    t = re.sub(r"[*`#>]+", " ", t)  # markdown emphasis, headings, quotes
    return re.sub(r"\s+", " ", t).strip()


def normalize(text: str) -> str:
    global _STUBS
    if _STUBS is None:
        _STUBS = stubs()
    t = normalize_plain(text)
    for stub in _STUBS:
        t = t.replace(stub, " ")
    return re.sub(r"\s+", " ", t).strip()


def is_empty(norm: str) -> bool:
    return not re.search(r"[0-9a-z\u3400-\u9fff]", norm)


def _ngrams(tokens: list[str], n_max: int = 3) -> list[str]:
    return [" ".join(tokens[i : i + n]) for n in range(1, n_max + 1) for i in range(len(tokens) - n + 1)]


class _Roles:
    """Which key terms stand in one clause: 'VAL~WGT' (swapped roles) is not 'KEY~WGT'."""

    def __init__(self, glossary: Glossary):
        self.entities, self.concepts, self.negations = glossary.entities, glossary.concepts, glossary.negations
        names = "|".join(sorted(self.entities, key=len, reverse=True))
        self.lists = re.compile(rf"({names})\s*{_LIST_JOINERS}\s*(?=(?:{names})\b)") if names else None

    def __call__(self, canon: str) -> list[str]:
        if self.lists is not None:
            canon = self.lists.sub(r"\1 ", canon)
        out: list[str] = []
        for clause in _CLAUSES.split(canon):
            words = set(clause.split())
            terms = words & (self.entities | self.concepts)
            neg = "~NEG" if words & self.negations else ""
            out += [f"{a}~{b}{neg}" for a in terms for b in terms if a < b]
            out += [t + "~" for t in terms | (words & self.negations)]
        return out


def _concepts(canon: str) -> list[str]:
    return sorted(set(re.findall(r"[A-Z]{3,}", canon)))


def similarity(norm: Sequence[str], glossary: Glossary | None = None) -> np.ndarray:
    """The answers' pairwise similarity (see the module's docstring), a dense float32 matrix."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    glossary = glossary or Glossary()
    canon = [glossary.canonical(t) for t in norm]
    blocks = {
        "char": TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True).fit_transform(norm),
        "word": TfidfVectorizer(analyzer=lambda s: _ngrams(_TOKENS.findall(s)), sublinear_tf=True).fit_transform(canon),
    }
    if glossary:
        blocks["roles"] = TfidfVectorizer(analyzer=_Roles(glossary), sublinear_tf=True).fit_transform(canon)
        blocks["concepts"] = TfidfVectorizer(analyzer=_concepts, binary=True).fit_transform(canon)
    n = len(norm)
    num = np.zeros((n, n), np.float32)
    den = np.zeros_like(num)
    for name, X in blocks.items():
        if X.shape[1] == 0:
            continue
        num += WEIGHTS[name] * (X @ X.T).toarray().astype(np.float32)
        has = X.getnnz(axis=1) > 0
        den += WEIGHTS[name] * (has[:, None] | has[None, :])
    S = num / np.maximum(den, 1e-9)
    length = np.array([max(len(t), 1) for t in norm], np.float32)
    S *= (np.minimum.outer(length, length) / np.maximum.outer(length, length)) ** LENGTH_POWER
    np.fill_diagonal(S, 1.0)
    return S


def _vocabulary_error(exc: ValueError) -> bool:
    return "empty vocabulary" in str(exc)


def group_texts(texts: Sequence[str], glossary: Glossary | None = None, threshold: float = THRESHOLD) -> list[Group]:
    """Groups of free-text answers (indices into ``texts``): the empty group first, then largest first."""
    import numpy as np

    norm = [normalize(t) for t in texts]
    empty = [i for i, t in enumerate(norm) if is_empty(t)]
    copies: dict[str, list[int]] = {}
    for i, t in enumerate(norm):
        if not is_empty(t):
            copies.setdefault(t, []).append(i)
    keys = list(copies)
    groups = [Group(empty, EMPTY)] if empty else []
    if not keys:
        return groups
    count = np.array([len(copies[k]) for k in keys], np.float32)
    if len(keys) == 1:
        labels = np.zeros(1, int)
        S = np.ones((1, 1), np.float32)
    else:
        require("groups")
        from scipy.cluster.hierarchy import fcluster, linkage

        try:
            S = similarity(keys, glossary)
        except ValueError as exc:  # nothing to compare (only one-character answers): each text alone
            if not _vocabulary_error(exc):
                raise
            S = np.eye(len(keys), dtype=np.float32)
        D = np.clip(1.0 - S, 0.0, None)
        condensed = D[np.triu_indices(len(keys), 1)].astype(np.float64)
        labels = fcluster(linkage(condensed, method="average"), t=threshold, criterion="distance")
    clusters = []
    for label in np.unique(labels):
        idx = np.flatnonzero(labels == label)
        typicality = S[np.ix_(idx, idx)] @ count[idx]  # copies count: the medoid of the answers, not of the texts
        order = idx[np.argsort(-typicality, kind="stable")]
        medoid = order[0]
        rest = order[1:][np.argsort(-S[medoid, order[1:]], kind="stable")]
        members = [i for j in [medoid, *rest] for i in copies[keys[j]]]
        clusters.append(Group(members))
    clusters.sort(key=lambda g: (-len(g.members), g.members[0]))
    return groups + clusters


def code_tokens(source: str) -> tuple[str, ...]:
    """A code answer as copy detection normalises it: names, numbers and strings by kind, no layout."""
    from gradekit.integrity.fingerprints import normalise

    try:
        return tuple(normalise(source).text)
    except Exception:  # noqa: BLE001 - code that does not tokenize: its own text
        return (normalize_plain(source),)


def group_code(sources: Sequence[str], stubs_of: Sequence[str] = ()) -> list[Group]:
    """Code answers with the same normalised tokens together; untouched ones (equal to their stub) and
    empty ones in one group first. ``stubs_of``: each answer's stub as handed out (optional)."""
    empty: list[int] = []
    same: dict[tuple[str, ...], list[int]] = {}
    for i, source in enumerate(sources):
        stub = stubs_of[i] if i < len(stubs_of) else None
        tokens = code_tokens(source)
        if not [t for t in tokens if t.strip()] or (stub is not None and tokens == code_tokens(stub)):
            empty.append(i)
        else:
            same.setdefault(tokens, []).append(i)
    groups = [Group(empty, EMPTY)] if empty else []
    return groups + sorted((Group(m) for m in same.values()), key=lambda g: (-len(g.members), g.members[0]))


RIGHT, UNEXPLAINED, UNANSWERED = "right", "unexplained", "unanswered"


def group_numbers(verdicts: Sequence[tuple[str, str]]) -> list[Group]:
    """Numeric answers grouped by the autograder's verdict: ``verdicts[i]`` is (kind, label) with kind
    RIGHT, UNANSWERED, UNEXPLAINED or "mistake" and label the mistake's name; largest first."""
    by: dict[tuple[str, str], list[int]] = {}
    for i, (kind, label) in enumerate(verdicts):
        by.setdefault((kind, label), []).append(i)
    keys = sorted(by, key=lambda k: (-len(by[k]), k))
    return [Group(by[k], EMPTY if k[0] == UNANSWERED else k[0], k[1]) for k in keys]


def for_answers(
    kind: str,
    texts: Sequence[str],
    verdicts: Sequence[tuple[str, str]] = (),
    stubs_of=(),
    glossary: Glossary | None = None,
) -> list[Group]:
    """The groups of one question's answers, by the question's kind (answers.TEXT, CODE or NUMBERS)."""
    if kind == "numbers":
        return group_numbers(verdicts)
    if kind == "code":
        return group_code(texts, stubs_of)
    return group_texts(texts, glossary)
