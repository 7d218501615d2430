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

Errors are exceptions, never an end of the interpreter: ``ValueError`` for an input that is
wrong (naming the entry and what was expected), :class:`CycleError` (a ``ValueError``) for a
cycle where a game must end, ``TypeError`` for an object of the wrong kind, ``OSError`` for a
file, and ``MemoryError`` when what the input asks for cannot be allocated (a node count, an
octal game's ``n``; it names the bytes): checked before the work, not met half-way.
"""

from __future__ import annotations

import itertools
import json
from typing import NamedTuple

import numpy as np

from . import _grundy
from ._grundy import CycleError

__all__ = [
    "Graph",
    "CycleError",
    "Loopy",
    "Octal",
    "Period",
    "INFINITE",
    "Misere",
    "NO_HEAP",
    "from_networkx_labelled",
    "octal",
    "read",
]

INFINITE = 2**32 - 1
"""The value :meth:`Graph.loopy` gives an infinite position (the CLI writes ``inf``)."""


class Loopy(NamedTuple):
    """A loopy game's generalized Sprague-Grundy labels (Smith; Fraenkel and Yesha).

    A position is finite, with a value as in an acyclic game, or infinite (it can keep the
    game going for ever), with the set K of its moves' finite values. A sum of tokens is a
    WIN when all are finite and the nim-sum is not 0, or exactly one is infinite and it can
    move to the finite value that is the others' nim-sum; a LOSE when all are finite with a
    nim-sum of 0; otherwise a DRAW.
    """

    values: np.ndarray
    """Every position's value (``uint32``), :data:`INFINITE` for an infinite one."""
    infinite: np.ndarray
    """``bool``: which positions are infinite."""
    k_indptr: np.ndarray
    """``int64`` offsets of the K sets in :attr:`k_values` (CSR)."""
    k_values: np.ndarray
    """``uint32``: the K set of ``v`` is ``k_values[k_indptr[v]:k_indptr[v + 1]]``."""

    def k(self, v: int) -> np.ndarray:
        """The K set of position ``v``: its moves' finite values, ascending (empty when ``v``
        is finite)."""
        return self.k_values[self.k_indptr[v] : self.k_indptr[v + 1]]


NO_HEAP = 2**32 - 1
"""The heap :meth:`Graph.play` gives a misère position equal to no known nim heap."""


class Misere(NamedTuple):
    """A game's misère numbers (Conway's genus, its first term): who wins one token, and
    which nim heap a position equals in misère play, where it equals one."""

    values: np.ndarray
    """``uint32``: each position's misère Grundy value, 0 exactly when the player to move
    loses."""
    heaps: np.ndarray
    """``uint32``: the nim heap each position equals in misère play, :data:`NO_HEAP` where
    none is known."""
    tame: np.ndarray
    """``bool``: each position is tame (Winning Ways, ch. 13): its genus is ``a^a``, ``0^1``
    or ``1^0`` (normal value, then misère value) and so is every position it moves to, all
    the way down. A misère sum of tame positions and heaps is decided by the tame rule."""
    genus_indptr: np.ndarray | None = None
    """With ``genus=True``: ``int64`` offsets of each position's genus prefix in
    :attr:`genus_values` (CSR); ``None`` without."""
    genus_values: np.ndarray | None = None
    """``uint32``: Conway's genus of ``v`` is ``genus_values[genus_indptr[v]:genus_indptr[v +
    1]]``, the misère Grundy values of ``v`` plus 0, 1, 2, ... heaps of 2, up to where its last
    two entries repeat for ever (empty where not known). The CLI's ``misere_genus``."""

    def genus(self, v: int) -> np.ndarray:
        """Conway's genus prefix of position ``v`` (``genus=True`` only)."""
        if self.genus_indptr is None or self.genus_values is None:
            raise ValueError("the genus was not computed: play(\"misere\", genus=True)")
        return self.genus_values[self.genus_indptr[v] : self.genus_indptr[v + 1]]


class Period(NamedTuple):
    """A proved period of an octal game: ``G(n + period) == G(n)`` for every ``n >=
    preperiod``, proved by the values up to heap ``proved_at``."""

    preperiod: int
    period: int
    proved_at: int


class Octal(NamedTuple):
    """What :func:`octal` computes: ``G(0..=n)`` and the period, if one is proved."""

    values: np.ndarray
    period: Period | None


class Graph:
    """An impartial game as a directed graph of positions ``0 .. n-1``.

    Node ``v``'s moves are ``indices[indptr[v]:indptr[v + 1]]`` (CSR, as scipy's sparse
    matrices hold rows). Build one with :meth:`from_csr`, :meth:`from_edges`,
    :meth:`from_networkx`, :meth:`from_scipy` or :func:`read`. A graph does not change: its
    values are computed once, when first asked for, and kept for the questions after.
    """

    __slots__ = ("_g",)

    def __init__(self, inner: _grundy.Graph):
        self._g = inner

    @staticmethod
    def from_csr(indptr, indices) -> "Graph":
        """The graph whose node ``v`` moves to ``indices[indptr[v]:indptr[v + 1]]``.

        Both are 1-D integer arrays (or sequences); ``indptr`` holds ``n + 1`` offsets from 0.
        ``uint32`` indices (what :meth:`csr` gives) are copied as they are, others converted
        once. A ``ValueError`` names the first entry that is wrong and why; a
        ``MemoryError``, the bytes a graph of this size needs when they cannot be allocated.
        """
        indices = np.asarray(indices)
        if not (indices.dtype == np.uint32 and indices.ndim == 1):
            indices = _ids(indices, "indices")
        return Graph(_grundy.Graph.from_csr(_ids(indptr, "indptr"), np.ascontiguousarray(indices)))

    @staticmethod
    def from_edges(src, dst, n: int | None = None) -> "Graph":
        """The graph of ``n`` nodes (default: the largest id + 1) with a move from ``src[k]``
        to ``dst[k]`` for every ``k``; a node's moves keep their order in the arrays.

        Without ``n``, an id of 2**24 or more needs an edge per 64 ids (the command line's
        rule without ``--nodes``): ``from_edges([0], [2**30])`` would allocate 4 GB for
        nodes no edge describes, so it is a ``ValueError`` naming the entry; give ``n`` to
        ask for them. A ``ValueError`` names any id that is not a node; a ``MemoryError``,
        the bytes the graph needs when they cannot be allocated.
        """
        return Graph(_grundy.Graph.from_edges(_ids(src, "src"), _ids(dst, "dst"), n))

    @staticmethod
    def from_networkx(G) -> "Graph":
        """The graph of a networkx ``DiGraph`` whose nodes are the integers ``0 .. n-1``: a
        move from ``u`` to ``v`` for each edge (a multigraph's parallel edges count once).

        For other node labels, use :func:`from_networkx_labelled`, which also returns the
        labels in node order. An undirected graph is a ``TypeError`` (its edges have no
        direction to move in): ``nx.DiGraph(G)`` makes each a move both ways, a loopy game.
        """
        return Graph(_grundy.Graph.from_adjacency(_adjacency(G), None))

    @staticmethod
    def from_scipy(matrix) -> "Graph":
        """The graph of a square scipy sparse matrix (or array): a move from ``i`` to ``j``
        for every stored entry ``(i, j)``, in CSR order; the entries' values are ignored.
        Anything else (a numpy array, a list) is a ``TypeError``; a matrix that is not
        square, a ``ValueError``."""
        if not _is_sparse(matrix):
            raise TypeError(
                f"from_scipy takes a scipy sparse matrix or array (csr, csc, coo, ...), not "
                f"{type(matrix).__module__}.{type(matrix).__qualname__}: for a dense array, "
                "scipy.sparse.csr_array(a), or Graph.from_csr or Graph.from_edges"
            )
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
        """``(indptr, indices)``: ``int64`` offsets and ``uint32`` move targets. A graph read
        from an index has each row in mex order (the first move to each value below the row's
        own, in turn, then the others in the input's order: docs/INDEX.md), the same moves."""
        return self._g.csr()

    def values(self, threads: int | None = None) -> np.ndarray:
        """Every position's Grundy value, a ``uint32`` array; on ``threads`` threads (default:
        one per core). Raises :class:`CycleError` (naming the cycle's nodes) for a cyclic graph;
        use :meth:`loopy` for a game with cycles. Raises ``MemoryError`` before the work when
        the engine's arrays for this many nodes cannot be allocated (so do :meth:`levels`,
        :meth:`loopy`, :meth:`play` and :meth:`stats`).
        """
        return self._g.evaluate(False, threads)[0]

    def levels(self, threads: int | None = None) -> np.ndarray:
        """Every position's level, a ``uint32`` array: 0 for a position with no move, else 1 +
        the largest level of its moves (the number of moves of the longest play from it)."""
        return self._g.evaluate(True, threads)[1]

    def loopy(self, threads: int | None = None) -> Loopy:
        """The game's generalized Sprague-Grundy labels, cycles and self-loops allowed: a
        :class:`Loopy` of values (:data:`INFINITE` where infinite), the infinite mask and the
        K sets. An acyclic game's are its :meth:`values`, none infinite."""
        return Loopy(*self._g.label(threads))

    def outcomes(
        self,
        queries,
        loopy: bool = False,
        threads: int | None = None,
        play: str = "normal",
        genus: bool = False,
    ) -> list[str]:
        """``"WIN"`` or ``"LOSE"`` for the player to move in each query: a list of positions
        (tokens, one per game of the sum), or a 2-D integer array of them (a 1-D array: one
        token per query); anything else, as a nested list (``[[[5], [7]]]``), is a
        ``ValueError`` naming the entry. With ``loopy``, as a loopy game: ``"DRAW"`` where neither player
        can force a win. With ``play`` (``"misere"``, ``"conjunctive"``, ``"continued"``,
        ``"selective"``: the CLI's ``--play``, acyclic games only), the tokens played that way;
        misère play gives ``"UNDECIDED"`` where the theory does not decide the sum (the
        README's "Misère play"; with ``genus``, as ``--genus``, one token of any kind among
        heaps ``*1`` to ``*3``, some ``*2`` or ``*3``, and one more heap too)."""
        if play != "normal":
            return self._play(queries, loopy, (play, genus), threads)[0]
        return self._g.answer(*_queries(queries), loopy, False, threads)[0]

    def winning_moves(
        self,
        queries,
        loopy: bool = False,
        threads: int | None = None,
        play: str = "normal",
        genus: bool = False,
    ) -> list:
        """For each query (as in :meth:`outcomes`), a winning move ``(from, to)``: a token on
        ``from`` moves to ``to`` and leaves the opponent a LOSE; ``None`` where there is none
        (a LOSE or a DRAW). The move the CLI's ``move_from`` and ``move_to`` columns give.
        With ``play`` other than ``"normal"``, a list of moves per query instead (one per
        token that moves, as the CLI's ``moves`` column; empty unless a WIN)."""
        if play != "normal":
            return self._play(queries, loopy, (play, genus), threads)[1]
        return self._g.answer(*_queries(queries), loopy, True, threads)[1]

    def play(self, play: str, threads: int | None = None, genus: bool = False):
        """What a play computes of every position, as ``values --play`` writes it: the
        remoteness (``"conjunctive"``) or the suspense (``"continued"``), a ``uint32`` array;
        for ``"misere"`` a :class:`Misere` of the misère Grundy values, the nim heaps the
        positions equal (:data:`NO_HEAP` where none is known), the tame flags and, with
        ``genus`` (as ``--genus``), Conway's genus of every position; for ``"normal"`` and
        ``"selective"`` the Grundy values."""
        numbers, misere = self._g.play_numbers(play, threads, genus)
        if misere is None:
            return numbers
        heaps, tame, genera = misere
        return Misere(numbers, heaps, tame, *(genera if genera is not None else (None, None)))

    def _play(self, queries, loopy: bool, played: tuple[str, bool], threads: int | None):
        play, genus = played
        if loopy:
            raise ValueError(f"play={play!r} is for acyclic games: not with loopy=True")
        return self._g.play_answer(*_queries(queries), play, threads, genus)

    def stats(self, loopy: bool = False, threads: int | None = None) -> dict:
        """The statistics ``grundy stats --json`` gives a case, as a dict: sizes, degrees,
        levels, the widest level, histograms of values and levels (``loopy``: of the finite
        values, and the count of infinite positions). Without the case number, the query
        counts and the times, which belong to a file's run."""
        stats = json.loads(self._g.stats(loopy, threads))
        for key in ("case", "seconds", "queries", "wins", "losses", "draws"):
            stats.pop(key, None)
        return stats


def from_networkx_labelled(G) -> tuple[Graph, list]:
    """The graph of a networkx ``DiGraph`` with any node labels, and the labels: node ``i``
    of the graph is ``labels[i]`` (in ``G.nodes`` order)."""
    labels = list(G.nodes)
    number = {v: i for i, v in enumerate(labels)}
    return Graph(_grundy.Graph.from_adjacency(_adjacency(G), number)), labels


def read(
    path: str,
    format: str = "chess",
    case: int = 1,
    nodes: int | None = None,
    loopy: bool = False,
    trust: bool = False,
) -> Graph:
    """Case ``case`` (1-based) of a file the command line reads: the chess format (a file of
    cases, gzip or zstd too, ``"-"`` for stdin), an edge list (``format="edges"``, with
    ``nodes`` as ``--nodes``), or an index written by ``grundy index`` (recognised by its first
    bytes; its values come with it, its checksums checked unless ``trust``). A text's values
    are computed as it is read: as a loopy game's (:meth:`Graph.loopy`) with ``loopy``, where
    cycles are allowed, as the CLI's ``--loopy``. Errors are the CLI's: file, line, column and
    what was expected (``ValueError``; ``OSError`` for the file itself), and ``MemoryError``
    when the offsets of ``nodes`` nodes cannot be allocated.
    """
    return Graph(_grundy.read(str(path), format, case, nodes, loopy, trust))


def octal(code: str, n: int, hex: bool = False, naive: bool = False) -> Octal:
    """``G(0..=n)`` of the octal game ``code`` (Kayles is ``"0.77"``; hexadecimal digits with
    ``hex``) and its period when one is proved on the way (Guy and Smith's test), as in
    ``grundy octal``: the computation stops at the proof and the period gives the rest.
    By the sparse-space method (Gangolli and Plambeck), or every move with ``naive``.

    Raises ``ValueError`` for a code that is not one, and ``MemoryError`` at once when the
    array of ``n + 1`` values (4 bytes each) cannot be allocated: ``octal("0.77", 10**12)``
    asks 4 TB, whatever the period says."""
    values, period = _grundy.octal(code, n, hex, naive)
    return Octal(values, Period(*period) if period is not None else None)


def _is_sparse(matrix) -> bool:
    """Whether ``matrix`` is a scipy sparse matrix or array (without scipy, none is)."""
    try:
        import scipy.sparse
    except ImportError:
        return False
    return scipy.sparse.issparse(matrix)


def _ids(values, name: str) -> np.ndarray:
    """``values`` as a contiguous ``int64`` array (no copy when it is one already)."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} has {array.ndim} dimensions: give a 1-D array")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} holds {array.dtype} values: give integers")
    return np.ascontiguousarray(array, dtype=np.int64)


def _adjacency(G) -> dict:
    """``G``'s adjacency as a dict of dicts: networkx's own ``G._adj`` (what its algorithms
    read), else one built from the public ``G.adj`` view. Raises ``TypeError`` for an
    undirected graph."""
    is_directed = getattr(G, "is_directed", None)
    if callable(is_directed) and not is_directed():
        raise TypeError(
            f"G is undirected (a {type(G).__name__}), and a game's moves go one way: give a "
            "DiGraph: nx.DiGraph(G) for moves both ways along each edge (a loopy game: "
            "Graph.loopy() and loopy=True), or one with each edge oriented as its move goes"
        )
    adj = getattr(G, "_adj", None)
    if isinstance(adj, dict) and all(isinstance(a, dict) for a in itertools.islice(adj.values(), 1)):
        return adj
    return {v: dict(neighbours) for v, neighbours in G.adj.items()}


_A_QUERY = (
    "a query is one position (an int) or a flat list of positions, one token on each: "
    "queries is a list of those, or a 1-D or 2-D integer array"
)


def _queries(queries) -> tuple[np.ndarray, np.ndarray]:
    """Queries as CSR ``int64`` arrays: offsets, and the positions of every query in turn.

    Raises ``ValueError`` naming the first query, or entry of one, that is not a position
    (a nested list is not a query: ``[[[5], [7]]]`` is not the query ``[5, 7]``)."""
    if isinstance(queries, np.ndarray):
        if queries.ndim not in (1, 2):
            raise ValueError(f"queries is a {queries.ndim}-D array: {_A_QUERY}")
        rows = queries if queries.ndim == 2 else queries[:, None]
        indptr = np.arange(len(rows) + 1, dtype=np.int64) * rows.shape[1]
        return indptr, _ids(rows.ravel(), "queries")
    queries = [q if hasattr(q, "__len__") else [q] for q in queries]
    lengths = np.fromiter(map(len, queries), dtype=np.int64, count=len(queries))
    indptr = np.zeros(len(queries) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    try:
        tokens = np.asarray(list(itertools.chain.from_iterable(queries)))
    except ValueError:
        # Ragged nesting, as [[[1], [2, 3]]]: numpy makes no array of it.
        tokens = None
    # A token that is itself a list or an array makes the tokens 2-D or an object array.
    if tokens is None or tokens.ndim != 1 or tokens.dtype == object:
        _refuse_queries(queries)
    if tokens.size and not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"the queries hold {tokens.dtype} positions: give integers")
    return indptr, np.ascontiguousarray(tokens, dtype=np.int64)


def _refuse_queries(queries: list) -> None:
    """Raises the ``ValueError`` of the first entry of ``queries`` that is not a position: not
    an ``int`` (or a numpy integer), or one past 64 bits (numpy keeps those as objects)."""
    for q, query in enumerate(queries):
        for i, token in enumerate(query):
            if not isinstance(token, (int, np.integer)) or isinstance(token, bool):
                raise ValueError(f"queries[{q}][{i}] is {token!r}, not a position: {_A_QUERY}")
            if not -(2**63) <= token < 2**63:
                raise ValueError(f"queries[{q}][{i}] is {token}, not a node: ids are 32-bit")
    raise ValueError(f"the queries are not a list of queries: {_A_QUERY}")
