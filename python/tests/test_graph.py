"""The Python module against a plain-Python oracle, the command line, networkx and scipy."""

import csv
import io
import os
import random
import subprocess

import networkx as nx
import numpy as np
import pytest
import scipy.sparse

import grundy

GRUNDY = os.environ.get("GRUNDY", "grundy")


def oracle(n, lists):
    """Grundy values and levels by the definitions, memoised over an explicit stack."""
    values, levels = [None] * n, [None] * n
    for root in range(n):
        stack = [root]
        while stack:
            v = stack[-1]
            if values[v] is not None:
                stack.pop()
                continue
            pending = [w for w in lists[v] if values[w] is None]
            if pending:
                stack.extend(pending)
                continue
            seen = {values[w] for w in lists[v]}
            values[v] = next(g for g in range(len(seen) + 1) if g not in seen)
            levels[v] = 1 + max((levels[w] for w in lists[v]), default=-1)
            stack.pop()
    return values, levels


def random_dag(rng, n, degree):
    """Lists of a random DAG on ``n`` shuffled nodes (parallel edges allowed)."""
    order = list(range(n))
    rng.shuffle(order)
    lists = [[] for _ in range(n)]
    for rank, v in enumerate(order):
        later = order[rank + 1 :]
        if later:
            lists[v] = [rng.choice(later) for _ in range(rng.randint(0, degree))]
    return lists


def csr_of(lists):
    indptr = np.cumsum([0] + [len(l) for l in lists])
    indices = np.array([w for l in lists for w in l], dtype=np.int64)
    return indptr, indices


def edges_of(lists):
    src = [v for v, l in enumerate(lists) for _ in l]
    dst = [w for l in lists for w in l]
    return src, dst


@pytest.mark.parametrize("seed", range(40))
def test_values_and_levels_match_the_oracle(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 300)
    lists = random_dag(rng, n, rng.choice([1, 3, 8, 30]))
    want_values, want_levels = oracle(n, lists)
    src, dst = edges_of(lists)
    for g in [grundy.Graph.from_csr(*csr_of(lists)), grundy.Graph.from_edges(src, dst, n)]:
        assert (g.node_count, g.edge_count) == (n, len(src))
        for threads in [None, 1, 2, 3]:
            assert g.values(threads).tolist() == want_values
            assert g.levels(threads).tolist() == want_levels
        assert g.values().dtype == np.uint32


def test_outcomes_are_the_nim_sum_of_the_tokens():
    rng = random.Random(7)
    n = 200
    lists = random_dag(rng, n, 4)
    values, _ = oracle(n, lists)
    g = grundy.Graph.from_csr(*csr_of(lists))
    queries = [[rng.randrange(n) for _ in range(rng.randint(1, 5))] for _ in range(500)]
    want = []
    for q in queries:
        nim = 0
        for v in q:
            nim ^= values[v]
        want.append("WIN" if nim else "LOSE")
    assert g.outcomes(queries) == want
    grid = np.array([q[:1] * 3 for q in queries])
    assert g.outcomes(grid) == ["WIN" if values[q[0]] else "LOSE" for q in queries]
    assert g.outcomes([[]]) == ["LOSE"]


def cli(*args, stdin=None):
    return subprocess.run([GRUNDY, *args], input=stdin, capture_output=True, check=False)


def test_read_gives_the_command_lines_values(tmp_path):
    path = tmp_path / "g.txt"
    made = cli("generate", "-n", "1..400", "--cases", "3", "--seed", "5", "-o", str(path))
    assert made.returncode == 0, made.stderr
    rows = list(csv.DictReader(io.StringIO(cli("values", str(path)).stdout.decode())))
    for case in (1, 2, 3):
        mine = [r for r in rows if r["case"] == str(case)]
        g = grundy.read(path, case=case)
        assert g.values().tolist() == [int(r["grundy"]) for r in mine]
        assert g.levels().tolist() == [int(r["level"]) for r in mine]
        # The same graph through its arrays.
        again = grundy.Graph.from_csr(*g.csr())
        assert again.values().tolist() == g.values().tolist()
    edges = tmp_path / "e.txt"
    edges.write_text("0 1\n1 2\n# c\n0 2\n")
    g = grundy.read(edges, format="edges", nodes=5)
    assert (g.node_count, g.values().tolist()) == (5, [2, 1, 0, 0, 0])


