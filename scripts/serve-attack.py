#!/usr/bin/env python3
"""Hostile clients against a running `grundy serve`, and a legitimate one timed meanwhile
(issue 63; driven by scripts/serve-attack.sh, which starts the server).

Three attacks run together, each in a process of its own (so that one's load does not
slow another's clients), for the whole run:
- SLOW connections send a request head one byte every 5 s (slowloris), and open again
  whenever the server closes them;
- NEVER clients post a query body with a 9 MB answer and never read it (their receive buffer
  shrunk to 4 KiB), and post again once the server has closed or reset the connection;
- FLOOD clients post BOMB (a few hundred KB of zstd or gzip that answers with gigabytes of
  rows) and read the answer as fast as they can, again and again.
After WARMUP seconds, a legitimate client opens a new connection every 100 ms and asks
`GET /v1/position/1/<random node below NODES>`. Prints the attackers' counts, the legitimate
requests' median and largest latency and any failure, and the server's peak resident memory
(VmHWM of PID), then exits 1 if a request failed, one took longer than MAX_SECONDS, or the
peak passed MAX_MIB.

Usage: serve-attack.py HOST:PORT PID NODES BOMB SECONDS [SLOW NEVER FLOOD WARMUP MAX_SECONDS MAX_MIB]
Only Python 3's standard library, on Linux (TCP_INFO, /proc).
"""
import asyncio
import errno
import multiprocessing
import random
import resource
import socket
import statistics
import sys
import time

TCP_ESTABLISHED = 1


def raise_file_limit(wanted):
    """Raises this process's limit on open files toward `wanted` (the hard limit caps it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def established(sock):
    """True while the connection is open both ways: the server has neither closed nor reset it."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return info[0] == TCP_ESTABLISHED


async def slow(host, port, counts):
    """One slowloris connection: a head byte every 5 s, opened again whenever it is closed."""
    head = b"GET /v1/stats HTTP/1.1\r\nHost: x\r\nX-Slow: "
    while True:
        try:
            _, writer = await asyncio.open_connection(host, port)
        except OSError as e:
            key = f"slow not connected ({errno.errorcode.get(e.errno, e.errno)})"
            counts[key] = counts.get(key, 0) + 1
            await asyncio.sleep(1)
            continue
        counts["slow opened"] += 1
        sock = writer.get_extra_info("socket")
        sent = 0
        try:
            while established(sock):
                writer.write(head[sent:sent + 1] if sent < len(head) else b"a")
                await writer.drain()
                sent += 1
                await asyncio.sleep(5)
        except OSError:
            pass
        writer.close()


async def never(host, port, body, counts):
    """One client that posts `body` and never reads, posting again once the server let go."""
    head = b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
    while True:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (host, port))
            _, writer = await asyncio.open_connection(sock=sock)
        except OSError as e:
            key = f"never not connected ({errno.errorcode.get(e.errno, e.errno)})"
            counts[key] = counts.get(key, 0) + 1
            sock.close()
            await asyncio.sleep(1)
            continue
        counts["never posted"] += 1
        started = time.monotonic()
        try:
            writer.write(head + body)
            # The server stops reading the body once it cannot send the answer: not drained.
            while established(sock):
                await asyncio.sleep(0.5)
        except OSError:
            pass
        held = time.monotonic() - started
        counts["never held (s)"] = max(counts["never held (s)"], round(held))
        if held > 5:
            counts["never held > 5 s"] += 1
        writer.close()


def clients(counts, local, coroutines):
    """Runs `coroutines` on one event loop; they count into `local`, copied to the shared
    `counts` once a second."""
    raise_file_limit(len(coroutines) + 256)

    async def report():
        while True:
            await asyncio.sleep(1)
            counts.update(local)

    async def main():
        await asyncio.gather(report(), *coroutines)

    asyncio.run(main())


def slow_clients(host, port, count, counts):
    """The slowloris connections."""
    local = {"slow opened": 0}
    clients(counts, local, [slow(host, port, local) for _ in range(count)])


def never_clients(host, port, count, counts):
    """The clients that never read their answers."""
    body = (b"200" + b" 0" * 200 + b"\n") * 25_000
    local = {"never posted": 0, "never held (s)": 0, "never held > 5 s": 0}
    clients(counts, local, [never(host, port, body, local) for _ in range(count)])


