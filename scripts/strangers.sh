#!/usr/bin/env bash
# Strangers against a cluster's handshake (issue 63, item 5): STRANGERS connections (default
# 200) each drip one byte of a well-formed hello every SECONDS (default 3) at process 0's port,
# connecting again as soon as they are closed (within 50 ms), so that every place process 0
# frees is taken again at once. With them dripping, a 2-process `values` run
# must form and write the single process's bytes, with a secret and without; and process 0
# alone (its peer never comes) must say in its error what held the port.
#
# Usage: scripts/strangers.sh [STRANGERS] [SECONDS]      (about 30 s; needs python3)
# Uses target/release/grundy; files go under target/strangers (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
strangers=${1:-200}
every=${2:-3}
bin=$(realpath target/release/grundy)
dir=target/strangers
mkdir -p "$dir"
[ -s "$dir/g.txt" ] || "$bin" generate -n 200000 -q 1000 --seed 5 -o "$dir/g.txt"
"$bin" values "$dir/g.txt" > "$dir/one.out"

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Drips at 127.0.0.1:$1 until killed; prints how many connections it opened when it is.
# (exec: the background job's pid is python's, which `kill` then reaches.)
drip() {
  exec python3 - "$1" "$strangers" "$every" <<'PY'
import select, signal, socket, struct, sys, time
port, count, every = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
hello = b"GRDY\x02\x00" + struct.pack("<III", 1, 0, 2) + bytes(16)
opened = 0
def connect():
    global opened
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            opened += 1
            return [s, 0]
        except OSError:
            time.sleep(0.05)
def report(*_):
    print(opened, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, report)
strangers = [connect() for _ in range(count)]
drip_at = time.monotonic()
while True:
    # A stranger that was closed connects again at once (within 50 ms).
    readable, _, _ = select.select([s[0] for s in strangers], [], [], 0.05)
    for s in strangers:
        if s[0] in readable:
            try:
                closed = not s[0].recv(64)
            except OSError:
                closed = True
            if closed:
                s[0].close()
                s[:] = connect()
    if time.monotonic() < drip_at:
        continue
    drip_at += every
    for s in strangers:
        try:
            s[0].send(hello[s[1] % len(hello):][:1])
            s[1] += 1
        except OSError:
            s[0].close()
            s[:] = connect()
PY
}

# Waits until 127.0.0.1:$1 listens.
listening() {
  for _ in $(seq 200); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), timeout=1)" 2>/dev/null && return
    sleep 0.05
  done
}

# One run: process 0, the strangers, then (unless $2 is "alone") process 1; prints a row.
run() {
  local name=$1 mode=$2 p0 p1
  p0=$(port); p1=$(port)
  printf '127.0.0.1:%s\n127.0.0.1:%s\n' "$p0" "$p1" > "$dir/hosts"
  local seconds=20; [ "$mode" = alone ] && seconds=5
  GRUNDY_CONNECT_SECONDS=$seconds "$bin" values "$dir/g.txt" --hosts "$dir/hosts" --process 0 \
    > "$dir/two.out" 2> "$dir/p0.err" & local zero=$!
  listening "$p0"
  drip "$p0" > "$dir/drip.out" & local dripper=$!
  sleep $((every + 1))  # every stranger connected and has dripped a byte
  local started=$SECONDS code0 code1=-
  if [ "$mode" != alone ]; then
    local t0; t0=$(date +%s.%N)
    GRUNDY_CONNECT_SECONDS=$seconds "$bin" values "$dir/g.txt" --hosts "$dir/hosts" --process 1 \
      > /dev/null 2> "$dir/p1.err" && code1=0 || code1=$?
    formed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  else
    formed=-
  fi
  wait "$zero" && code0=0 || code0=$?
  kill -TERM "$dripper"; wait "$dripper" || true
  local same=no; cmp -s "$dir/one.out" "$dir/two.out" && same=yes
  [ "$mode" = alone ] && same=-
  printf '%-22s %8s %6s %6s %5s %12s\n' "$name" "$formed" "$code0" "$code1" "$same" "$(cat "$dir/drip.out")"
  grep '^error' "$dir/p0.err" | sed 's/^/  process 0: /' || true
}

echo "$strangers strangers, a byte each every $every s, at process 0 of 2 (values of a 200k-node file)"
printf '%-22s %8s %6s %6s %5s %12s\n' run p1_s exit0 exit1 same connections
GRUNDY_SECRET=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n') run "with a secret" both
GRUNDY_SECRET= run "without a secret" both 2>/dev/null
GRUNDY_SECRET=s run "process 0 alone (5 s)" alone
