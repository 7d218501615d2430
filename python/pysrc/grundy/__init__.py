"""Sprague-Grundy values of impartial games on large directed acyclic graphs.

A position's Grundy value is the mex (smallest non-negative integer not present) of its
moves' values; a sum of games (several tokens) is won by the player to move exactly when the
XOR of the tokens' values is non-zero. The engine is grundy's Rust library: the values of a
10-million-edge graph take a fraction of a second, on every core, without the GIL.

    >>> import grundy
    >>> g = grundy.Graph.from_edges([0, 1, 0], [1, 2, 2])
    >>> g.values().tolist()
    [2, 1, 0]
    >>> g.outcomes([[0], [2], [0, 1, 2]])
    ['WIN', 'LOSE', 'WIN']
"""

from __future__ import annotations

import itertools

import numpy as np

from . import _grundy
from ._grundy import CycleError

__all__ = ["Graph", "CycleError", "from_networkx_labelled", "read"]


class Graph:
    """An impartial game as a directed acyclic graph of positions ``0 .. n-1``.

    Node ``v``'s moves are ``indices[indptr[v]:indptr[v + 1]]`` (CSR, as scipy's sparse
    matrices hold rows). Build one with :meth:`from_csr`, :meth:`from_edges`,
    :meth:`from_networkx`, :meth:`from_scipy` or :func:`read`.
    """

    __slots__ = ("_g",)

    def __init__(self, inner: _grundy.Graph):
        self._g = inner

    @staticmethod
    def from_csr(indptr, indices) -> "Graph":
        """The graph whose node ``v`` moves to ``indices[indptr[v]:indptr[v + 1]]``.

        Both are 1-D integer arrays (or sequences); ``indptr`` holds ``n + 1`` offsets from 0.
        A ``ValueError`` names the first entry that is wrong and why.
        """
        return Graph(_grundy.Graph.from_csr(_ids(indptr, "indptr"), _ids(indices, "indices")))

    @staticmethod
    def from_edges(src, dst, n: int | None = None) -> "Graph":
        """The graph of ``n`` nodes (default: the largest id + 1) with a move from ``src[k]``
        to ``dst[k]`` for every ``k``; a node's moves keep their order in the arrays."""
        return Graph(_grundy.Graph.from_edges(_ids(src, "src"), _ids(dst, "dst"), n))

    @staticmethod
    def from_networkx(G) -> "Graph":
        """The graph of a networkx ``DiGraph`` whose nodes are the integers ``0 .. n-1``.

        For other node labels, use :func:`from_networkx_labelled`, which also returns the
        labels in node order.
        """
        n = G.number_of_nodes()
        if not all(isinstance(v, (int, np.integer)) and 0 <= v < n for v in G.nodes):
            raise ValueError(
                "the nodes are not the integers 0 to n-1: use grundy.from_networkx_labelled(G), "
                "which numbers them and returns their labels"
            )
        return Graph.from_csr(*_networkx_csr(G, range(n), None))

    @staticmethod
    def from_scipy(matrix) -> "Graph":
        """The graph of a square scipy sparse matrix (or array): a move from ``i`` to ``j``
        for every stored entry ``(i, j)``, in CSR order; the entries' values are ignored."""
        rows, cols = matrix.shape
        if rows != cols:
            raise ValueError(f"the matrix is {rows} x {cols}: a game graph's is square")
        csr = matrix.tocsr()
        return Graph.from_csr(csr.indptr, csr.indices)

    @property
    def node_count(self) -> int:
        """Number of positions."""
        return self._g.node_count

    @property
    def edge_count(self) -> int:
        """Number of moves."""
        return self._g.edge_count

    def __len__(self) -> int:
        return self._g.node_count

    def __repr__(self) -> str:
        return f"grundy.Graph(nodes={self.node_count}, edges={self.edge_count})"

    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)``: ``int64`` offsets and ``uint32`` move targets."""
        return self._g.csr()

    def values(self, threads: int | None = None) -> np.ndarray:
        """Every position's Grundy value, a ``uint32`` array; on ``threads`` threads (default:
        one per core). Raises :class:`CycleError` (naming the cycle's nodes) for a cyclic graph.
        """
        return self._g.evaluate(False, threads)[0]

    def levels(self, threads: int | None = None) -> np.ndarray:
        """Every position's level, a ``uint32`` array: 0 for a position with no move, else 1 +
        the largest level of its moves (the number of moves of the longest play from it)."""
        return self._g.evaluate(True, threads)[1]

    def outcomes(self, queries, threads: int | None = None) -> list[str]:
        """``"WIN"`` or ``"LOSE"`` for the player to move in each query: a list of positions
        (tokens, one per game of the sum), or a 2-D integer array of them."""
        values = self.values(threads)
        n = len(values)
        out = []
        for q, positions in enumerate(queries):
            tokens = np.asarray(positions, dtype=np.int64).ravel()
            if tokens.size and (tokens.min() < 0 or tokens.max() >= n):
                i = int(np.flatnonzero((tokens < 0) | (tokens >= n))[0])
                raise ValueError(f"queries[{q}][{i}] is {tokens[i]}, not a position: ids are 0 to {n - 1}")
            nim = int(np.bitwise_xor.reduce(values[tokens])) if tokens.size else 0
            out.append("WIN" if nim else "LOSE")
        return out


def from_networkx_labelled(G) -> tuple[Graph, list]:
    """The graph of a networkx ``DiGraph`` with any node labels, and the labels: node ``i``
    of the graph is ``labels[i]`` (in ``G.nodes`` order)."""
    labels = list(G.nodes)
    number = {v: i for i, v in enumerate(labels)}
    return Graph.from_csr(*_networkx_csr(G, labels, number)), labels


def read(path: str, format: str = "chess", case: int = 1, nodes: int | None = None) -> Graph:
    """Case ``case`` (1-based) of a file the command line reads: the chess format (a file of
    cases, gzip or zstd too, ``"-"`` for stdin) or an edge list (``format="edges"``, with
    ``nodes`` as ``--nodes``). Errors are the CLI's: file, line, column and what was expected.
    """
    return Graph(_grundy.read(str(path), format, case, nodes))


def _ids(values, name: str) -> np.ndarray:
    """``values`` as a contiguous ``int64`` array (no copy when it is one already)."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} has {array.ndim} dimensions: give a 1-D array")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} holds {array.dtype} values: give integers")
    return np.ascontiguousarray(array, dtype=np.int64)


def _networkx_csr(G, nodes, number):
    """The CSR arrays of ``G``'s moves, node ``i`` being ``nodes[i]``, ids mapped by ``number``
    (``None``: the labels are the ids). Read list by list from the adjacency dicts: networkx's
    own ``G._adj`` (what its algorithms read; 0.20 s for 1M edges), else the public ``G.adj``
    view (1.06 s), where ``G.edges()``'s tuples took 0.41."""
    adj = getattr(G, "_adj", None)
    if not isinstance(adj, dict):
        adj = G.adj
    lists = [adj[v] for v in nodes]
    degrees = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    ids = itertools.chain.from_iterable(lists)
    if number is not None:
        ids = map(number.__getitem__, ids)
    return indptr, np.fromiter(ids, dtype=np.int64, count=int(indptr[-1]))
