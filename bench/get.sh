#!/usr/bin/env bash
# bench/get.sh: `hdig get` against curl and aria2c on loopback, from
# `hdig serve` (which sends Repr-Digest) and from nginx (which sends no
# digest). Every round runs each command once, alternating, so a noisy
# machine hits all of them alike; the median wall time and the peak RSS
# (/usr/bin/time -v) of each are reported, then the ratios of medians:
#
#   hdig get -o F              / curl -o F                (target <= 1.1)
#   hdig get --parallel 1 -o F / curl -o F                (one stream, as curl: no
#                                                          pieces read back for the hash)
#   hdig get URL > F           / curl URL > F             (target <= 1.5; RSS < 16 MiB)
#   hdig get --parallel 1 URL > F / curl URL > F          (the spool filled by one stream)
#   hdig get URL > F, cache on / curl URL > F             (the default: the body is
#                                                          also kept as a base version)
#   hdig get URL > F, cached   / curl URL > F             (the version is cached and
#                                                          unchanged: a 304, copied
#                                                          from the cache and checked)
#   hdig get URL | cat > F     / curl URL | cat > F       (stdout a pipe)
#   hdig get --parallel 4 -o F / aria2c -x4 -s4           (target <= 1.0)
#
# curl and aria2c verify nothing; hdig verifies what the origin sent (from
# nginx with --no-cache: nothing to verify, nothing hashed). Times never
# decide anything here: this prints figures, it asserts nothing.
#
# Usage: bench/get.sh                 (from anywhere inside the repository)
#        HDIG=/path/to/hdig bench/get.sh
#        OLD=/path/to/older/hdig bench/get.sh   (adds the older build, alternating)
#        SIZE_MIB=1024 ROUNDS=5 SERVERS="hdig nginx" bench/get.sh
#        OUT_DIR=/dev/shm/x bench/get.sh   (outputs and hdig's spool on tmpfs)
#        SERVERS="hdig nginx nginx_sendfile" bench/get.sh   (adds nginx with
#          Debian's nginx.conf settings, sendfile on and tcp_nopush on; plain
#          nginx uses its compiled default, sendfile off: read and write of 32 KiB)
#
# hdig's spool for stdout (TMPDIR) is OUT_DIR: the same filesystem as the
# output, as for a user whose TMPDIR and output share a disk.
#
# On a shared, loaded machine wall times mostly measure the scheduler: the
# CPU seconds (user + sys) of each command are printed beside them.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-256}
ROUNDS=${ROUNDS:-3}
SERVERS=${SERVERS:-hdig nginx}
. "$(dirname "$0")/lib.sh"
need aria2c aria2
need curl curl
need nginx nginx-light
[ -x /usr/bin/time ] || need time time

build_hdig
[ -n "${OLD:-}" ] && cp "$OLD" "$tmp/hdig-old"
export HDIG_CACHE_DIR="$tmp/cache"
chmod 755 "$tmp" # nginx workers run as another user
out_dir=${OUT_DIR:-$tmp/out}
mkdir -p "$tmp/www" "$out_dir" "$tmp/res"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$tmp/www/big.bin"
chmod 644 "$tmp/www/big.bin"
pids=()
cleanup_servers() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap 'cleanup_servers; cleanup' EXIT

start_hdig() {
	"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
	pids+=($!)
	for _ in $(seq 100); do
		[ -s "$tmp/serve.out" ] && break
		sleep 0.05
	done
	url="$(head -1 "$tmp/serve.out" | sed 's/.* at //')big.bin"
}

start_nginx() { # start_nginx [DIRECTIVES [PREFIX]]
	local port dir=${2:-$tmp/nginx}
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	nginx_conf "$dir" "$tmp/www" "$port" "${1:-}"
	nginx -p "$dir" -c "$dir/nginx.conf" >"$dir/start.out" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		curl -sf -o "$tmp/probe" -r 0-0 "http://127.0.0.1:$port/big.bin" && break
		sleep 0.05
	done
	url="http://127.0.0.1:$port/big.bin"
}

start_nginx_sendfile() { start_nginx "sendfile on; tcp_nopush on;" "$tmp/nginx-sendfile"; }

# start_hdig and start_nginx set url; they run in this shell (not in $(…),
# which would wait for the server) so the trap stops what they started.