def flood_clients(host, port, bomb, count, counts):
    """Clients posting `bomb` and reading its gigabytes of rows as fast as they can."""
    head = b"POST /v1/query HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
    local = {"flood answers": 0, "flood bytes": 0, "flood 503": 0}

    async def one():
        while True:
            try:
                reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
                writer.write(head % len(bomb) + bomb)
                status = await reader.readline()
                if b" 503 " in status:
                    local["flood 503"] += 1
                while True:
                    data = await reader.read(1 << 20)
                    if not data:
                        break
                    local["flood bytes"] += len(data)
                local["flood answers"] += 1
                writer.close()
            except OSError:
                await asyncio.sleep(0.1)

    clients(counts, local, [one() for _ in range(count)])


def get(host, port, node):
    """One legitimate request on a new connection: its status, the seconds it took, and the
    seconds its connection took to open."""
    started = time.monotonic()
    with socket.create_connection((host, port), timeout=10) as sock:
        connected = time.monotonic() - started
        sock.sendall(b"GET /v1/position/1/%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                     % node)
        response = b""
        while True:
            data = sock.recv(1 << 16)
            if not data:
                break
            response += data
    status = int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/1.1 ") else 0
    return status, time.monotonic() - started, connected


def peak_mib(pid):
    """The peak resident memory of process `pid` (VmHWM), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    args = sys.argv[1:]
    if len(args) < 5:
        sys.exit(__doc__)
    host, port = args[0].rsplit(":", 1)
    port, pid, nodes, seconds = int(port), int(args[1]), int(args[2]), float(args[4])
    with open(args[3], "rb") as f:
        bomb = f.read()
    defaults = [2000, 64, 4, 10.0, 2.0, 512.0]
    slow_count, never_count, flood_count, warmup, max_seconds, max_mib = [
        type(d)(a) for d, a in zip(defaults, args[5:] + [str(d) for d in defaults[len(args) - 5:]])
    ]
    counts = multiprocessing.Manager().dict()
    workers = [
        multiprocessing.Process(target=slow_clients, args=(host, port, slow_count, counts)),
        multiprocessing.Process(target=never_clients, args=(host, port, never_count, counts)),
        multiprocessing.Process(target=flood_clients,
                                args=(host, port, bomb, flood_count, counts)),
    ]
    for worker in workers:
        worker.daemon = True
        worker.start()
    print(f"attacking: {slow_count} slow heads, {never_count} never-reading clients, "
          f"{flood_count} flood clients ({len(bomb)} bytes of body each); "
          f"legitimate GETs from {warmup:g} s to {seconds:g} s", flush=True)
    time.sleep(warmup)
    latencies, connects, failures = [], [], []
    rng = random.Random(63)
    end = time.monotonic() + seconds - warmup
    while time.monotonic() < end:
        try:
            status, took, connected = get(host, port, rng.randrange(nodes))
            latencies.append(took)
            connects.append(connected)
            if status != 200:
                failures.append(f"status {status}")
        except OSError as e:
            failures.append(repr(e))
        time.sleep(0.1)
    peak = peak_mib(pid)
    snapshot = dict(counts)
    for worker in workers:
        worker.terminate()
    print("attackers: " + ", ".join(f"{k} {v}" for k, v in sorted(snapshot.items())))
    if latencies:
        print(f"legitimate GETs: {len(latencies)}, median {statistics.median(latencies) * 1000:.1f} ms, "
              f"max {max(latencies) * 1000:.1f} ms (of which opening the connection "
              f"{connects[latencies.index(max(latencies))] * 1000:.1f} ms), "
              f"failed {len(failures)}")
        slowest = sorted(latencies)[-5:]
        print("slowest five: " + ", ".join(f"{t * 1000:.0f} ms" for t in slowest))
    print(f"server peak resident memory (VmHWM): {peak:.0f} MiB")
    bad = []
    if failures:
        bad.append(f"{len(failures)} legitimate requests failed: {failures[:3]}")
    if not latencies or max(latencies) > max_seconds:
        bad.append(f"a legitimate request took longer than {max_seconds:g} s")
    if not peak <= max_mib:
        bad.append(f"the server's peak memory passed {max_mib:g} MiB")
    for line in bad:
        print("FAIL: " + line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
