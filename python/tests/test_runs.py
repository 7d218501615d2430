"""Octal games, index files and interrupted runs."""

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import grundy

GRUNDY = os.environ.get("GRUNDY", "grundy")


def cli(*args):
    done = subprocess.run([GRUNDY, *args], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def octal_oracle(code, n):
    """G(0..=n) of an octal game by its definition: every move of every heap."""
    head, tail = code.split(".")
    digits = [int(head or "0", 8)] + [int(c, 8) for c in tail]
    g = [0] * (n + 1)
    for h in range(1, n + 1):
        seen = set()
        for j, d in enumerate(digits[: h + 1]):
            rest = h - j
            if d & 1 and rest == 0:
                seen.add(0)
            if d & 2 and rest >= 1 and j >= 1:
                seen.add(g[rest])
            if d & 4 and rest >= 2:
                seen.update(g[a] ^ g[rest - a] for a in range(1, rest // 2 + 1))
        g[h] = next(x for x in range(len(seen) + 1) if x not in seen)
    return g


@pytest.mark.parametrize("code", ["0.77", "0.07", ".137", "4.7", "0.6", "0.51", "0.156", "0.3122"])
def test_octal_values_are_the_definitions(code):
    want = octal_oracle(code, 400)
    for naive in (False, True):
        got = grundy.octal(code, 400, naive=naive)
        assert got.values.dtype == np.uint32
        assert got.values.tolist() == want
    report = json.loads(cli("octal", code, "-n", "400", "--json", "--quiet"))
    period = grundy.octal(code, 400).period
    if period is None:
        assert report.get("period") is None
    else:
        assert (period.preperiod, period.period) == (report["preperiod"], report["period"])


def test_kayles_has_its_period_of_12():
    kayles = grundy.octal("0.77", 10_000)
    assert kayles.period is not None and kayles.period.period == 12
    assert kayles.period.preperiod == 71 and kayles.period.proved_at <= 10_000
    assert len(kayles.values) == 10_001


@pytest.mark.parametrize("code, message", [("077", "dot"), ("0.78", "octal digit"), ("0.0", "no move")])
def test_bad_octal_codes_are_the_command_lines_words(code, message):
    with pytest.raises(ValueError, match=message):
        grundy.octal(code, 10)


def mex_order(row, values, g):
    """``row`` (the moves of a position of value ``g``) as an index keeps it, by definition:
    the first move to each value below ``g`` in turn, then the others in their order."""
    head = [next(i for i, t in enumerate(row) if values[t] == want) for want in range(g)]
    return [row[i] for i in head] + [t for i, t in enumerate(row) if i not in head]


def test_an_index_gives_back_the_game_and_its_values(tmp_path):
    text, index = tmp_path / "g.txt", tmp_path / "g.grundy"
    cli("generate", "-n", "1..300", "--cases", "2", "--seed", "8", "-o", str(text))
    cli("index", str(text), "-o", str(index))
    for case in (1, 2):
        a, b = grundy.read(text, case=case), grundy.read(index, case=case)
        (indptr, moves), (kept_indptr, kept) = a.csr(), b.csr()
        assert kept_indptr.tolist() == indptr.tolist()
        values = a.values().tolist()
        for v, (start, end) in enumerate(zip(indptr[:-1], indptr[1:])):
            row = moves[start:end].tolist()
            assert kept[start:end].tolist() == mex_order(row, values, values[v]), v
        assert b.values().tolist() == a.values().tolist()
        assert b.levels().tolist() == a.levels().tolist()
    with pytest.raises(ValueError, match="has no case 3"):
        grundy.read(index, case=3)
    with pytest.raises(ValueError, match="drop format"):
        grundy.read(index, format="edges")
    loopy, loopy_index = tmp_path / "l.txt", tmp_path / "l.grundy"
    cli("generate", "-n", "300", "--back-edges", "0.3", "--seed", "8", "-o", str(loopy))
    cli("index", "--loopy", str(loopy), "-o", str(loopy_index))
    mine, theirs = grundy.read(loopy, loopy=True).loopy(), grundy.read(loopy_index).loopy()
    assert mine.values.tolist() == theirs.values.tolist() and mine.infinite.any()
    assert mine.k_values.tolist() == theirs.k_values.tolist()


def test_a_corrupt_index_is_the_command_lines_error(tmp_path):
    text, index = tmp_path / "g.txt", tmp_path / "g.grundy"
    cli("generate", "-n", "2000", "--seed", "3", "-o", str(text))
    cli("index", str(text), "-o", str(index))
    data = bytearray(index.read_bytes())
    data[len(data) // 2] ^= 0xFF
    index.write_bytes(bytes(data))
    expected = subprocess.run([GRUNDY, "values", str(index)], capture_output=True).stderr.decode()
    with pytest.raises(ValueError) as caught:
        grundy.read(index)
    assert "error: " + str(caught.value) == expected.strip()
    short = tmp_path / "short.grundy"
    short.write_bytes(bytes(data[:100]))
    with pytest.raises(ValueError, match=str(short)):
        grundy.read(short)


CHILD = """
import signal, sys, time, grundy
# Python leaves SIGINT ignored when it starts so (a job started with `&` by a shell without job
# control, as a CI runner may start the tests): take it as Ctrl-C's KeyboardInterrupt anyway.
signal.signal(signal.SIGINT, signal.default_int_handler)
print("go", flush=True)
try:
    grundy.octal("0.6", 10**9)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
cpu = time.process_time()
time.sleep(1.0)
print(time.process_time() - cpu, flush=True)
print(grundy.Graph.from_edges([0, 1], [1, 2]).values().tolist(), flush=True)
"""


def test_ctrl_c_interrupts_a_long_run_and_stops_its_work():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    # A run the signal does not reach would go on for hours: end it, and the reads below fail.
    watchdog = threading.Timer(30, child.kill)
    watchdog.start()
    assert child.stdout.readline().strip() == "go"
    time.sleep(1.0)
    sent = time.monotonic()
    child.send_signal(2)
    line = child.stdout.readline().strip()
    if line != "interrupted":
        rest = child.stdout.read()
        pytest.fail(f"read {line!r}, then {rest!r}; the child's exit: {child.wait(10)}")
    assert time.monotonic() - sent < 1.0
    # The engine's thread stops at its next progress report: the process is idle after.
    assert float(child.stdout.readline()) < 0.2
    assert child.stdout.readline().strip() == "[0, 1, 0]"
    assert child.wait(10) == 0
    watchdog.cancel()
