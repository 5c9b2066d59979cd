#!/usr/bin/env bash
# delta.sh compares hdig diff/patch with xdelta3 on a 64 MiB file with 0.1%
# of it changed in 64 places: delta size and encode time against
# "xdelta3 -e -S none", decode time against "xdelta3 -d". Ratios are
# hdig / xdelta3 (targets: size <= 1.10, decode time <= 1.0). HDIG=path uses
# an hdig binary already built instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v xdelta3 >/dev/null || { echo "delta.sh: xdelta3 not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hdig=${HDIG:-$tmp/hdig}
[ -n "${HDIG:-}" ] || go build -o "$hdig" .

size=$((64 << 20)) edits=64 span=$((size / 1000 / 64)) # 0.1% changed in 64 places
head -c "$size" /dev/urandom >"$tmp/old"
cp "$tmp/old" "$tmp/new"
for i in $(seq 1 "$edits"); do
	off=$(((i * size / (edits + 1)) + RANDOM))
	head -c "$span" /dev/urandom | dd of="$tmp/new" bs=1 seek="$off" conv=notrunc status=none
done

# secs CMD... runs CMD five times, printing the best wall time in seconds.
secs() {
	local t0 t1 t best=
	for _ in 1 2 3 4 5; do
		t0=$(date +%s.%N)
		"$@" >/dev/null
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}
ratio() { printf '%.3f' "$(echo "$1 / $2" | bc -l)"; }

enc_h=$(secs "$hdig" diff "$tmp/old" "$tmp/new" -o "$tmp/d.hdig")
enc_x=$(secs xdelta3 -e -S none -A -n -f -s "$tmp/old" "$tmp/new" "$tmp/d.xd3")
dec_h=$(secs "$hdig" patch "$tmp/old" "$tmp/d.hdig" -o "$tmp/out.hdig")
dec_x=$(secs xdelta3 -d -f -s "$tmp/old" "$tmp/d.xd3" "$tmp/out.xd3")
cmp -s "$tmp/new" "$tmp/out.hdig" || { echo "delta.sh: hdig patch did not reproduce the target" >&2; exit 1; }
cmp -s "$tmp/new" "$tmp/out.xd3" || { echo "delta.sh: xdelta3 -d did not reproduce the target" >&2; exit 1; }
xdelta3 -d -f -s "$tmp/old" "$tmp/d.hdig" "$tmp/out.cross"
cmp -s "$tmp/new" "$tmp/out.cross" || { echo "delta.sh: xdelta3 -d of hdig's delta differs" >&2; exit 1; }

size_h=$(stat -c %s "$tmp/d.hdig") size_x=$(stat -c %s "$tmp/d.xd3")
printf '%-12s %12s %12s %8s\n' "" hdig xdelta3 ratio
printf '%-12s %12d %12d %8s\n' "delta bytes" "$size_h" "$size_x" "$(ratio "$size_h" "$size_x")"
printf '%-12s %12.3f %12.3f %8s\n' "encode s" "$enc_h" "$enc_x" "$(ratio "$enc_h" "$enc_x")"
printf '%-12s %12.3f %12.3f %8s\n' "decode s" "$dec_h" "$dec_x" "$(ratio "$dec_h" "$dec_x")"
