"""Python module timings (issue 28), as ratios measured in one run, medians of interleaved runs.

1. `Graph.from_csr(indptr, indices).values()` on the arrays of the 1M-node / 10M-edge file
   against the CLI's `grundy values FILE > /dev/null` on the same file.
2. `Graph.from_networkx(G).values()` on a 1M-edge networkx DiGraph against networkx's
   topological sort with a mex loop (the same values checked).

Usage: target/venv/bin/python scripts/pybench.py [RUNS]   (after scripts/pytest.sh, which
installs the module; the m1 file is target/ab/m1.txt, made by scripts/ab.sh or generated here)
"""

import os
import random
import statistics
import subprocess
import sys
import time

import networkx as nx

import grundy

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cli = os.path.join(root, "target/release/grundy")
m1 = os.path.join(root, "target/ab/m1.txt")
if not os.path.exists(m1):
    os.makedirs(os.path.dirname(m1), exist_ok=True)
    subprocess.run([cli, "generate", "-n", "1000000", "--edges", "10000000", "-q", "1000000",
                    "--seed", "1", "-o", m1], check=True)


def seconds(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


indptr, indices = grundy.read(m1).csr()
module, command = [], []
for _ in range(runs):
    module.append(seconds(lambda: grundy.Graph.from_csr(indptr, indices).values()))
    command.append(seconds(lambda: subprocess.run([cli, "values", m1], stdout=subprocess.DEVNULL, check=True)))
ratios = [a / b for a, b in zip(module, command)]
print(f"| from_csr + values, m1 | {statistics.median(module):.3f} s | CLI values {statistics.median(command):.3f} s | {statistics.median(ratios):.2f} |")

rng = random.Random(1)
n, m = 100_000, 1_000_000
order = list(range(n))
rng.shuffle(order)
edges = set()
while len(edges) < m:
    a, b = sorted((rng.randrange(n), rng.randrange(n)))
    if a != b:
        edges.add((order[a], order[b]))
G = nx.DiGraph()
G.add_nodes_from(range(n))
G.add_edges_from(edges)


def networkx_values():
    values = {}
    for v in reversed(list(nx.topological_sort(G))):
        seen = {values[w] for w in G.successors(v)}
        g = 0
        while g in seen:
            g += 1
        values[v] = g
    return [values[v] for v in range(n)]


plain, ours = [], []
for _ in range(runs):
    plain.append(seconds(networkx_values))
    ours.append(seconds(lambda: grundy.Graph.from_networkx(G).values()))
assert grundy.Graph.from_networkx(G).values().tolist() == networkx_values()
ratios = [a / b for a, b in zip(plain, ours)]
print(f"| networkx loop / from_networkx + values, 1M edges | {statistics.median(plain):.3f} s | {statistics.median(ours):.3f} s | {statistics.median(ratios):.1f}x |")