def test_networkx_and_scipy_graphs():
    rng = random.Random(3)
    n = 150
    lists = random_dag(rng, n, 5)
    values, _ = oracle(n, lists)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from((v, w) for v, l in enumerate(lists) for w in l)
    simple = [sorted(set(l), key=l.index) for l in lists]  # a DiGraph keeps one edge per pair
    assert grundy.Graph.from_networkx(G).values().tolist() == oracle(n, simple)[0]
    assert oracle(n, simple)[0] == values  # repeats change no value
    labelled = nx.relabel_nodes(G, {v: f"p{v}" for v in range(n)})
    g, labels = grundy.from_networkx_labelled(labelled)
    by_label = dict(zip(labels, g.values().tolist()))
    assert by_label == {f"p{v}": values[v] for v in range(n)}
    with pytest.raises(ValueError, match="from_networkx_labelled"):
        grundy.Graph.from_networkx(labelled)
    # Nodes added in another order, numpy integers as nodes (read through __index__), a
    # multigraph (parallel edges count once), a graph whose numbers skip one.
    backwards = nx.DiGraph()
    backwards.add_nodes_from(reversed(range(n)))
    backwards.add_edges_from(G.edges)
    assert grundy.Graph.from_networkx(backwards).values().tolist() == values
    numpy_nodes = nx.relabel_nodes(G, {v: np.int64(v) for v in range(n)})
    assert grundy.Graph.from_networkx(numpy_nodes).values().tolist() == values
    multi = nx.MultiDiGraph(G)
    multi.add_edges_from(G.edges)
    assert grundy.Graph.from_networkx(multi).csr()[1].tolist() == grundy.Graph.from_networkx(G).csr()[1].tolist()
    gap = nx.DiGraph([(0, 2)])
    with pytest.raises(ValueError, match="node 2 is not one of the integers 0 to 1"):
        grundy.Graph.from_networkx(gap)
    matrix = scipy.sparse.csr_matrix(
        (np.ones(sum(map(len, simple))), csr_of(simple)[1], csr_of(simple)[0]), shape=(n, n)
    )
    assert grundy.Graph.from_scipy(matrix).values().tolist() == values
    assert grundy.Graph.from_scipy(matrix.tocoo()).values().tolist() == values
    with pytest.raises(ValueError, match="square"):
        grundy.Graph.from_scipy(scipy.sparse.csr_matrix((2, 3)))


def test_networkx_nodes_are_read_by_value_whatever_their_objects_and_hashes():
    # Numbers above 256, each edge's its own int object (as when read from a file): the fast
    # path takes keys by their hashes and checks each new object.
    rng = random.Random(5)
    n = 700
    lists = random_dag(rng, n, 4)
    simple = [sorted(set(l), key=l.index) for l in lists]
    G = nx.DiGraph()
    G.add_nodes_from(int(str(v)) for v in range(n))
    G.add_edges_from((int(str(v)), int(str(w))) for v, l in enumerate(lists) for w in l)
    g = grundy.Graph.from_networkx(G)
    assert g.csr()[1].tolist() == [w for l in simple for w in l]
    assert g.values().tolist() == oracle(n, simple)[0]

    class Liar(int):
        """An int whose hash is another node's number."""

        def __hash__(self):
            return (int(self) + 1) % 3

    class Impostor:
        """Not an int, with a node's number as its hash."""

        def __hash__(self):
            return 1

    class Adjacency:
        pass

    liars = Adjacency()
    liars._adj = {0: {Liar(1): {}}, 1: {Liar(2): {}}, 2: {}}
    g = grundy.Graph.from_networkx(liars)
    assert (g.csr()[1].tolist(), g.values().tolist()) == ([1, 2], [0, 1, 0])
    impostor = Adjacency()
    impostor._adj = {0: {Impostor(): {}}, 1: {}}
    with pytest.raises(ValueError, match="is not one of the integers 0 to 1"):
        grundy.Graph.from_networkx(impostor)


