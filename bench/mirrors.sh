#!/usr/bin/env bash
# bench/mirrors.sh: one file from four loopback mirrors rate-limited
# differently, one of which (the third) flips a byte in every MiB it sends.
# hdig is given the first URL, which advertises the other three as Link
# rel=duplicate (RFC 6249) and whose Repr-Digest is the proof; aria2c is
# given the four URLs (-x4 -s4, as its manual's mirror example, with the
# same 4 connections as hdig --parallel 4). Prints, per run, whether each
# output equals the file (hdig must; aria2c writes the liar's bytes, shown
# with cmp), the mirror hdig names, and the wall-time ratio hdig/aria2c
# from alternating runs (target <= 1.0). It asserts nothing about time.
#
# Usage: bench/mirrors.sh                       (from anywhere in the repository)
#        SIZE_MIB=512 RUNS=5 bench/mirrors.sh   (full size)
#        RATES="8M,dup 16M 12M,flip=1M 4M" bench/mirrors.sh
# Figures measured while other jobs share the CPUs are noisy: re-run on a
# quiet machine.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-64}
RUNS=${RUNS:-3}
# Bytes per second per response of each mirror; the first is hdig's origin
# (dup: it advertises the others), the third the liar.
RATES=${RATES:-"8M,dup 16M 12M,flip=1M 4M"}
. "$(dirname "$0")/lib.sh"
need aria2c aria2
need cmp diffutils
need curl curl

build_hdig
echo "building bench/mirrorsrv" >&2
(cd "$repo" && go build -o "$tmp/mirrorsrv" ./bench/mirrorsrv)
export HDIG_CACHE_DIR="$tmp/cache"

mkdir -p "$tmp/www" "$tmp/out"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$tmp/www/big.bin"

# shellcheck disable=SC2086 # RATES is a list
"$tmp/mirrorsrv" -dir "$tmp/www" $RATES >"$tmp/urls" 2>"$tmp/mirrorsrv.err" &
server_pid=$!
n=$(wc -w <<<"$RATES")
for _ in $(seq 100); do
	[ "$(wc -l <"$tmp/urls")" -ge "$n" ] && break
	sleep 0.05
done
mapfile -t bases <"$tmp/urls"
urls=()
for b in "${bases[@]}"; do urls+=("${b}big.bin"); done
liar=${urls[2]}
# Warm up: each server computes and caches the file's digests (a HEAD
# carries Repr-Digest), the page cache holds the file.
for u in "${urls[@]}"; do
	curl -sfI "$u" >"$tmp/warm" || true
	curl -sf -r 0-0 -o "$tmp/warm" "$u" || true
done

# now: seconds since the epoch, to the millisecond.
now() { date +%s.%N; }

hdig_run() {
	rm -f "$tmp/out/hdig.bin"
	local t0
	t0=$(now)
	"$tmp/hdig" get --no-cache --parallel 4 -o "$tmp/out/hdig.bin" "${urls[0]}" 2>"$tmp/hdig.err" || {
		echo "hdig get failed:" >&2
		cat "$tmp/hdig.err" >&2
		exit 1
	}
	awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f", b - a}'
}

aria_run() {
	rm -f "$tmp/out/aria.bin"
	local t0
	t0=$(now)
	aria2c -q -x4 -s4 -k1M --file-allocation=none --allow-overwrite=true --auto-file-renaming=false \
		-d "$tmp/out" -o aria.bin "${urls[@]}" >"$tmp/aria.err" 2>&1 || {
		echo "aria2c failed:" >&2
		cat "$tmp/aria.err" >&2
		exit 1
	}
	awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f", b - a}'
}

echo "$SIZE_MIB MiB from ${#urls[@]} loopback mirrors (rates per response: $RATES; liar: $liar), $(nproc) CPUs"
ratios=()
for r in $(seq "$RUNS"); do
	h=$(hdig_run)
	a=$(aria_run)
	ratio=$(awk -v h="$h" -v a="$a" 'BEGIN {printf "%.2f", h / a}')
	ratios+=("$ratio")
	hdig_ok=$(cmp -s "$tmp/www/big.bin" "$tmp/out/hdig.bin" && echo "equal" || echo "DIFFERENT")
	# cmp -l: 1-based offset, then the file's and aria2c's bytes in octal.
	aria_cmp=$(cmp -l "$tmp/www/big.bin" "$tmp/out/aria.bin" 2>/dev/null | awk '
		function oct(s, n, i) { n = 0; for (i = 1; i <= length(s); i++) n = n * 8 + substr(s, i, 1); return n }
		NR == 1 {first = sprintf("first at byte %d: 0x%02x in the file, 0x%02x written", $1 - 1, oct($2), oct($3))}
		END {if (NR) printf "%d byte(s) DIFFERENT, %s", NR, first; else printf "equal"}' || true)
	printf 'run %d: hdig %6.2f s (output %s)   aria2c %6.2f s (output: %s)   hdig/aria2c %s\n' \
		"$r" "$h" "$hdig_ok" "$a" "$aria_cmp" "$ratio"
done
echo "hdig's verdict (last run):"
grep -E '✔|✖|⚠|wrong bytes' "$tmp/hdig.err" | sed 's/^/  /'
if grep -q "wrong bytes from $liar" "$tmp/hdig.err"; then
	echo "the liar named: yes ($liar)"
else
	echo "the liar named: NO"
fi
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
echo "wall time hdig/aria2c: median $median of ${ratios[*]} (target <= 1.0)"
