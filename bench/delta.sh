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
#    Then end to end: what hdig serve sends a client (curl) holding the
#    old version, when the new one is served (A-IM: hdig-vcdiff-inflated,
#    vcdiff, zstd, br): for a base alone (226), for
#    a dictionary alone (dcb, dcz), and for everything offered ("wire",
#    the origin's pick, which the wire ratios are of). The origin makes
#    large deltas and codings in the background: each is asked for until
#    it comes, at most ORIGIN_WAIT (600) seconds. DELTA_SIZES=" " skips 1.
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
# decodes BASE DELTA TARGET [CODING]: xdelta3 -d rebuilds TARGET from
# hdig's DELTA; an hdig-vcdiff-inflated delta (VCDIFF between expanded
# forms) is rebuilt by hdig patch.
decodes() {
	if [ "${4:-vcdiff}" = hdig-vcdiff-inflated ]; then
		"$hdig" patch --format hdig-vcdiff-inflated "$1" "$2" -o "$tmp/rebuilt"
	else
		xdelta3 -d -f -s "$1" "$2" "$tmp/rebuilt"
	fi
	cmp -s "$3" "$tmp/rebuilt" || { echo "delta.sh: decoding $2 differs from $3" >&2; exit 1; }
	rm -f "$tmp/rebuilt"
}

# aim is the A-IM of the origin's clients: hdig-vcdiff-inflated (only hdig
# decodes it) where a version holds zlib streams, else VCDIFF, each
# compressed by zstd or br when smaller.
aim="hdig-vcdiff-inflated, vcdiff, zstd, br"

# start_origin: hdig serve on $tmp/www, /w/* offered as dictionaries, its
# state (history, variants) in $tmp/state; sets origin (http://HOST:PORT).
start_origin() {
	mkdir -p "$tmp/www/w" "$tmp/state"
	serve_hdig "$hdig" "$tmp/www" --state-dir "$tmp/state" --dictionary '/w/*'
	origin=$served
}

