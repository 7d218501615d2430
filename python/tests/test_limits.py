"""Hostile sizes and shapes raise exceptions; none ends the interpreter (issue 63, item 7).

Each case runs in a child interpreter under a 4 GB address-space limit (``ulimit -v``), so
that an abort (SIGABRT: a failed allocation in Rust) kills the child, not pytest. The child
prints the exception it caught; the test checks its type and that the child exited normally.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import grundy

GRUNDY = os.environ.get("GRUNDY", "grundy")

LIMIT = 4_000_000_000

CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
import grundy, numpy as np
{setup}
try:
    {call}
    caught = None
except Exception as e:
    caught = [type(e).__name__, str(e)]
print(json.dumps(caught))
"""


def in_child(call, setup="", limit=LIMIT):
    """The exception ``[type, message]`` (or ``None``) that ``call`` raised in a child under
    an address-space limit of ``limit`` bytes, which must have exited normally."""
    program = CHILD.format(limit=limit, setup=setup, call=call)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"the child ended with {done.returncode}: {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "call, kind, message",
    [
        # An id far past what the edges describe needs n= (the CLI's --nodes rule).
        ("grundy.Graph.from_edges([0], [2**30])", "ValueError", "give n= to allow it"),
        ("grundy.Graph.from_edges([0], [4_000_000_000]).values()", "ValueError", "give n="),
        ("grundy.Graph.from_edges([2**32 - 1], [0])", "ValueError", r"src[0] is 4294967295, not a node id"),
        # Asked for with n=: 16 GB of offsets is a MemoryError naming the bytes.
        (
            "grundy.Graph.from_edges([0], [4_000_000_000], n=4_000_000_001).values()",
            "MemoryError",
            "cannot allocate 16000000012 bytes (16.0 GB) for a graph of 4000000001 nodes",
        ),
        ("grundy.octal('0.77', 10**12)", "MemoryError", "4000000000004 bytes (4.0 TB) for G(0..=n)"),
        ("grundy.octal('0.77', 2**64 - 1)", "MemoryError", "for G(0..=n)"),
    ],
)
def test_hostile_sizes_raise_under_a_memory_limit(call, kind, message):
    caught = in_child(call)
    assert caught is not None and caught[0] == kind, caught
    assert message in caught[1], caught


def test_read_with_too_many_nodes_raises_under_a_memory_limit(tmp_path):
    edges = tmp_path / "e.txt"
    edges.write_text("0 1\n")
    call = f"grundy.read({str(edges)!r}, format='edges', nodes=4_000_000_000)"
    caught = in_child(call)
    assert caught is not None and caught[0] == "MemoryError", caught
    assert "the offsets of nodes=4000000000" in caught[1], caught


@pytest.mark.parametrize("method", ["values()", "levels()", "loopy()", "play('misere')", "stats()"])
def test_a_graph_whose_run_does_not_fit_raises(method):
    # A graph that fits, then a limit just above what the process holds: the engine's cells
    # (a byte a node at least) do not fit, which aborted before the check.
    setup = """
def size():
    return next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
warm = grundy.Graph.from_edges([0, 1], [1, 2])
warm.values(); warm.levels(); warm.loopy(); warm.play('misere'); warm.stats()
g = grundy.Graph.from_edges([], [], n=10_000_000)
resource.setrlimit(resource.RLIMIT_AS, (size() + (8 << 20), resource.RLIM_INFINITY))
"""
    caught = in_child(f"g.{method}", setup=setup, limit=-1)
    assert caught is not None and caught[0] == "MemoryError", caught
    assert "of 10000000 nodes" in caught[1], caught


def test_the_refusal_of_a_far_id_is_the_command_lines(tmp_path):
    # The same rule as `--format edges` without --nodes: the largest id below 2^24 is free,
    # past it an id needs an edge per 64 ids.
    many = 2**24 // 64
    for src, dst in [
        ([0], [2**24 - 1]),
        ([0], [2**24]),
        ([0] * many, [1] * (many - 1) + [2**24]),
        ([0] * (many - 1), [1] * (many - 2) + [2**24]),
    ]:
        edges = tmp_path / "e.txt"
        edges.write_text("".join(f"{u} {v}\n" for u, v in zip(src, dst)))
        done = subprocess.run([GRUNDY, "stats", "--format", "edges", str(edges)], capture_output=True, text=True)
        try:
            graph = grundy.Graph.from_edges(src, dst)
        except ValueError as e:
            assert done.returncode == 1 and "give --nodes" in done.stderr, done.stderr
            nodes = f"{max(dst) + 1} nodes from {len(src)} edge"
            assert nodes in str(e) and nodes in done.stderr, (str(e), done.stderr)
        else:
            assert done.returncode == 0, done.stderr
            assert graph.node_count == max(dst) + 1


@pytest.mark.parametrize(
    "queries, entry",
    [
        ([[[5], [7]]], "queries[0][0] is [5]"),
        ([[[1, 2]]], "queries[0][0] is [1, 2]"),
        ([[0], [1, [2, 3]]], "queries[1][1] is [2, 3]"),
        ([[0, None]], "queries[0][1] is None"),
        ([[2**70]], "queries[0][0] is 1180591620717411303424, not a node"),
    ],
)
def test_a_query_is_a_flat_list_of_positions(queries, entry):
    g = grundy.Graph.from_edges(list(range(9)), list(range(1, 10)))
    for ask in (g.outcomes, g.winning_moves, lambda q: g.outcomes(q, play="misere")):
        with pytest.raises(ValueError) as caught:
            ask(queries)
        assert entry in str(caught.value)
    with pytest.raises(ValueError, match="a query is one position"):
        g.outcomes([[[5], [7]]])
    with pytest.raises(ValueError, match="queries is a 3-D array: a query is"):
        g.outcomes(np.zeros((1, 1, 1), dtype=np.int64))
    # What a query is, still answered: one position, a list of them, a 2-D array.
    assert g.outcomes([9, [8], [0, 9]]) == ["LOSE", "WIN", "WIN"]


def test_an_undirected_networkx_graph_is_refused_with_a_hint():
    nx = pytest.importorskip("networkx")
    for G in (nx.path_graph(3), nx.MultiGraph([(0, 1)])):
        for make in (grundy.Graph.from_networkx, grundy.from_networkx_labelled):
            with pytest.raises(TypeError, match=r"undirected.*nx\.DiGraph\(G\)"):
                make(G)
    # Directed, it is a game; both ways along each edge, a loopy one.
    both = grundy.Graph.from_networkx(nx.DiGraph(nx.path_graph(3)))
    assert both.edge_count == 4
    assert both.loopy().infinite.tolist() == [True, True, True]


def test_from_scipy_names_the_types_it_takes():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    for dense in (np.ones((2, 2)), [[0, 1], [0, 0]]):
        with pytest.raises(TypeError, match="takes a scipy sparse matrix or array"):
            grundy.Graph.from_scipy(dense)
    g = grundy.Graph.from_scipy(scipy_sparse.csr_array(np.array([[0, 1], [0, 0]])))
    assert g.values().tolist() == [1, 0]
