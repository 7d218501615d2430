"""Winning moves, loopy games and statistics against plain-Python oracles and the CLI."""

import csv
import functools
import io
import json
import os
import random
import subprocess

import numpy as np
import pytest

import grundy

from test_graph import csr_of, oracle, random_dag

GRUNDY = os.environ.get("GRUNDY", "grundy")


def cli(*args):
    done = subprocess.run([GRUNDY, *args], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def nim_sum(values, positions):
    x = 0
    for p in positions:
        x ^= values[p]
    return x


@pytest.mark.parametrize("seed", range(10))
def test_winning_moves_leave_a_zero_nim_sum(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 120)
    lists = random_dag(rng, n, rng.choice([1, 3, 6]))
    values, _ = oracle(n, lists)
    g = grundy.Graph.from_csr(*csr_of(lists))
    queries = [[rng.randrange(n) for _ in range(rng.randint(0, 4))] for _ in range(300)]
    moves = g.winning_moves(queries)
    assert len(moves) == len(queries)
    for q, move in zip(queries, moves):
        if nim_sum(values, q) == 0:
            assert move is None
            continue
        start, to = move
        assert start in q and to in lists[start]
        after = list(q)
        after[after.index(start)] = to
        assert nim_sum(values, after) == 0


def test_winning_moves_are_the_command_lines(tmp_path):
    graph, queries = tmp_path / "g.txt", tmp_path / "q.txt"
    cli("generate", "-n", "500", "--avg-degree", "3", "--seed", "9", "-o", str(graph))
    rng = random.Random(9)
    asked = [[rng.randrange(500) for _ in range(rng.randint(1, 4))] for _ in range(400)]
    queries.write_text("".join(f"{len(q)} {' '.join(map(str, q))}\n" for q in asked))
    rows = list(csv.DictReader(io.StringIO(cli("query", str(graph), str(queries)))))
    assert [[int(p) for p in r["positions"].split()] for r in rows] == asked
    g = grundy.read(graph)
    assert g.outcomes(asked) == [r["result"] for r in rows]
    want = [(int(r["move_from"]), int(r["move_to"])) if r["move_from"] else None for r in rows]
    assert g.winning_moves(asked) == want


def random_loopy(rng, n, degree):
    """Lists of a random directed graph on ``n`` nodes: cycles and self-loops allowed."""
    return [[rng.randrange(n) for _ in range(rng.randint(0, degree))] for _ in range(n)]


def retrograde(states, moves):
    """WIN, LOSE or DRAW of every state of a game graph by retrograde analysis: a state with
    no move is a LOSE; one with a move to a LOSE a WIN; one whose moves all go to WINs a LOSE;
    what is never decided a DRAW (play can go on for ever)."""
    successors = {s: moves(s) for s in states}
    predecessors = {s: [] for s in states}
    for s, after in successors.items():
        for t in after:
            predecessors[t].append(s)
    left = {s: len(after) for s, after in successors.items()}
    outcome = {}
    queue = [s for s in states if left[s] == 0]
    for s in queue:
        outcome[s] = "LOSE"
    while queue:
        s = queue.pop()
        for p in predecessors[s]:
            if p in outcome:
                continue
            if outcome[s] == "LOSE":
                outcome[p] = "WIN"
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    outcome[p] = "LOSE"
                    queue.append(p)
    return {s: outcome.get(s, "DRAW") for s in states}


@pytest.mark.parametrize("seed", range(25))
def test_loopy_outcomes_are_those_of_the_sum_played_out(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 14)
    lists = random_loopy(rng, n, rng.choice([1, 2, 3]))
    g = grundy.Graph.from_csr(*csr_of(lists))
    labels = g.loopy(threads=rng.choice([None, 1, 2]))
    # One token, then two: the sum's own graph, a move moving one of the tokens.
    one = retrograde(range(n), lambda v: lists[v])
    pairs = [(a, b) for a in range(n) for b in range(n)]
    two = retrograde(pairs, lambda s: [(t, s[1]) for t in lists[s[0]]] + [(s[0], t) for t in lists[s[1]]])
    assert g.outcomes([[v] for v in range(n)], loopy=True) == [one[v] for v in range(n)]
    assert g.outcomes([list(s) for s in pairs], loopy=True) == [two[s] for s in pairs]
    for v in range(n):
        finite = {int(labels.values[w]) for w in lists[v] if not labels.infinite[w]}
        if labels.infinite[v]:
            assert labels.values[v] == grundy.INFINITE
            assert labels.k(v).tolist() == sorted(finite)
        else:
            assert labels.values[v] == next(x for x in range(len(finite) + 1) if x not in finite)
            assert labels.k(v).size == 0
    # A winning move leaves a LOSE.
    for s, move in zip(pairs, g.winning_moves([list(s) for s in pairs], loopy=True)):
        assert (move is not None) == (two[s] == "WIN")
        if move is not None:
            start, to = move
            assert start in s and to in lists[start]
            after = (to, s[1]) if s[0] == start else (s[0], to)
            assert two[after] == "LOSE"


def test_loopy_labels_are_the_command_lines(tmp_path):
    path = tmp_path / "loopy.txt"
    cli("generate", "-n", "300", "--avg-degree", "2", "--back-edges", "0.3", "--seed", "4", "-o", str(path))
    rows = list(csv.DictReader(io.StringIO(cli("values", "--loopy", str(path)))))
    labels = grundy.read(path, loopy=True).loopy()
    assert labels.infinite.tolist() == [r["grundy"] == "inf" for r in rows]
    assert [int(v) for v, inf in zip(labels.values, labels.infinite) if not inf] == [
        int(r["grundy"]) for r in rows if r["grundy"] != "inf"
    ]
    assert [labels.k(v).tolist() for v in range(len(rows))] == [
        [int(k) for k in r["infinite_set"].split()] for r in rows
    ]
    assert grundy.read(path, loopy=True).outcomes([[v] for v in range(len(rows))], loopy=True) == [r["outcome"] for r in rows]
    assert labels.infinite.any(), "the generated game has infinite positions"


def test_an_acyclic_games_loopy_labels_are_its_values():
    rng = random.Random(11)
    lists = random_dag(rng, 200, 4)
    g = grundy.Graph.from_csr(*csr_of(lists))
    labels = g.loopy()
    assert labels.values.tolist() == g.values().tolist()
    assert not labels.infinite.any() and labels.k_values.size == 0


def test_stats_are_the_command_lines(tmp_path):
    for extra in ([], ["--back-edges", "0.2"]):
        path = tmp_path / "s.txt"
        cli("generate", "-n", "2000", "--avg-degree", "4", "--seed", "2", *extra, "-o", str(path))
        loopy = bool(extra)
        report = json.loads(cli("stats", "--json", *(["--loopy"] if loopy else []), str(path)))
        want = report["cases"][0]
        mine = grundy.read(path, loopy=loopy).stats(loopy=loopy)
        assert mine == {k: v for k, v in want.items() if k in mine}
        dropped = {"case", "seconds", "queries", "wins", "losses", "draws"}
        assert set(want) - set(mine) <= dropped
        assert mine["nodes"] == 2000 and ("infinite" in mine) == loopy


def test_stats_count_what_the_arrays_hold():
    rng = random.Random(5)
    n = 300
    lists = random_dag(rng, n, 5)
    values, levels = oracle(n, lists)
    stats = grundy.Graph.from_csr(*csr_of(lists)).stats()
    assert stats["nodes"] == n and stats["edges"] == sum(map(len, lists))
    assert stats["sinks"] == sum(1 for l in lists if not l)
    assert stats["max_grundy"] == max(values)
    assert stats["grundy_histogram"] == np.bincount(values).tolist()
    assert stats["level_histogram"] == np.bincount(levels).tolist()
    assert stats["levels"] == max(levels) + 1


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda g: g.winning_moves([[0, 9]]), r"queries\[0\]\[1\] is 9, not a node: ids are 0 to 2"),
        (lambda g: g.outcomes([[0], [-1]], loopy=True), r"queries\[1\]\[0\] is -1"),
        (lambda g: g.outcomes([[0.5]]), "float64 positions: give integers"),
        (lambda g: g.outcomes(np.array([[0, 3]])), r"queries\[0\]\[1\] is 3"),
    ],
)
def test_bad_queries_say_which_position_and_why(call, message):
    g = grundy.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match=message):
        call(g)


