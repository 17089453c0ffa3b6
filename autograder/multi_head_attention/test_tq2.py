"""Question 2: the FP16 KV cache, per token and layer, and for a whole context."""

from gradekit.graders import check
from gradekit.i18n import _

RTOL = 0.01
MIB = 2 ** 20


def distinct(right, routes):
    """The routes whose values differ from the right answer and from each other (first one wins)."""
    out, seen = {}, [right]
    for name, value in routes.items():
        if all(abs(value - v) > RTOL * abs(v) for v in seen):
            out[name] = value
            seen.append(value)
    return out


def _per_token(params):
    return 2 * params["tq2_heads"] * params["tq2_d_head"] * 2


def test_bytes_per_token_and_layer(student, params):
    """bytes one token adds in one layer"""
    h, d = params["tq2_heads"], params["tq2_d_head"]
    right = _per_token(params)
    check.scalar(student["tq2_bytes"], right, what="tq2_bytes", rtol=RTOL, atol=0, mistakes=distinct(right, {
        _("counted the keys only: the cache holds a key and a value in every head"): h * d * 2,
        _("counted 4 bytes a number (FP32); FP16 takes 2"): 2 * h * d * 4,
        _("counted one head only: every head caches its own key and value"): 2 * d * 2,
        _("gave bits, not bytes"): right * 8,
    }))


def test_whole_context(student, params):
    """MiB for the whole context over all layers"""
    per_token, n, layers = _per_token(params), params["tq2_context"], params["tq2_layers"]
    right = n * layers * per_token / MIB
    check.scalar(student["tq2_mib"], right, what="tq2_mib", rtol=RTOL, atol=0, mistakes=distinct(right, {
        _("forgot the layers: every layer keeps a cache of its own"): n * per_token / MIB,
        _("used 10⁶ bytes a MiB; a MiB is 2²⁰ bytes"): n * layers * per_token / 1e6,
        _("gave bytes, not MiB"): n * layers * per_token,
        _("gave GiB, not MiB"): right / 1024,
        _("counted the keys only: the cache holds a key and a value in every head"): right / 2,
        _("counted 4 bytes a number (FP32); FP16 takes 2"): right * 2,
    }))
