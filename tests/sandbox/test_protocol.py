"""gradekit.sandbox.protocol: the narrow npy/JSON channel between grader and sandbox."""

from __future__ import annotations

import io
import json
import math
import pickle
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from gradekit.sandbox import protocol as P


def roundtrip(value):
    """Through a real frame: encode, write, read, decode."""
    buf = io.BytesIO()
    P.send(buf, {"op": "x"}, {"value": value})
    buf.seek(0)
    header, blobs = P.read_frame(buf)
    assert header["op"] == "x"
    return P.decode(header["value"], blobs)


def frame(header: dict, blobs: list[bytes] = ()) -> io.BytesIO:
    buf = io.BytesIO()
    P.write_frame(buf, header, list(blobs))
    buf.seek(0)
    return buf


def npy(arr, allow_pickle=False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=allow_pickle)
    return buf.getvalue()


# -- round trips ---------------------------------------------------------------------

@pytest.mark.parametrize("value", [
    None, True, False, 0, -1, 2**62, 1.5, -0.0, "text", "", "ünïcødé",
    [], (), {}, [1, 2.5, "a"], (1, (2, (3,))), {"a": [1, {"b": (2, 3)}]},
])
def test_roundtrip_plain_values(value):
    got = roundtrip(value)
    assert got == value
    assert type(got) is type(value)


def test_roundtrip_keeps_tuple_and_list_apart():
    got = roundtrip({"t": (1, [2, (3,)]), "l": [(1,), []]})
    assert got == {"t": (1, [2, (3,)]), "l": [(1,), []]}
    assert type(got["t"]) is tuple and type(got["t"][1]) is list and type(got["t"][1][1]) is tuple


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_roundtrip_infinities(value):
    assert roundtrip(value) == value


def test_roundtrip_nan():
    assert math.isnan(roundtrip(float("nan")))
    got = roundtrip([float("nan"), 1.0])
    assert math.isnan(got[0]) and got[1] == 1.0


def test_nonfinite_floats_are_not_bare_json():
    buf = io.BytesIO()
    P.send(buf, {}, {"value": [float("nan"), float("inf")]})
    raw = buf.getvalue()
    (size,) = struct.unpack(">I", raw[:4])
    text = raw[4:4 + size].decode()
    assert "NaN" not in text and "Infinity" not in text
    json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} in the header"))


@pytest.mark.parametrize("arr", [
    np.arange(12.0).reshape(3, 4),
    np.array([[1, 2], [3, 4]], dtype=np.int32),
    np.array([True, False]),
    np.zeros((0, 3)),
    np.array(3.5),
    np.array([np.nan, np.inf, -np.inf]),
    np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    np.arange(10.0)[::3],
    np.array([1.0, 2.0], dtype=">f8"),
    np.array([1.0, 2.0], dtype=np.float16),
])
def test_roundtrip_arrays(arr):
    got = roundtrip(arr)
    assert type(got) is np.ndarray
    assert got.shape == arr.shape and got.dtype == arr.dtype
    np.testing.assert_array_equal(got, arr)


def test_roundtrip_arrays_in_containers():
    a, b = np.eye(2), np.arange(3)
    got = roundtrip({"out": (a, b), "n": np.int64(3), "x": np.float32(0.5), "ok": np.bool_(True)})
    np.testing.assert_array_equal(got["out"][0], a)
    np.testing.assert_array_equal(got["out"][1], b)
    assert got["n"] == 3 and type(got["n"]) is int
    assert got["x"] == 0.5 and type(got["x"]) is float
    assert got["ok"] is True


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_array_subclasses_arrive_as_plain_arrays():
    m = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    got = roundtrip(m)
    assert type(got) is np.ndarray
    got = roundtrip(np.matrix([[1.0, 2.0]]))
    assert type(got) is np.ndarray


# -- what may not cross ------------------------------------------------------------

@pytest.mark.parametrize("value", [
    np.array([1, "a", None], dtype=object),
    np.array(["a", "b"]),
    np.array([b"a"]),
    np.array([1 + 2j]),
    np.array(["2020-01-01"], dtype="datetime64[D]"),
    np.zeros(2, dtype=[("a", "f8"), ("b", "i4")]),
])
def test_non_numeric_arrays_cannot_be_sent(value):
    with pytest.raises(P.ProtocolError):
        P.encode(value, [])


@pytest.mark.parametrize("value", [object(), {1: 2}, {1, 2}, b"bytes", lambda: 0, 2**63, -2**64,
                                   np.complex128(1j), "x" * (P.MAX_STR + 1)])
def test_other_values_cannot_be_sent_without_keep(value):
    with pytest.raises(P.ProtocolError):
        P.encode(value, [])


def test_objects_become_handles_with_keep():
    kept = []

    class Thing:
        pass

    thing = Thing()
    tree = P.encode(thing, [], keep=lambda o: kept.append(o) or 7)
    assert tree == {"$obj": 7, "type": "Thing"} and kept == [thing]
    handle = P.decode(tree, [])
    assert isinstance(handle, P.Handle) and handle.id == 7 and handle.type == "Thing"