def test_a_cyclic_game_answers_only_as_a_loopy_one():
    g = grundy.Graph.from_edges([0, 1, 1], [1, 0, 2])
    with pytest.raises(grundy.CycleError):
        g.outcomes([[0]])
    assert g.outcomes([[0], [1], [2]], loopy=True) == ["LOSE", "WIN", "LOSE"]
    with pytest.raises(grundy.CycleError):
        g.stats()
    assert g.stats(loopy=True)["infinite"] == 0


def remoteness(lists):
    """Steinhaus's remoteness by its definition: 0 at a sink; else 1 + the least even
    remoteness of a move when there is one (the mover wins as fast as they can), else 1 +
    the largest (they lose as slowly as they can)."""
    memo = {}

    def r(v):
        if v not in memo:
            after = [r(w) for w in lists[v]]
            even = [x for x in after if x % 2 == 0]
            memo[v] = 0 if not after else 1 + (min(even) if even else max(after))
        return memo[v]

    return [r(v) for v in range(len(lists))]


@pytest.mark.parametrize("seed", range(5))
def test_conjunctive_play_is_the_remoteness_of_the_definition(seed):
    rng = random.Random(100 + seed)
    n = rng.randint(1, 80)
    lists = random_dag(rng, n, rng.choice([1, 3]))
    g = grundy.Graph.from_csr(*csr_of(lists))
    want = remoteness(lists)
    assert g.play("conjunctive").tolist() == want
    queries = [[rng.randrange(n) for _ in range(rng.randint(1, 3))] for _ in range(100)]
    # A conjunctive sum ends with its fastest token: a WIN when the least remoteness is odd.
    expected = ["WIN" if min(want[p] for p in q) % 2 else "LOSE" for q in queries]
    assert g.outcomes(queries, play="conjunctive") == expected
    for q, moves, word in zip(queries, g.winning_moves(queries, play="conjunctive"), expected):
        # Every token moves, each to a position one nearer the end.
        assert len(moves) == (len(q) if word == "WIN" else 0)
        for start, to in moves:
            assert to in lists[start] and want[to] + 1 == want[start]


