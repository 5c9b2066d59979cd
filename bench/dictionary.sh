#!/usr/bin/env bash
# dictionary.sh: what hdig serve sends for RFC 9842 Compression Dictionary
# Transport, against the delta tools. For each version pair it serves v1
# with --dictionary, fetches it (so it is kept), replaces it with v2, asks
# for v2 with Available-Dictionary naming v1 and Accept-Encoding dcb, then
# dcz, and compares the body sizes with "xdelta3 -9 -S djw" (-A: no file
# names in its header), "zstd -19 --patch-from" and plain Brotli (hdig
# serve's br variant, no dictionary).
# The dcz body is also decoded with "zstd -d -D v1" after its 40-byte
# header. Targets: best of dcb/dcz <= 0.8x xdelta3 on source text, <= 1.0x
# zstd --patch-from on binaries. Sizes are deterministic for given tool
# versions; the noise of a loaded machine only changes how long it runs.
#
# Pairs (modest by default; FULL=1 for the full size):
#   source  klauspost/compress v1.19.2 and v1.20.3 from the module cache,
#           the .go files of zstd/ concatenated (FULL=1: the whole module)
#   binary  hdig built from HEAD~$BIN_BACK (default 15) and HEAD, stripped
#           (-s -w; FULL=1: with symbols)
# HDIG=path uses an hdig binary already built for the server.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need xdelta3 xdelta3
need zstd zstd
need curl curl
need openssl openssl
build_hdig
cd "$repo"

mod=$(go env GOMODCACHE)/github.com/klauspost/compress
concat() { # concat DIR: the .go files under DIR (or DIR/zstd), sorted
	local d=$1
	[ "${FULL:-}" = 1 ] || d=$d/zstd
	find "$d" -name '*.go' -type f | LC_ALL=C sort | xargs cat
}
[ -d "$mod@v1.19.2" ] && [ -d "$mod@v1.20.3" ] || { echo "dictionary.sh: klauspost/compress v1.19.2 and v1.20.3 not in the module cache (go mod download github.com/klauspost/compress@v1.19.2 github.com/klauspost/compress@v1.20.3)" >&2; exit 2; }
mkdir -p "$tmp/pairs/source" "$tmp/pairs/binary"
concat "$mod@v1.19.2" >"$tmp/pairs/source/v1"
concat "$mod@v1.20.3" >"$tmp/pairs/source/v2"

back=${BIN_BACK:-15}
ldflags="-s -w"
[ "${FULL:-}" = 1 ] && ldflags=""
for v in v1 v2; do
	rev=HEAD
	[ "$v" = v1 ] && rev="HEAD~$back"
	rm -rf "$tmp/src"
	mkdir -p "$tmp/src"
	git archive "$rev" | tar -x -C "$tmp/src"
	echo "building hdig at $rev" >&2
	(cd "$tmp/src" && go build -trimpath -ldflags="$ldflags" -o "$tmp/pairs/binary/$v" .)
done

www=$tmp/www
mkdir -p "$www/d" "$tmp/out"
serve_hdig "$tmp/hdig" "$www" --dictionary '/d/*'
base=$served

# fetch NAME CODING OUT: GET /d/NAME with the dictionary until the body
# comes in CODING (large files are encoded in the background); prints the
# Content-Encoding.
fetch() {
	local name=$1 coding=$2 out=$3 avail ce=""
	avail=":$(openssl dgst -sha256 -binary "$tmp/pairs/$name/v1" | base64 -w0):"
	for _ in $(seq 1 600); do
		curl -s -o "$out" -D "$tmp/h" -H "Available-Dictionary: $avail" -H "Accept-Encoding: $coding" "$base/d/$name"
		ce=$(tr -d '\r' <"$tmp/h" | sed -n 's/^[Cc]ontent-[Ee]ncoding: //p')
		[ "$ce" = "$coding" ] && break
		sleep 1
	done
	[ "$ce" = "$coding" ] || { echo "dictionary.sh: $name: no $coding body after 600 tries" >&2; exit 1; }
}

ratio() { printf '%.3f' "$(echo "$1 / $2" | bc -l)"; }
size() { stat -c %s "$1"; }
printf '%-7s %10s %10s %10s %10s %10s %10s %10s %12s %12s\n' pair v2 br xdelta3 zstd-pf dcb dcz best best/xdelta3 best/zstd-pf
for name in source binary; do
	p=$tmp/pairs/$name
	cp "$p/v1" "$www/d/$name"
	curl -s -o "$tmp/out/v1" "$base/d/$name"
	cmp -s "$tmp/out/v1" "$p/v1" || { echo "dictionary.sh: $name: v1 not served" >&2; exit 1; }
	cp "$p/v2" "$www/d/$name.tmp"
	mv "$www/d/$name.tmp" "$www/d/$name"
	xdelta3 -e -9 -S djw -A -f -s "$p/v1" "$p/v2" "$tmp/out/$name.xd3"
	zstd -q -19 -f --patch-from="$p/v1" "$p/v2" -o "$tmp/out/$name.zpf"
	fetch "$name" dcb "$tmp/out/$name.dcb"
	fetch "$name" dcz "$tmp/out/$name.dcz"
	tail -c +41 "$tmp/out/$name.dcz" >"$tmp/out/$name.frame"
	zstd -q -d -f -D "$p/v1" "$tmp/out/$name.frame" -o "$tmp/out/$name.unz"
	cmp -s "$tmp/out/$name.unz" "$p/v2" || { echo "dictionary.sh: $name: zstd -d -D v1 of the dcz frame is not v2" >&2; exit 1; }
	curl -s -o "$tmp/out/$name.br" -D "$tmp/h" -H "Accept-Encoding: br" "$base/d/$name"
	br=$(size "$tmp/out/$name.br")
	grep -qi '^content-encoding: br' "$tmp/h" || br=-
	x=$(size "$tmp/out/$name.xd3") z=$(size "$tmp/out/$name.zpf")
	b=$(size "$tmp/out/$name.dcb") d=$(size "$tmp/out/$name.dcz")
	best=$((b < d ? b : d))
	printf '%-7s %10d %10s %10d %10d %10d %10d %10d %12s %12s\n' "$name" "$(size "$p/v2")" "$br" "$x" "$z" "$b" "$d" "$best" "$(ratio "$best" "$x")" "$(ratio "$best" "$z")"
done
echo "(sizes in bytes; br is hdig serve's variant without a dictionary, - when not sent for the type; dcz checked with zstd -d -D)"
