"""The Python module under a tight memory limit: every engine run on a graph that fits, with
the address space capped a little or a lot above what the process holds, must raise
MemoryError or succeed, never abort (issue 63, item 7). The tests (python/tests/test_limits.py)
try one cap each; this sweeps them, which takes minutes, so it stays out of the tests.

Usage: target/venv/bin/python scripts/pylimits.py [-v] [NODES] [CAPS_MB...]
(after scripts/pytest.sh, or a `pip install ./python`, installed the module). Prints each
(cap, call) whose child did not exit normally, and exits 1 if there was one.
"""

import subprocess
import sys

CALLS = [
    "values()",
    "levels()",
    "loopy()",
    "csr()",
    "play('misere')",
    "play('misere', genus=True)",
    "play('conjunctive')",
    "play('continued')",
    "stats()",
    "stats(loopy=True)",
]

CHILD = """
import resource, grundy
def size():
    return next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
warm = grundy.Graph.from_edges([0, 1], [1, 2])
warm.values(); warm.levels(); warm.loopy(); warm.play("misere", genus=True); warm.stats()
g = grundy.Graph.from_edges([], [], n={nodes})
resource.setrlimit(resource.RLIMIT_AS, (size() + ({cap} << 20), resource.RLIM_INFINITY))
try:
    g.{call}
    print("done")
except MemoryError as e:
    print("MemoryError:", e)
"""


def main():
    verbose = "-v" in sys.argv
    args = [a for a in sys.argv[1:] if a != "-v"]
    nodes = int(args[0]) if args else 10_000_000
    caps = [int(c) for c in args[1:]] or [8, 25, 50, 75, 100, 150, 200, 250, 300, 400]
    aborted = 0
    for cap in caps:
        for call in CALLS:
            program = CHILD.format(nodes=nodes, cap=cap, call=call)
            done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
            said = (done.stdout.strip() or done.stderr.strip()).splitlines()[:1]
            if done.returncode != 0:
                aborted += 1
                print(f"cap +{cap} MB, {call}: exit {done.returncode}: {said}")
            elif verbose:
                print(f"cap +{cap} MB, {call}: {said}")
    print(f"{len(caps) * len(CALLS)} runs of {nodes} nodes, {aborted} not ended normally")
    sys.exit(1 if aborted else 0)


if __name__ == "__main__":
    main()
