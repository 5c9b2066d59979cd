#!/usr/bin/env bash
# bench/sum.sh — time `hdig sum` against GNU coreutils on one big file.
#
#   hdig sum -a sha-256 f            vs  sha256sum f                 target ratio <= 1.05
#   hdig sum -a sha-256,sha-512 f    vs  sha256sum f; sha512sum f    target ratio <= 0.75
#
# Best of RUNS (default 3) wall-clock times each, with the file in the page
# cache, so the figures measure hashing, not the disk. SIZE_MIB (default
# 256) sets the file size. Exits 1 if a target is missed.
set -euo pipefail

size_mib=${SIZE_MIB:-256}
runs=${RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in sha256sum sha512sum go awk base64 od; do
	command -v "$tool" >/dev/null || { echo "bench/sum.sh: $tool not found" >&2; exit 2; }
done

(cd "$root" && go build -o "$tmp/hdig" .)
head -c $((size_mib << 20)) /dev/urandom >"$tmp/f"
cat "$tmp/f" >/dev/null # into the page cache

# best CMD... prints the best wall-clock time of RUNS runs, in seconds.
best() {
	local best_ns='' start end ns
	for ((i = 0; i < runs; i++)); do
		start=$(date +%s%N)
		"$@" >/dev/null
		end=$(date +%s%N)
		ns=$((end - start))
		if [[ -z $best_ns || $ns -lt $best_ns ]]; then best_ns=$ns; fi
	done
	awk -v ns="$best_ns" 'BEGIN { printf "%.3f", ns / 1e9 }'
}

coreutils_both() { sha256sum "$1" && sha512sum "$1"; }

# Sanity: hdig and coreutils agree on the bytes.
want=$(sha256sum "$tmp/f" | awk '{print $1}')
got=$("$tmp/hdig" sum -a sha-256 - <"$tmp/f")
got_hex=$(printf '%s' "$got" | sed 's/^sha-256=:\(.*\):$/\1/' | base64 -d | od -An -v -tx1 | tr -d ' \n')
if [[ $got_hex != "$want" ]]; then
	echo "bench/sum.sh: hdig says $got (hex $got_hex), sha256sum says $want" >&2
	exit 1
fi

status=0
report() { # label hdig-seconds coreutils-seconds target
	local ratio verdict
	ratio=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
	verdict=$(awk -v r="$ratio" -v t="$4" 'BEGIN { print (r <= t ? "ok" : "MISSED") }')
	[[ $verdict == ok ]] || status=1
	printf '%-34s hdig %6.3f s (%4.0f MiB/s)  coreutils %6.3f s  ratio %s (target <= %s) %s\n' \
		"$1" "$2" "$(awk -v s="$2" -v m="$size_mib" 'BEGIN { print m / s }')" "$3" "$ratio" "$4" "$verdict"
}

printf '%d MiB file, best of %d; %s; %s\n' "$size_mib" "$runs" "$(go version | awk '{print $3}')" "$(sha256sum --version | head -1)"
report "sha-256" "$(best "$tmp/hdig" sum -a sha-256 "$tmp/f")" "$(best sha256sum "$tmp/f")" 1.05
report "sha-256+sha-512 (one pass)" "$(best "$tmp/hdig" sum -a sha-256,sha-512 "$tmp/f")" "$(best coreutils_both "$tmp/f")" 0.75
exit $status
