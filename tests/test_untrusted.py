"""gradekit.untrusted: text that is cut is cut between words, never within one."""

from __future__ import annotations

from hypothesis import given, strategies as st

from gradekit.untrusted import clip, shown

WORDS = st.lists(st.text(alphabet="abcdefghij()`:", min_size=1, max_size=12), min_size=1, max_size=40)


@given(WORDS, st.integers(min_value=20, max_value=200))
def test_a_clipped_text_ends_on_a_whole_word(words, limit):
    text = " ".join(words)
    got = clip(text, limit)
    assert len(got) <= limit
    if len(text) <= limit:
        assert got == text
        return
    assert got.endswith("…")
    kept, whole = got[:-1].split(), text.split()
    if not kept:
        return
    assert kept[:-1] == whole[: len(kept) - 1]  # the text's first words ...
    last = whole[len(kept) - 1]
    assert last.startswith(kept[-1])
    if max(len(w) for w in words) < limit // 3:  # ... the last one whole (but its trailing punctuation),
        assert kept[-1] == last.rstrip(",;:-(")  # unless a word is longer than a third of the room


def test_the_message_of_the_issue_is_cut_after_a_word():
    message = ("ProtocolError: a StudentFunction cannot cross the sandbox boundary (the answer key "
               "scored 2.25/3)")
    assert clip(message, 55) == "ProtocolError: a StudentFunction cannot cross the…"
    assert shown("x" * 50, 20) == "x" * 19 + "…"  # one long word: cut where it must be
    assert shown("abc\x1b[31m", 20) == "abc\ufffd[31m"
