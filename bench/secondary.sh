#!/usr/bin/env bash
# secondary.sh: decode speed of hdig patch against xdelta3 -d on deltas that
# xdelta3 -e writes with each secondary compressor (-S lzma, djw, fgk, none).
# Two pairs, SIZE_MIB each (default 16; 64 for the figures in the README):
# "edits" is a tar of Go's source tree and the same tree with "err != nil"
# rewritten on every line that has it (many small ADDs); "unrelated" has the
# next SIZE_MIB of the tar as its target, so nearly all of it is ADD data
# and the secondary decoders do most of the work. Runs alternate hdig and xdelta3 five times; the
# best of each is kept. Ratio = hdig time / xdelta3 time (lower is better).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need xdelta3 xdelta3
build_hdig
size=$((${SIZE_MIB:-16} << 20))
src=$(go env GOROOT)/src
(tar -C "$src" -cf - . 2>/dev/null || true) | head -c $((2 * size)) >"$tmp/tar"
head -c "$size" "$tmp/tar" >"$tmp/old"
(sed 's/err != nil/err != nil \/\/ checked/' "$tmp/old" || true) | head -c "$size" >"$tmp/edits"
tail -c +$((size + 1)) "$tmp/tar" >"$tmp/unrelated"

now() { date +%s.%N; }
printf '%-10s %-6s %10s %10s %10s %10s %7s\n' pair "-S" "delta B" "hdig MB/s" "xd3 MB/s" "hdig/xd3" "note"
for pair in edits unrelated; do
cp "$tmp/$pair" "$tmp/new"
for comp in lzma djw fgk none; do
	xdelta3 -e -S "$comp" -f -s "$tmp/old" "$tmp/new" "$tmp/d.$comp"
	if ! xdelta3 -d -f -s "$tmp/old" "$tmp/d.$comp" "$tmp/out.x" 2>/dev/null || ! cmp -s "$tmp/out.x" "$tmp/new"; then
		printf '%-10s %-6s %10d %10s %10s %10s %7s\n' "$pair" "$comp" "$(stat -c %s "$tmp/d.$comp")" - - - "xdelta3 -d fails on its own delta"
		continue
	fi
	best_h=999 best_x=999
	for _ in 1 2 3 4 5; do
		t0=$(now); "$tmp/hdig" patch "$tmp/old" "$tmp/d.$comp" -o "$tmp/out.h"; t1=$(now)
		xdelta3 -d -f -s "$tmp/old" "$tmp/d.$comp" "$tmp/out.x"; t2=$(now)
		best_h=$(echo "t=$t1-$t0; if (t<$best_h) t else $best_h" | bc -l)
		best_x=$(echo "t=$t2-$t1; if (t<$best_x) t else $best_x" | bc -l)
	done
	cmp -s "$tmp/out.h" "$tmp/new" || { echo "secondary.sh: hdig patch of -S $comp differs from the target" >&2; exit 1; }
	mb=$(echo "$(stat -c %s "$tmp/new") / 1048576" | bc -l)
	printf '%-10s %-6s %10d %10.1f %10.1f %10.2f\n' "$pair" "$comp" "$(stat -c %s "$tmp/d.$comp")" \
		"$(echo "$mb / $best_h" | bc -l)" "$(echo "$mb / $best_x" | bc -l)" "$(echo "$best_h / $best_x" | bc -l)"
done
done
