from collections.abc import Sequence
from os import PathLike
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

INFINITE: int

class CycleError(ValueError):
    """The graph has a cycle; ``cycle`` lists its nodes in order (each moves to the next, the
    last to the first)."""

    cycle: list[int]

NO_HEAP: int

class Misere(NamedTuple):
    values: npt.NDArray[np.uint32]
    heaps: npt.NDArray[np.uint32]
    tame: npt.NDArray[np.bool_]
    genus_indptr: npt.NDArray[np.int64] | None = ...
    genus_values: npt.NDArray[np.uint32] | None = ...
    def genus(self, v: int) -> npt.NDArray[np.uint32]: ...

class Loopy(NamedTuple):
    values: npt.NDArray[np.uint32]
    infinite: npt.NDArray[np.bool_]
    k_indptr: npt.NDArray[np.int64]
    k_values: npt.NDArray[np.uint32]
    def k(self, v: int) -> npt.NDArray[np.uint32]: ...

class Period(NamedTuple):
    preperiod: int
    period: int
    proved_at: int

class Octal(NamedTuple):
    values: npt.NDArray[np.uint32]
    period: Period | None

# A query is one position or a flat sequence of them (a nested one is a ValueError).
Queries = Sequence[Sequence[int] | int] | npt.ArrayLike

class Graph:
    @staticmethod
    def from_csr(indptr: npt.ArrayLike, indices: npt.ArrayLike) -> Graph:
        """Raises ValueError (naming the wrong entry) or MemoryError (naming the bytes)."""
    @staticmethod
    def from_edges(src: npt.ArrayLike, dst: npt.ArrayLike, n: int | None = None) -> Graph:
        """Raises ValueError for an id that is not a node, or (without ``n``) one of 2**24 or
        more with fewer than an edge per 64 ids, the CLI's rule; MemoryError (naming the
        bytes) when the graph cannot be allocated."""
    @staticmethod
    def from_networkx(G: Any) -> Graph:
        """Raises TypeError for an undirected graph, ValueError for nodes not 0 to n-1."""
    @staticmethod
    def from_scipy(matrix: Any) -> Graph:
        """Raises TypeError for anything but a scipy sparse matrix or array, ValueError for
        one that is not square."""
    @property
    def node_count(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def __len__(self) -> int: ...
    def csr(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint32]]: ...
    def values(self, threads: int | None = None) -> npt.NDArray[np.uint32]:
        """Raises CycleError for a cyclic graph; MemoryError, before the work, when the
        engine's arrays for this many nodes cannot be allocated (as every method that runs
        the engine does)."""
    def levels(self, threads: int | None = None) -> npt.NDArray[np.uint32]: ...
    def loopy(self, threads: int | None = None) -> Loopy: ...
    def outcomes(
        self,
        queries: Queries,
        loopy: bool = False,
        threads: int | None = None,
        play: str = "normal",
        genus: bool = False,
    ) -> list[str]:
        """Raises ValueError naming the first entry that is not a position (a nested list)
        or not a node, and CycleError for a cyclic graph without ``loopy``."""
    def winning_moves(
        self,
        queries: Queries,
        loopy: bool = False,
        threads: int | None = None,
        play: str = "normal",
        genus: bool = False,
    ) -> list[Any]: ...
    def play(
        self, play: str, threads: int | None = None, genus: bool = False
    ) -> npt.NDArray[np.uint32] | Misere: ...
    def stats(self, loopy: bool = False, threads: int | None = None) -> dict[str, Any]: ...

def from_networkx_labelled(G: Any) -> tuple[Graph, list[Any]]:
    """Raises TypeError for an undirected graph."""
def read(
    path: str | PathLike[str],
    format: str = "chess",
    case: int = 1,
    nodes: int | None = None,
    loopy: bool = False,
    trust: bool = False,
) -> Graph:
    """Raises the CLI's errors (ValueError with file, line and column; OSError; CycleError),
    and MemoryError when the offsets of ``nodes`` nodes cannot be allocated."""
def octal(code: str, n: int, hex: bool = False, naive: bool = False) -> Octal:
    """Raises ValueError for a bad code, and MemoryError at once when the ``n + 1`` values
    (4 bytes each) cannot be allocated: ``octal("0.77", 10**12)`` asks 4 TB."""