def test_object_dtype_blob_is_rejected_on_decode():
    blob = npy(np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(P.ProtocolError):
        P.decode({"$nd": 0}, [blob])


def test_pickled_payloads_are_rejected():
    for blob in (pickle.dumps([1, 2, 3]), pickle.dumps(np.arange(3)), pickle.dumps({"a": 1}, protocol=0)):
        with pytest.raises(P.ProtocolError):
            P.decode({"$nd": 0}, [blob])


def test_pickle_inside_npy_is_never_loaded(tmp_path):
    """An .npy of object dtype carries a pickle; decoding must refuse it without unpickling."""
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    blob = npy(np.array([Evil()], dtype=object), allow_pickle=True)
    with pytest.raises(P.ProtocolError):
        P.decode({"$nd": 0}, [blob])
    assert not marker.exists()


@pytest.mark.parametrize("tree", [
    [1, 2],                                  # bare JSON list
    {"$nd": 5},                              # no such blob
    {"$nd": "0"},
    {"$float": "1e999"},
    {"$tuple": "abc"},
    {"$dict": [1]},
    {"$obj": "1"},
    {"$unknown": 1},
    {"a": 1, "b": 2, "c": 3},
])
def test_malformed_trees_are_rejected(tree):
    with pytest.raises(P.ProtocolError):
        P.decode(tree, [])


def test_garbage_blob_is_rejected():
    with pytest.raises(P.ProtocolError, match="bad array"):
        P.decode({"$nd": 0}, [b"not an npy file"])


def test_deep_nesting_is_rejected():
    value = [1]
    for _ in range(P.MAX_DEPTH + 2):
        value = [value]
    with pytest.raises(P.ProtocolError, match="deep"):
        P.encode(value, [])
    tree = {"$list": [1]}
    for _ in range(P.MAX_DEPTH + 2):
        tree = {"$list": [tree]}
    with pytest.raises(P.ProtocolError, match="deep"):
        P.decode(tree, [])


# -- oversize ------------------------------------------------------------------------

def test_oversize_header_is_rejected():
    buf = io.BytesIO(struct.pack(">I", P.MAX_HEADER + 1) + b"{}")
    with pytest.raises(P.ProtocolError, match="header"):
        P.read_frame(buf)


def test_oversize_blobs_are_rejected_before_reading():
    header = json.dumps({"blobs": [P.MAX_BLOBS, 1]}).encode()
    buf = io.BytesIO(struct.pack(">I", len(header)) + header)  # the blobs are not even there
    with pytest.raises(P.ProtocolError, match="over the limit"):
        P.read_frame(buf)


def test_oversize_array_is_rejected_on_encode(monkeypatch):
    monkeypatch.setattr(P, "MAX_BLOBS", 1000)
    with pytest.raises(P.ProtocolError, match="too large"):
        P.encode(np.zeros(1000), [])


@pytest.mark.parametrize("blobs", [[-1], ["1"], "12", [1.5]])
def test_bad_blob_lists_are_rejected(blobs):
    header = json.dumps({"blobs": blobs}).encode()
    with pytest.raises(P.ProtocolError, match="blob"):
        P.read_frame(io.BytesIO(struct.pack(">I", len(header)) + header))


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b"\xff\xfe"])
def test_bad_headers_are_rejected(body):
    with pytest.raises(P.ProtocolError):
        P.read_frame(io.BytesIO(struct.pack(">I", len(body)) + body))


def test_truncated_frame_is_eof():
    buf = frame({"op": "x"}, [b"abcdef"])
    data = buf.getvalue()[:-2]
    with pytest.raises(EOFError):
        P.read_frame(io.BytesIO(data))
    with pytest.raises(EOFError):
        P.read_frame(io.BytesIO(b"\x00\x00"))


def test_too_long_sequences_are_rejected(monkeypatch):
    monkeypatch.setattr(P, "MAX_ITEMS", 10)
    with pytest.raises(P.ProtocolError):
        P.encode(list(range(11)), [])
    with pytest.raises(P.ProtocolError):
        P.decode({"$list": list(range(11))}, [])


# -- property ------------------------------------------------------------------------

NUMERIC = st.one_of(hnp.integer_dtypes(), hnp.unsigned_integer_dtypes(), hnp.floating_dtypes(),
                    hnp.boolean_dtypes())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hnp.arrays(NUMERIC, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)))
def test_numeric_arrays_roundtrip_exactly(arr):
    got = roundtrip(arr)
    assert type(got) is np.ndarray
    assert got.dtype == arr.dtype and got.shape == arr.shape
    np.testing.assert_array_equal(got, arr)  # nan == nan here


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-2**63 + 1, 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.tuples(children, children)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20))
def test_plain_values_roundtrip(value):
    assert roundtrip(value) == value
