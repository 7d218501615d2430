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

Queries = Sequence[Sequence[int]] | npt.ArrayLike

class Graph:
    @staticmethod
    def from_csr(indptr: npt.ArrayLike, indices: npt.ArrayLike) -> Graph: ...
    @staticmethod
    def from_edges(src: npt.ArrayLike, dst: npt.ArrayLike, n: int | None = None) -> Graph: ...
    @staticmethod
    def from_networkx(G: Any) -> Graph: ...
    @staticmethod
    def from_scipy(matrix: Any) -> Graph: ...
    @property
    def node_count(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def __len__(self) -> int: ...
    def csr(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint32]]: ...
    def values(self, threads: int | None = None) -> npt.NDArray[np.uint32]: ...
    def levels(self, threads: int | None = None) -> npt.NDArray[np.uint32]: ...
    def loopy(self, threads: int | None = None) -> Loopy: ...
    def outcomes(
        self,
        queries: Queries,
        loopy: bool = False,
        threads: int | None = None,
        play: str = "normal",
        genus: bool = False,
    ) -> list[str]: ...
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

def from_networkx_labelled(G: Any) -> tuple[Graph, list[Any]]: ...
def read(
    path: str | PathLike[str],
    format: str = "chess",
    case: int = 1,
    nodes: int | None = None,
    loopy: bool = False,
    trust: bool = False,
) -> Graph: ...
def octal(code: str, n: int, hex: bool = False, naive: bool = False) -> Octal: ...
