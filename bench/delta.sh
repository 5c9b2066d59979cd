#!/usr/bin/env bash
# delta.sh compares hdig diff with xdelta3 and zstd --patch-from, every
# figure a ratio (hdig / peer; below 1 is better for hdig), in one run:
#
# 1. Encode time and peak RSS on a base of random bytes with 1 MiB
#    inserted at 4 KiB (the case that had a cliff above 64 MiB), at sizes
#    1 MiB to 1 GiB (DELTA_FULL=1 adds 4 GiB; DELTA_SIZES="1 16" picks):
#    against "xdelta3 -e -S none" (its default level) and "xdelta3 -9 -S
#    djw", alternating runs, best of DELTA_RUNS (default 3).
# 2. Bytes on real-data pairs made on the fly (bench/deltapairs.sh):
#    golang.org/x/sys and klauspost/compress at two versions (.go files),
#    hdig built at two commits, a Go source tree tar with 50 files edited:
#    hdig at -l 0, 6 and 9, and hdig -l 9 compressed as a 226 is when the
#    client accepts zstd (here "zstd -19", close to the origin's), against
#    "xdelta3 -9 -S djw" (-S none for the tar, as in issue 15) and
#    "zstd -19 --patch-from". xdelta3 -d decodes every hdig delta.
#
# The machine may be shared: rerun on a quiet one for absolute figures;
# the ratios come from runs side by side. HDIG=path uses a binary built
# already; DELTA_PAIRS=DIR keeps the pairs in DIR for the next run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deltapairs.sh"
command -v xdelta3 >/dev/null || { echo "delta.sh: xdelta3 not installed" >&2; exit 2; }
command -v zstd >/dev/null || { echo "delta.sh: zstd not installed" >&2; exit 2; }
build_hdig
hdig=$tmp/hdig
RUNS=${DELTA_RUNS:-3}
sizes=${DELTA_SIZES:-"1 16 64 256 1024"}
[ -n "${DELTA_FULL:-}" ] && sizes="$sizes 4096"

# run NAME COMMAND...: runs COMMAND once; sets secs (CPU: user + system,
# steadier than wall time on a shared machine), wall and rss (MiB).
run() {
	local name=$1 u s kb
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time.txt" "$@" >"$tmp/stdout.txt" 2>"$tmp/stderr.txt" || {
		echo "delta.sh: $name failed:" >&2
		cat "$tmp/stderr.txt" >&2
		exit 1
	}
	read -r wall u s kb <"$tmp/time.txt"
	secs=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
	rss=$((kb / 1024))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN {print (a == "" || b < a) ? b : a}'; }
# decodes BASE DELTA TARGET: xdelta3 -d rebuilds TARGET from hdig's DELTA.
decodes() {
	xdelta3 -d -f -s "$1" "$2" "$tmp/rebuilt"
	cmp -s "$3" "$tmp/rebuilt" || { echo "delta.sh: xdelta3 -d of $2 differs from $3" >&2; exit 1; }
	rm -f "$tmp/rebuilt"
}

echo "== encode CPU seconds (user + system; wall in the last columns): random base with 1 MiB"
echo "   inserted at 4 KiB; best of $RUNS alternating runs, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-9s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n' size hdig_s xd3_s xd3-9_s "vs xd3" "vs xd3-9" hdig_MiB xd3_MiB hdig_w xd3_w
for mib in $sizes; do
	head -c $((mib << 20)) /dev/urandom >"$tmp/old"
	{ head -c 4096 "$tmp/old"; head -c $((1 << 20)) /dev/urandom; tail -c +4097 "$tmp/old"; } >"$tmp/new"
	h="" x="" x9="" hr=0 xr=0 hw="" xw=""
	for _ in $(seq "$RUNS"); do
		run hdig "$hdig" diff "$tmp/old" "$tmp/new" -o "$tmp/d.hdig"
		h=$(best "$h" "$secs") hr=$((rss > hr ? rss : hr)) hw=$(best "$hw" "$wall")
		run xdelta3 xdelta3 -e -S none -f -s "$tmp/old" "$tmp/new" "$tmp/d.xd3"
		x=$(best "$x" "$secs") xr=$((rss > xr ? rss : xr)) xw=$(best "$xw" "$wall")
		run "xdelta3 -9" xdelta3 -e -9 -S djw -f -s "$tmp/old" "$tmp/new" "$tmp/d.xd3"
		x9=$(best "$x9" "$secs")
	done
	decodes "$tmp/old" "$tmp/d.hdig" "$tmp/new"
	printf '%-9s %9.2f %9.2f %9.2f %9s %9s %9d %9d %8.2f %8.2f\n' "${mib}MiB" "$h" "$x" "$x9" "$(ratio "$h" "$x")" "$(ratio "$h" "$x9")" "$hr" "$xr" "$hw" "$xw"
	rm -f "$tmp/old" "$tmp/new" "$tmp/d.hdig" "$tmp/d.xd3"
done

echo "== bytes on real data (ratio: hdig / peer)"
pairs=${DELTA_PAIRS:-$tmp/pairs} # DELTA_PAIRS=DIR reuses the pairs made there before
mkdir -p "$pairs"
[ -s "$pairs/pairs" ] || make_pairs "$pairs"
printf '%-9s %11s %11s %11s %11s %11s %11s %9s %9s %9s\n' pair xd3-9 zstd-pf hdig-l0 hdig-l6 hdig-l9 "l9+zstd" "l9/xd3" "wire/xd3" "wire/zpf"
while read -r p; do
	o=$pairs/$p.old n=$pairs/$p.new
	sec=djw
	[ "$p" = gotree ] && sec=none
	xdelta3 -e -9 -S "$sec" -f -s "$o" "$n" "$tmp/x"
	zstd -q -19 --long=31 --patch-from="$o" -f "$n" -o "$tmp/z" 2>/dev/null || zstd -q -19 --patch-from="$o" -f "$n" -o "$tmp/z"
	sz=()
	for l in 0 6 9; do
		"$hdig" diff -l "$l" "$o" "$n" -o "$tmp/h$l"
		decodes "$o" "$tmp/h$l" "$n"
		sz+=("$(stat -c %s "$tmp/h$l")")
	done
	zstd -q -19 -f "$tmp/h9" -o "$tmp/h9.zst"
	xs=$(stat -c %s "$tmp/x") zs=$(stat -c %s "$tmp/z") wz=$(stat -c %s "$tmp/h9.zst")
	wire=$((wz < sz[2] ? wz : sz[2]))
	printf '%-9s %11d %11d %11d %11d %11d %11d %9s %9s %9s\n' "$p" "$xs" "$zs" "${sz[0]}" "${sz[1]}" "${sz[2]}" "$wz" \
		"$(ratio "${sz[2]}" "$xs")" "$(ratio "$wire" "$xs")" "$(ratio "$wire" "$zs")"
done <"$pairs/pairs"
