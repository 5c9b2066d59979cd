# bench/serve_index.sh: the indexing part of bench/serve.sh, sourced by it
# (uses its tmp, hdig_pid, rps, median, ratio, cpu_log, RUNS, CONNS).
#
# Two `hdig serve` of the same tree (INDEX_MIB of incompressible data in
# 4 files, and 1k.bin), each with its own state directory: "idle" was
# indexed before the runs; "indexing" starts afresh before each of its
# runs, so its indexer hashes the whole tree while wrk asks for 1k.bin.
# Goal (#15 §2): indexing slows other requests by at most 10%.

mkdir -p "$tmp/idx" "$tmp/idx-idle"
chmod 755 "$tmp/idx"
part=$((INDEX_MIB / 4))
head -c $((part << 20)) /dev/urandom >"$tmp/idx/big-1.bin"
for i in 2 3 4; do cp "$tmp/idx/big-1.bin" "$tmp/idx/big-$i.bin"; done
cp "$tmp/www/1k.bin" "$tmp/idx/1k.bin"
chmod a+r "$tmp/idx"/*
sleep 2.5 # past the settle window: the indexer hashes every file at once

start_idx() { # STATE_DIR → idx_pid, idx_base
	: >"$1.out"
	"$tmp/hdig" serve "$tmp/idx" --addr 127.0.0.1:0 --state-dir "$1" >"$1.out" 2>"$1.err" &
	idx_pid=$!
	idx_base="$(serve_base "$1.out")"
}
indexed() { # STATE_DIR → how many of the 4 large files it has indexed
	local n=0 i
	for i in 1 2 3 4; do grep -q "\"big-$i.bin\"" "$1/digests" 2>/dev/null && n=$((n + 1)); done
	echo "$n"
}

# The idle server's state directory is indexed once, before the runs;
# both servers are started afresh for each run, so that neither is warmer.
start_idx "$tmp/idx-idle"
for _ in $(seq 1200); do
	[ "$(indexed "$tmp/idx-idle")" = 4 ] && break
	sleep 0.1
done
kill "$idx_pid" && wait "$idx_pid" 2>/dev/null || true
idx_pid=""

index_compare() { # label: RUNS alternating wrk runs of CONNS connections, busy then idle
	local busy="" idle="" left="" bcpu="" icpu="" bm im
	for _ in $(seq "$RUNS"); do
		rm -rf "$tmp/idx-busy"
		start_idx "$tmp/idx-busy"
		curl -fsS -o /dev/null "${idx_base}1k.bin"
		busy="$busy $(rps "${idx_base}1k.bin")"
		bcpu="$bcpu $(tail -n 1 "$cpu_log" | awk '{ print $2 }')"
		left="$left $((4 - $(indexed "$tmp/idx-busy")))"
		kill "$idx_pid" && wait "$idx_pid" 2>/dev/null || true
		start_idx "$tmp/idx-idle"
		idle_pid=$idx_pid idle_base=$idx_base idx_pid="" idx_base=""
		curl -fsS -o /dev/null "${idle_base}1k.bin"
		idle="$idle $(rps "${idle_base}1k.bin")"
		icpu="$icpu $(tail -n 1 "$cpu_log" | awk '{ print $2 }')"
		kill "$idle_pid" && wait "$idle_pid" 2>/dev/null || true
		idle_pid=""
	done
	bm=$(echo "$busy" | median)
	im=$(echo "$idle" | median)
	printf '%s idle:%s req/s (median %s; server CPU per request:%s µs)\n' "$1" "$idle" "$im" "$icpu"
	printf '%s busy:%s req/s (median %s; server CPU per request, indexer included:%s µs; large files left unindexed after each run:%s)\n' "$1" "$busy" "$bm" "$bcpu" "$left"
	printf '%s ratio indexing/idle: %s (goal >= 0.90)\n' "$1" "$(ratio "$bm" "$im")"
}
conns_saved=$CONNS
for CONNS in $conns_saved 1; do
	index_compare "1 KiB -c$CONNS, indexing $INDEX_MIB MiB:"
done
CONNS=$conns_saved