@pytest.mark.parametrize("play,column", [("conjunctive", "remoteness"), ("continued", "suspense"),
                                         ("misere", "misere_grundy")])
def test_plays_are_the_command_lines(tmp_path, play, column):
    graph, queries = tmp_path / "g.txt", tmp_path / "q.txt"
    cli("generate", "-n", "400", "--avg-degree", "2", "--seed", "11", "-o", str(graph))
    rows = list(csv.DictReader(io.StringIO(cli("values", "--play", play, str(graph)))))
    g = grundy.read(graph)
    numbers = g.play(play)
    if play == "misere":
        assert isinstance(numbers, grundy.Misere)
        heaps = [int(r["misere_heap"]) if r["misere_heap"] else grundy.NO_HEAP for r in rows]
        assert numbers.heaps.tolist() == heaps
        numbers = numbers.values
    assert numbers.tolist() == [int(r[column]) for r in rows]
    rng = random.Random(11)
    asked = [[rng.randrange(400) for _ in range(rng.randint(1, 3))] for _ in range(300)]
    queries.write_text("".join(f"{len(q)} {' '.join(map(str, q))}\n" for q in asked))
    answers = list(csv.DictReader(io.StringIO(cli("query", "--play", play, str(graph), str(queries)))))
    assert g.outcomes(asked, play=play) == [r["result"] for r in answers]
    want = [list(zip(map(int, r["move_from"].split()), map(int, r["move_to"].split()))) for r in answers]
    assert g.winning_moves(asked, play=play) == want


