#!/usr/bin/env bash
# bench/sign.sh: small-file throughput of `hdig serve` without and with
# --sign-key (Ed25519: two signatures per response, sig1 and the SRI
# profile, reused per file version, status and encoding), side by side:
# wrk -c$CONNS requests/s for a 1 KiB file. The two servers alternate run
# by run so that load from elsewhere hits both alike; the medians and
# their ratio are printed.
#
# Usage: bench/sign.sh                 (run from anywhere inside the repository)
#        HDIG=/path/to/hdig RUNS=7 DURATION=5s CONNS=50 bench/sign.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-5}
DURATION=${DURATION:-3s}
CONNS=${CONNS:-50}
need wrk wrk
build_hdig
mkdir -p "$tmp/www"
head -c 1024 /dev/urandom >"$tmp/www/1k.bin"
"$tmp/hdig" keygen -o "$tmp/origin.pem" 2>/dev/null

# start NAME ARGS...: serve $tmp/www, set url to its address.
start() {
	"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 --history 0 "$@" >"$tmp/serve.out" 2>"$tmp/serve.log" &
	server_pid=$!
	for _ in $(seq 50); do
		[ -s "$tmp/serve.out" ] && break
		sleep 0.1
	done
	url=$(awk '{print $4}' "$tmp/serve.out")1k.bin
	curl -s -o /dev/null "$url" # the first GET hashes the file
}
stop() {
	kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
	server_pid=""
	: >"$tmp/serve.out"
}
rps() { wrk -t2 -c"$CONNS" -d"$DURATION" "$1" | awk '/Requests\/sec/ {print $2}'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: >"$tmp/plain" && : >"$tmp/signed"
for i in $(seq "$RUNS"); do
	start && rps "$url" >>"$tmp/plain" && stop
	start --sign-key "$tmp/origin.pem" && rps "$url" >>"$tmp/signed" && stop
	echo "run $i: plain $(tail -1 "$tmp/plain") req/s, signed $(tail -1 "$tmp/signed") req/s" >&2
done
p=$(median <"$tmp/plain")
s=$(median <"$tmp/signed")
echo "1 KiB, wrk -c$CONNS, median of $RUNS: unsigned $p req/s, --sign-key $s req/s, ratio $(awk -v a="$s" -v b="$p" 'BEGIN {printf "%.2f", a/b}')"