# ask OUT FIELD...: GET $url with the fields; the body goes to OUT; sets
# got to "STATUS CODING" (- for none): a 226's compression after its delta
# coding (IM: vcdiff, zstd), else the Content-Encoding; and coding to a
# 226's delta coding.
ask() {
	local out=$1 f args=()
	shift
	for f in "$@"; do args+=(-H "$f"); done
	curl -s -o "$out" -D "$tmp/hdr" "${args[@]}" "$url"
	got=$(tr -d '\r' <"$tmp/hdr" | awk 'NR == 1 {s = $2} tolower($1) == "content-encoding:" {c = $2} tolower($1) == "im:" {i = $3}
		END {if (s == 226) c = i; print s, (c == "" ? "-" : c)}')
	coding=$(tr -d '\r' <"$tmp/hdr" | awk 'tolower($1) == "im:" {sub(",", "", $2); print $2}')
}

# await WANT OUT FIELD...: asks until got matches the regular expression
# WANT (the origin makes large deltas and dictionary codings in the
# background: until then it sends 200), at most ORIGIN_WAIT (600) seconds;
# reports whether it did.
await() {
	local want=$1 i
	shift
	for i in $(seq 1 "${ORIGIN_WAIT:-600}"); do
		ask "$@"
		[[ $got =~ $want ]] && return 0
		sleep 1
	done
	return 1
}

# origin_sends PAIR OLD NEW: serves OLD as /w/PAIR, fetches it, replaces it
# with NEW and sets o226, odcb, odcz (bytes sent for each offer alone, -
# for none) and sent and how (bytes and what was sent when everything is
# offered). 226 and dcz bodies are decoded and compared with NEW.
origin_sends() {
	local p=$1 old=$2 new=$3 e1 avail
	url=$origin/w/$p
	cp "$old" "$tmp/www/w/.$p" && mv "$tmp/www/w/.$p" "$tmp/www/w/$p"
	ask "$tmp/ov1" "Accept-Encoding: identity"
	e1=$(tr -d '\r' <"$tmp/hdr" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
	cmp -s "$tmp/ov1" "$old" || { echo "delta.sh: $p: the origin did not send the old version" >&2; exit 1; }
	cp "$new" "$tmp/www/w/.$p" && mv "$tmp/www/w/.$p" "$tmp/www/w/$p"
	avail="Available-Dictionary: :$(openssl dgst -sha256 -binary "$old" | base64 -w0):"
	o226=- odcb=- odcz=-
	local delta=("A-IM: $aim" "If-None-Match: $e1")
	if await '^226' "$tmp/o226" "${delta[@]}"; then
		# A delta over 32 KiB is coded in the background: until then it goes as it is.
		[ "$(stat -c %s "$tmp/o226")" -le $((32 << 10)) ] || await '^226 (zstd|br)' "$tmp/o226" "${delta[@]}" || true
		o226=$(stat -c %s "$tmp/o226")
		case $got in
		*zstd) zstd -q -d -f "$tmp/o226" -o "$tmp/o226.vcdiff" && decodes "$old" "$tmp/o226.vcdiff" "$new" "$coding" && o226=${o226}z ;;
		*br) o226=${o226}b ;;
		*) decodes "$old" "$tmp/o226" "$new" "$coding" ;;
		esac
		[ "$coding" = hdig-vcdiff-inflated ] && o226=${o226}i
	fi
	if [ "$(stat -c %s "$new")" -le $((32 << 20)) ]; then # server.DefaultCompressLimit: no coding above
		await '^200 dcb' "$tmp/odcb" "$avail" "Accept-Encoding: dcb" && odcb=$(stat -c %s "$tmp/odcb")
		if await '^200 dcz' "$tmp/odcz" "$avail" "Accept-Encoding: dcz"; then
			odcz=$(stat -c %s "$tmp/odcz")
			tail -c +41 "$tmp/odcz" | zstd -q -d -D "$old" -o "$tmp/odcz.out"
			cmp -s "$tmp/odcz.out" "$new" || { echo "delta.sh: $p: the dcz body does not decode to the new version" >&2; exit 1; }
		fi
	fi
	ask "$tmp/oall" "A-IM: $aim" "If-None-Match: $e1" "$avail" "Accept-Encoding: zstd, br, dcb, dcz"
	sent=$(stat -c %s "$tmp/oall") how=${got/ /:}
	rm -f "$tmp"/o226* "$tmp"/odc* "$tmp/oall" "$tmp/ov1" "$tmp/www/w/$p"
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
start_origin
printf '%-9s %11s %11s %11s %11s %11s %11s %11s %11s %11s %11s %-9s %9s %9s %9s\n' pair xd3-9 zstd-pf hdig-l0 hdig-l6 hdig-l9 "l9+zstd" \
	"226" dcb dcz wire sent "l9/xd3" "wire/xd3" "wire/zpf"
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
	origin_sends "$p" "$o" "$n"
	wire=$sent
	printf '%-9s %11d %11d %11d %11d %11d %11d %11s %11s %11s %11d %-9s %9s %9s %9s\n' "$p" "$xs" "$zs" "${sz[0]}" "${sz[1]}" "${sz[2]}" "$wz" \
		"$o226" "$odcb" "$odcz" "$wire" "$how" "$(ratio "${sz[2]}" "$xs")" "$(ratio "$wire" "$xs")" "$(ratio "$wire" "$zs")"
done <"$pairs/pairs"
echo "(226, dcb, dcz: body bytes hdig serve sends a client holding the old version that offers only that (the 226"
echo " in its smallest coding of zstd and br: suffix z or b; i: hdig-vcdiff-inflated), - when it sends none; wire: the bytes it sends when"
echo " offered everything (A-IM: $aim, If-None-Match, Available-Dictionary, Accept-Encoding: zstd, br,"
echo " dcb, dcz), and"
echo " sent: its status and Content-Encoding; all fetched with curl)"