def test_bad_plays_are_refused():
    g = grundy.Graph.from_csr(*csr_of([[1], []]))
    with pytest.raises(ValueError, match="expected normal, misere"):
        g.play("nim")
    with pytest.raises(ValueError, match="not with loopy"):
        g.outcomes([[0]], loopy=True, play="misere")
    assert g.play("normal").tolist() == g.values().tolist()


def test_misere_numbers_and_tame_flags_are_the_definitions():
    """Misère values (a position with no move is 1, else the mex of its moves') and the tame
    flags (genus a^a, 0^1 or 1^0, and every move tame), by the definitions on random DAGs."""
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        n = rng.randint(1, 60)
        lists = random_dag(rng, n, rng.choice([1, 2, 3]))
        normal, _ = oracle(n, lists)

        @functools.cache
        def misere(v):
            moves = {misere(w) for w in lists[v]}
            return 1 if not lists[v] else next(x for x in range(len(moves) + 1) if x not in moves)

        @functools.cache
        def tame(v):
            g, m = normal[v], misere(v)
            return (m == g or (g, m) in ((0, 1), (1, 0))) and all(tame(w) for w in lists[v])

        numbers = grundy.Graph.from_csr(*csr_of(lists)).play("misere")
        assert numbers.values.tolist() == [misere(v) for v in range(n)], seed
        assert numbers.tame.dtype == np.bool_
        assert numbers.tame.tolist() == [tame(v) for v in range(n)], seed
        seen.update(numbers.tame.tolist())
    assert seen == {True, False}


def test_the_genus_is_the_command_lines(tmp_path):
    """``play("misere", genus=True)`` gives ``values --play misere --genus``'s column, and
    ``outcomes``/``winning_moves`` with ``genus=True`` give ``query --play misere --genus``'s
    rows; without the genus, the sums it decides are ``UNDECIDED``."""
    graph, queries = tmp_path / "g.txt", tmp_path / "q.txt"
    cli("generate", "-n", "300", "--avg-degree", "2", "--seed", "13", "-o", str(graph))
    rows = list(csv.DictReader(io.StringIO(cli("values", "--play", "misere", "--genus", str(graph)))))
    g = grundy.read(graph)
    m = g.play("misere", genus=True)
    assert [m.genus(v).tolist() for v in range(300)] == [
        [int(x) for x in r["misere_genus"].split()] for r in rows
    ]
    assert g.play("misere").genus_indptr is None
    heaps = [v for v in range(300) if m.heaps[v] in (1, 2, 3)]
    rng = random.Random(13)
    asked = [[rng.randrange(300)] + [rng.choice(heaps) for _ in range(rng.randint(1, 4))]
             for _ in range(300)]
    queries.write_text("".join(f"{len(q)} {' '.join(map(str, q))}\n" for q in asked))
    answers = list(csv.DictReader(io.StringIO(
        cli("query", "--play", "misere", "--genus", str(graph), str(queries)))))
    assert g.outcomes(asked, play="misere", genus=True) == [r["result"] for r in answers]
    want = [list(zip(map(int, r["move_from"].split()), map(int, r["move_to"].split())))
            for r in answers]
    assert g.winning_moves(asked, play="misere", genus=True) == want
    without = g.outcomes(asked, play="misere")
    assert without.count("UNDECIDED") > [r["result"] for r in answers].count("UNDECIDED")
    with pytest.raises(ValueError, match="genus=True goes with"):
        g.play("conjunctive", genus=True)