# once NAME COMMAND [SETUP]: one timed run (SETUP runs before, untimed);
# appends "secs kb cpu" to $tmp/res/NAME.
once() {
	local name=$1 cmd=$2
	rm -f "$out_dir"/*
	[ -z "${3:-}" ] || sh -c "$3"
	/usr/bin/time -v sh -c "$cmd" 2>"$tmp/time.txt" || {
		echo "$name failed:" >&2
		cat "$tmp/time.txt" >&2
		exit 1
	}
	awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; t = s}
		/User time/ {c += $2} /System time/ {c += $2}
		/Maximum resident set size/ {kb = $2} END {print t, kb, c}' "$tmp/time.txt" >>"$tmp/res/$name"
}

# median NAME: median seconds; cpu NAME: median CPU seconds; peak NAME:
# largest RSS in MiB.
median() { sort -n "$tmp/res/$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
cpu() { sort -n -k3 "$tmp/res/$1" | awk '{a[NR] = $3} END {print a[int((NR + 1) / 2)]}'; }
peak() { awk '$2 > m {m = $2} END {printf "%.1f", m / 1024}' "$tmp/res/$1"; }
ratio() {
	awk -v a="$(median "$1")" -v b="$(median "$2")" -v c="$(cpu "$1")" -v d="$(cpu "$2")" \
		'BEGIN {printf "%.2f (CPU %.2f)", (b > 0 ? a / b : 0), (d > 0 ? c / d : 0)}'
}

out="$out_dir/big.bin"
echo "$SIZE_MIB MiB over loopback, $ROUNDS alternating rounds, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for server in $SERVERS; do
	start_"$server"
	curl -s -o "$tmp/warm" "$url" # the origin indexes its digests; the page cache holds the file
	builds=hdig
	[ -n "${OLD:-}" ] && builds="hdig hdig-old"
	rm -rf "$tmp/cache-warm"
	HDIG_CACHE_DIR="$tmp/cache-warm" "$tmp/hdig" get -s -o "$out" "$url" # a cached version for the 304 row
	for _ in $(seq "$ROUNDS"); do
		once "$server.curl-o" "curl -sf -o '$out' '$url'"
		for b in $builds; do
			once "$server.$b-o" "'$tmp/$b' get -s --no-cache -o '$out' '$url'"
		done
		once "$server.hdig-o-p1" "'$tmp/hdig' get -s --no-cache --parallel 1 -o '$out' '$url'"
		once "$server.curl-stdout" "curl -sf '$url' >'$out'"
		for b in $builds; do
			once "$server.$b-stdout" "TMPDIR='$out_dir' '$tmp/$b' get -s --no-cache '$url' >'$out'"
		done
		once "$server.hdig-stdout-p1" "TMPDIR='$out_dir' '$tmp/hdig' get -s --no-cache --parallel 1 '$url' >'$out'"
		for b in $builds; do # the default: the body is also kept as a base version, in an empty cache
			once "$server.$b-stdout-cache" "HDIG_CACHE_DIR='$tmp/cache-run' TMPDIR='$out_dir' '$tmp/$b' get -s '$url' >'$out'" "rm -rf '$tmp/cache-run'"
			once "$server.$b-stdout-hit" "HDIG_CACHE_DIR='$tmp/cache-warm' TMPDIR='$out_dir' '$tmp/$b' get -s '$url' >'$out'"
		done
		once "$server.curl-pipe" "curl -sf '$url' | cat >'$out'"
		for b in $builds; do
			once "$server.$b-pipe" "TMPDIR='$out_dir' '$tmp/$b' get -s --no-cache '$url' | cat >'$out'"
		done
		once "$server.aria2c" "aria2c -q -x4 -s4 --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -d '$out_dir' -o big.bin '$url'"
		for b in $builds; do
			once "$server.$b-p4" "'$tmp/$b' get -s --no-cache --parallel 4 -o '$out' '$url'"
		done
	done
	echo
	echo "from $server:"
	for f in "$tmp/res/$server".*; do
		n=${f##*/}
		printf '  %-22s %6.2f s  %7.1f MiB/s  CPU %5.2f s  peak RSS %6s MiB\n' "${n#*.}" "$(median "$n")" \
			"$(awk -v s="$(median "$n")" -v m="$SIZE_MIB" 'BEGIN {print (s > 0 ? m / s : 0)}')" "$(cpu "$n")" "$(peak "$n")"
	done
	for b in $builds; do
		echo "  $b get -o          / curl -o         : $(ratio "$server.$b-o" "$server.curl-o")  (target <= 1.1)"
		[ "$b" = hdig ] && echo "  $b get --parallel 1 -o / curl -o    : $(ratio "$server.$b-o-p1" "$server.curl-o")  (one stream, no pieces)"
		echo "  $b get > file      / curl > file     : $(ratio "$server.$b-stdout" "$server.curl-stdout")  (target <= 1.5; peak RSS $(peak "$server.$b-stdout") MiB, target < 16)"
		[ "$b" = hdig ] && echo "  $b get --parallel 1 > file / curl > file : $(ratio "$server.$b-stdout-p1" "$server.curl-stdout")  (one stream into the spool; peak RSS $(peak "$server.$b-stdout-p1") MiB)"
		echo "  $b get > file, cache on / curl > file : $(ratio "$server.$b-stdout-cache" "$server.curl-stdout")  (the default: the body also becomes a cached base; peak RSS $(peak "$server.$b-stdout-cache") MiB)"
		echo "  $b get > file, cached / curl > file  : $(ratio "$server.$b-stdout-hit" "$server.curl-stdout")  (a 304: the cached version copied and checked; peak RSS $(peak "$server.$b-stdout-hit") MiB)"
		echo "  $b get | cat       / curl | cat      : $(ratio "$server.$b-pipe" "$server.curl-pipe")"
		echo "  $b get --parallel 4 / aria2c -x4 -s4 : $(ratio "$server.$b-p4" "$server.aria2c")  (target <= 1.0)"
	done
done
