#!/usr/bin/env bash
# bench/get.sh: `hdig get` against curl and aria2 on loopback, fetching a
# 256 MiB file from `hdig serve`. Each command runs RUNS times; the median
# wall time and the peak RSS (/usr/bin/time -v) are reported, then the
# ratios:
#
#   hdig get -o F             vs  curl -o F && sha256sum F   (target <= 0.8)
#   hdig get --parallel 4 -o F vs aria2c -x4 -s4              (aria2 verifies nothing)
#
# hdig verifies Repr-Digest while it writes; curl needs a second pass to
# hash. Times never decide anything here: this prints figures, it asserts
# nothing.
#
# Usage: bench/get.sh                 (from anywhere inside the repository)
#        HDIG=/path/to/hdig bench/get.sh
#        SIZE_MIB=1024 RUNS=5 bench/get.sh
# Needs root to install aria2 and time with apt-get when they are missing.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-256}
RUNS=${RUNS:-3}
. "$(dirname "$0")/lib.sh"
need aria2c aria2
need curl curl
[ -x /usr/bin/time ] || need time time

build_hdig
export HDIG_CACHE_DIR="$tmp/cache"

mkdir -p "$tmp/www" "$tmp/out"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$tmp/www/big.bin"

"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 >"$tmp/serve.out" 2>/dev/null &
server="hdig serve"
server_pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/serve.out" ] && break
	sleep 0.05
done
base=$(head -1 "$tmp/serve.out" | sed 's/.* at //')
url="${base}big.bin"
# Warm up: the origin computes and caches its digests, the page cache holds
# the file.
curl -s -o /dev/null "$url"
curl -s -o /dev/null -H 'Range: bytes=0-0' "$url"

# measure NAME COMMAND...: runs COMMAND RUNS times, prints the median wall
# seconds and the peak RSS in MiB, and stores them in $secs and $rss.
measure() {
	local name=$1
	shift
	local times=() peak=0
	for _ in $(seq "$RUNS"); do
		rm -rf "$tmp/out"/*
		sync
		/usr/bin/time -v "$@" 2>"$tmp/time.txt" >/dev/null || {
			echo "$name failed:" >&2
			cat "$tmp/time.txt" >&2
			exit 1
		}
		times+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$tmp/time.txt")")
		local kb
		kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
		[ "$kb" -gt "$peak" ] && peak=$kb
	done
	secs=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	rss=$(awk -v kb="$peak" 'BEGIN {printf "%.1f", kb / 1024}')
	printf '%-34s %7.2f s  %7.1f MiB/s  peak RSS %6s MiB\n' "$name" "$secs" \
		"$(awk -v s="$secs" -v m="$SIZE_MIB" 'BEGIN {print (s > 0 ? m / s : 0)}')" "$rss"
}

out="$tmp/out/big.bin"
echo "$SIZE_MIB MiB over loopback from $server, median of $RUNS runs, $(nproc) CPUs"
measure "curl -o && sha256sum" sh -c "curl -sf -o '$out' '$url' && sha256sum '$out'"
curl_s=$secs
measure "hdig get -o (default parallel)" "$tmp/hdig" get -s --no-cache -o "$out" "$url"
hdig_s=$secs
hdig_rss=$rss
measure "hdig get --parallel 1 -o" "$tmp/hdig" get -s --no-cache --parallel 1 -o "$out" "$url"
hdig1_s=$secs
hdig1_rss=$rss
measure "aria2c -x4 -s4" aria2c -q -x4 -s4 --file-allocation=none --allow-overwrite=true \
	--auto-file-renaming=false -d "$tmp/out" -o big.bin "$url"
aria_s=$secs
measure "hdig get --parallel 4 -o" "$tmp/hdig" get -s --no-cache --parallel 4 -o "$out" "$url"
hdig4_s=$secs
hdig4_rss=$rss

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
echo
echo "hdig get -o (default)   / curl+sha256sum: $(ratio "$hdig_s" "$curl_s")  (target <= 0.8; peak RSS $hdig_rss MiB)"
echo "hdig get --parallel 1   / curl+sha256sum: $(ratio "$hdig1_s" "$curl_s")  (peak RSS $hdig1_rss MiB)"
echo "hdig get --parallel 4   / aria2c -x4 -s4: $(ratio "$hdig4_s" "$aria_s")  (peak RSS $hdig4_rss MiB; aria2 verifies nothing)"
