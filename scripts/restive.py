#!/usr/bin/env python3
"""Which wild misère games act as one nim heap among heaps (README, "misère"; issue 29).

Every impartial game born by day 4 (65,536 of them) that is not tame is put beside every
nim position of 2 or 3 heaps of sizes 1 to 7 with two or more heaps of *4 or more, and the
sum's misère outcome, found by searching its game tree, is compared with normal play's
(the nim-sum of the game's normal value and the heaps). Prints, per (normal value, misère
value, low) of the wild games, how many act as their normal value in every such sum: the
big-heaps rule of src/play/sums.rs says every *low* one does (every position it reaches tame
or of normal value and genus entries below 4), and some games that are not low do not.
Exits 1 if a low game breaks the rule.

Usage: python3 scripts/restive.py        (about 5 seconds)
"""
import collections
import functools
import itertools
import sys

sys.setrecursionlimit(100_000)

GAMES = [frozenset()]  # a game is the frozenset of its options' ids; 0 is *0
IDS = {frozenset(): 0}


def game(options):
    options = frozenset(options)
    if options not in IDS:
        IDS[options] = len(GAMES)
        GAMES.append(options)
    return IDS[options]


def mex(values):
    k = 0
    while k in values:
        k += 1
    return k


@functools.lru_cache(None)
def normal(i):
    return mex({normal(j) for j in GAMES[i]})


@functools.lru_cache(None)
def misere(i):
    return 1 if not GAMES[i] else mex({misere(j) for j in GAMES[i]})


@functools.lru_cache(None)
def tame(i):
    g, m = normal(i), misere(i)
    return (g == m or {g, m} == {0, 1}) and all(tame(j) for j in GAMES[i])


@functools.lru_cache(None)
def misere_sum(state):
    """The misère Grundy value of the sum `state` (sorted ids, no *0)."""
    if not state:
        return 1
    seen = set()
    for k, c in enumerate(state):
        rest = state[:k] + state[k + 1 :]
        for o in GAMES[c]:
            seen.add(misere_sum(tuple(sorted(rest + ((o,) if o else ())))))
    return mex(seen)


def low(i, two):
    """Tame, or of normal value and genus entries γ0 to γ7 below 4, every move low too."""
    if tame(i):
        return True
    genus = [misere_sum(tuple(sorted([i] + [two] * n))) for n in range(8)]
    return normal(i) < 4 and max(genus) < 4 and all(low(j, two) for j in GAMES[i])


@functools.lru_cache(None)
def wins(state):
    """Misère: the player to move on the sum `state` (sorted ids, no *0) wins."""
    if not state:
        return True
    for k, c in enumerate(state):
        rest = state[:k] + state[k + 1 :]
        for o in GAMES[c]:
            if not wins(tuple(sorted(rest + ((o,) if o else ())))):
                return True
    return False


def main():
    heaps = [0]
    for n in range(1, 8):
        heaps.append(game(heaps[:n]))
    born = [0]
    for _ in range(3):
        born = sorted(set(born) | {game(c) for r in range(len(born) + 1)
                                   for c in itertools.combinations(born, r)})
    day4 = [game(c) for r in range(len(born) + 1) for c in itertools.combinations(born, r)]
    company = [h for n in (2, 3) for h in itertools.combinations_with_replacement(range(1, 8), n)
               if sum(x >= 4 for x in h) >= 2]
    counts = collections.Counter()
    for i in day4:
        if tame(i):
            continue
        nim = [functools.reduce(lambda a, b: a ^ b, h, normal(i)) for h in company]
        acts = all(wins(tuple(sorted([i] + [heaps[x] for x in h]))) == (s != 0)
                   for h, s in zip(company, nim))
        counts[(normal(i), misere(i), low(i, heaps[2]), acts)] += 1
    print("normal misère low    acts-as-its-normal-value  games")
    for (g, m, t, a), n in sorted(counts.items()):
        print(f"{g:6} {m:6} {str(t):6} {str(a):25} {n:6}")
    broken = sum(n for (_, _, t, a), n in counts.items() if t and not a)
    print(f"low games that break the big-heaps rule: {broken}")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