def test_networkx_lists_walked_in_pieces_are_checked_in_every_piece():
    # Past 2 x 4,096 nodes the lists are walked in pieces on rayon's threads (on CPython, with
    # 2 or more cores): each piece's new key objects are checked, the last piece's too.
    rng = random.Random(11)
    n = 2 * 4096 + 300
    lists = random_dag(rng, n, 3)
    simple = [sorted(set(l), key=l.index) for l in lists]
    values = oracle(n, simple)[0]
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from((v, int(str(w))) for v, l in enumerate(lists) for w in l)
    g = grundy.Graph.from_networkx(G)
    assert g.csr()[1].tolist() == [w for l in simple for w in l]
    assert g.values().tolist() == values

    class Liar(int):
        """An int whose hash is another node's number."""

        def __hash__(self):
            return (int(self) + 1) % n

    class Adjacency:
        pass

    # The last node's list (in the last piece) holds a key whose hash names the wrong node (the
    # last node itself): it is read by value.
    liars = Adjacency()
    liars._adj = {v: {w: {} for w in simple[v]} for v in range(n)}
    liars._adj[n - 1] = {Liar(n - 2): {}}
    expected = [list(l) for l in simple]
    expected[n - 1] = [n - 2]
    assert grundy.Graph.from_networkx(liars).csr()[1].tolist() == [w for l in expected for w in l]

    class Impostor:
        """Not an int, with a node's number as its hash."""

        def __hash__(self):
            return 1

    liars._adj[n - 1] = {Impostor(): {}}
    with pytest.raises(ValueError, match=f"is not one of the integers 0 to {n - 1}"):
        grundy.Graph.from_networkx(liars)


def test_cycles_name_their_nodes():
    with pytest.raises(grundy.CycleError, match=r"^cycle 0 -> 1 -> 0$") as caught:
        grundy.Graph.from_edges([0, 1, 1], [1, 0, 2]).values()
    assert caught.value.cycle == [0, 1]
    with pytest.raises(grundy.CycleError, match="cycle 2 -> 2") as caught:
        grundy.Graph.from_edges([2], [2]).levels(threads=1)
    assert caught.value.cycle == [2]
    assert issubclass(grundy.CycleError, ValueError)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: grundy.Graph.from_csr([1, 1], []), r"indptr\[0\] is 1: the first offset must be 0"),
        (lambda: grundy.Graph.from_csr([0, 2, 1], [0, 1]), r"indptr\[2\] is 1: offsets must not decrease"),
        (lambda: grundy.Graph.from_csr([0, 1], [0, 0]), r"indptr\[1\] is 1, but indices holds 2 moves"),
        (lambda: grundy.Graph.from_csr([], []), "indptr is empty"),
        (lambda: grundy.Graph.from_csr([0, 1, 1], [7]), r"indices\[0\] is 7, not a node: ids are 0 to 1"),
        (lambda: grundy.Graph.from_edges([0, -1], [1, 1]), r"src\[1\] is -1, not a node"),
        (lambda: grundy.Graph.from_edges([0], [3], n=2), r"dst\[0\] is 3, not a node: ids are 0 to 1"),
        (lambda: grundy.Graph.from_edges([0], [1, 2]), "src holds 1 ids and dst 2"),
        (lambda: grundy.Graph.from_edges([0.5], [1]), "float64 values: give integers"),
        (lambda: grundy.Graph.from_edges([[0]], [[1]]), "2 dimensions"),
        (lambda: grundy.Graph.from_edges([0], [1], n=-1), "n is -1"),
        (lambda: grundy.Graph.from_edges([], []).values(threads=0), "threads must be at least 1"),
        (lambda: grundy.Graph.from_edges([0], [1]).outcomes([[0, 2]]), r"queries\[0\]\[1\] is 2"),
    ],
)
def test_bad_arrays_say_which_entry_and_why(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_read_errors_are_the_command_lines(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("2\n1 7\n0\n")
    expected = cli("values", str(bad)).stderr.decode().strip().removeprefix("error: ")
    with pytest.raises(ValueError) as caught:
        grundy.read(bad)
    assert str(caught.value) == expected
    assert f"{bad}:2:3:" in expected
    cyclic = tmp_path / "c.txt"
    cyclic.write_text("2\n1 1\n1 0\n")
    with pytest.raises(grundy.CycleError, match="cycle 0 -> 1 -> 0") as caught:
        grundy.read(cyclic)
    assert caught.value.cycle == [0, 1]
    with pytest.raises(OSError, match="cannot open"):
        grundy.read(tmp_path / "missing.txt")
    one = tmp_path / "one.txt"
    one.write_text("1 0\n")
    with pytest.raises(ValueError, match="has no case 2"):
        grundy.read(one, case=2)
    with pytest.raises(ValueError, match="format"):
        grundy.read(bad, format="xml")
