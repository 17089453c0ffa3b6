"""Code fingerprints: winnowing over normalised Python tokens, as MOSS does.

A piece of code (one answer cell) becomes a list of tokens with Python's own
``tokenize``:

* every identifier that is not a keyword or a builtin becomes ``V`` (renamed
  variables, functions and attributes look alike);
* numbers fall into five buckets (``0``, ``1``, ``2``, another integer, ``F``
  for any other number) and strings become ``S``;
* comments, docstrings, blank lines, indentation and spacing are dropped;
  a statement end (a newline or ``;``) is one token.

Every run of ``K`` consecutive tokens (a k-gram) is hashed, and winnowing
keeps the smallest hash of every window of ``W`` consecutive k-grams (the
rightmost on ties; Schleimer, Wilkerson and Aiken, SIGMOD 2003). Two cells
that share a run of at least ``K + W - 1`` tokens therefore share at least
one fingerprint, whatever surrounds it; shorter runs may or may not.

Hashes are deterministic (CRC-32 token ids, a polynomial over uint64), so
fingerprints computed in different processes agree.
"""

from __future__ import annotations

import builtins
import io
import keyword
import tokenize
import zlib
from dataclasses import dataclass, field

import numpy as np

K = 14  # tokens in a k-gram: about two statements
W = 4  # k-grams in a winnowing window: a shared run of K + W - 1 = 17 tokens is always seen
_BASE = np.uint64(1_000_003)

_KEEP_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
_DROP = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
_STATEMENT_START = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL, None}


@dataclass
class Tokens:
    """A cell's normalised tokens and where each one stands in the source ((row, col) start and end)."""

    text: list[str] = field(default_factory=list)
    places: list[tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=list)

    def span(self, source: str, first: int, last: int) -> tuple[int, int]:
        """Character offsets in ``source`` from the start of token ``first`` to the end of token ``last``."""
        starts = [0]
        for line in source.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))

        def offset(pos: tuple[int, int]) -> int:
            row, col = pos
            return starts[min(max(row - 1, 0), len(starts) - 1)] + col

        return offset(self.places[first][0]), offset(self.places[last][1])


def _number_bucket(text: str) -> str:
    try:
        value = int(text.replace("_", ""), 0)
    except ValueError:
        return "F"
    return str(value) if value in (0, 1, 2) else "I"


_NAME, _NUMBER, _STRING, _OP = tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP
_NEWLINE, _ERRORTOKEN = tokenize.NEWLINE, tokenize.ERRORTOKEN
_STRING_KINDS = {tokenize.STRING, getattr(tokenize, "FSTRING_START", -1)}
_AFTER_STRING = {tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.COMMENT}


def normalise(source: str) -> Tokens:
    """The normalised tokens of ``source``; code that does not tokenize is kept up to the fault."""
    raw: list[tokenize.TokenInfo] = []
    try:
        raw.extend(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # an unfinished cell: what was read so far still counts
    out = Tokens()
    text, places = out.text, out.places
    previous = None
    for i, tok in enumerate(raw):
        kind = tok.type
        if kind == _NAME:
            norm = tok.string if tok.string in _KEEP_NAMES else "V"
        elif kind == _OP and tok.string != ";":
            norm = tok.string
        elif kind == _NEWLINE or kind == _OP:
            if text and text[-1] != ";":
                text.append(";")
                places.append((tok.start, tok.end))
            previous = _NEWLINE
            continue
        elif kind == _NUMBER:
            norm = _number_bucket(tok.string)
        elif kind in _STRING_KINDS:
            if previous in _STATEMENT_START and (i + 1 == len(raw) or raw[i + 1].type in _AFTER_STRING):
                previous = kind  # a docstring or a bare string: commentary, not code
                continue
            norm = "S"
        elif kind in _DROP or kind == _ERRORTOKEN and not tok.string.strip():
            if kind != tokenize.COMMENT:
                previous = kind if kind != tokenize.ENCODING else None
            continue
        else:
            norm = tok.string
        text.append(norm)
        places.append((tok.start, tok.end))
        previous = kind
    return out


_IDS: dict[str, int] = {}


def _ids(tokens: list[str]) -> np.ndarray:
    ids = []
    for text in tokens:
        value = _IDS.get(text)
        if value is None:
            value = _IDS[text] = zlib.crc32(text.encode()) + 1
        ids.append(value)
    return np.array(ids, dtype=np.uint64)


def kgram_hashes(tokens: list[str], k: int = K) -> np.ndarray:
    """The hash of every k-gram, in order (empty when there are fewer than k tokens)."""
    n = len(tokens) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    ids = _ids(tokens)
    hashes = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            hashes = hashes * _BASE + ids[j : j + n]
        # splitmix64's finaliser: similar k-grams get unrelated hashes, as winnowing assumes
        hashes ^= hashes >> np.uint64(30)
        hashes *= np.uint64(0xBF58476D1CE4E5B9)
        hashes ^= hashes >> np.uint64(27)
        hashes *= np.uint64(0x94D049BB133111EB)
        hashes ^= hashes >> np.uint64(31)
    return hashes >> np.uint64(1)  # 63 bits: fits an int64 and a Python int without surprises


def winnow(hashes: np.ndarray, w: int = W) -> dict[int, list[int]]:
    """Robust winnowing: {fingerprint: [k-gram positions]}, the rightmost minimum of each window."""
    n = len(hashes)
    if n == 0:
        return {}
    if n <= w:
        picks = [int(n - 1 - np.argmin(hashes[::-1]))]
    else:
        windows = np.lib.stride_tricks.sliding_window_view(hashes, w)
        rightmost = w - 1 - np.argmin(windows[:, ::-1], axis=1)
        picks = np.unique(np.arange(len(windows)) + rightmost).tolist()
    found: dict[int, list[int]] = {}
    for pos in picks:
        found.setdefault(int(hashes[pos]), []).append(pos)
    return found


@dataclass
class Fingerprint:
    """One cell's fingerprints with the source spans they cover."""

    source: str
    tokens: Tokens
    marks: dict[int, list[int]]  # fingerprint -> k-gram start positions (token indices)

    def spans(self, hashes, k: int = K) -> list[tuple[int, int]]:
        """Merged character ranges of the source covered by the k-grams of ``hashes``."""
        covered = sorted({(p, p + k) for h in hashes for p in self.marks.get(h, ())})
        merged: list[list[int]] = []
        for start, end in covered:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        last = len(self.tokens.text) - 1
        return [self.tokens.span(self.source, a, min(b - 1, last)) for a, b in merged]


def fingerprint(source: str, common: frozenset[int] = frozenset()) -> Fingerprint:
    """Winnowed fingerprints of ``source``, minus the ``common`` k-gram hashes (stub or reference code)."""
    tokens = normalise(source)
    marks = winnow(kgram_hashes(tokens.text))
    if common:
        marks = {h: p for h, p in marks.items() if h not in common}
    return Fingerprint(source, tokens, marks)


def all_kgrams(source: str) -> frozenset[int]:
    """Every k-gram hash of ``source``, not only the winnowed ones: what 'common code' removes."""
    return frozenset(int(h) for h in kgram_hashes(normalise(source).text))
