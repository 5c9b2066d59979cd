#!/usr/bin/env bash
# bench/zsync.sh: `hdig get --zsync` side by side with Debian's zsync 0.6.2
# client, both rebuilding a new version from an old one with the same
# control file (made by Debian's zsyncmake), served on loopback by a stock
# nginx (ranges and multipart/byteranges, as on any static host; SERVER=hdig
# uses `hdig serve` instead):
#
#   (a) SIZE_MIB random bytes with 64 scattered 1 KiB edits
#   (b) the same with 1 MiB inserted near the start
#   (c) two versions of a source tarball: `git archive` of this repository
#       at C_OLD and C_NEW (default HEAD~30 and HEAD)
#
# For each: bytes received (hdig's --json transfer.received, zsync's
# "fetched"), median wall time, median CPU time (user + system) and peak
# RSS (/usr/bin/time -v) of RUNS runs, zsync and hdig alternating run by
# run so that load from elsewhere falls on both; then the ratios
# hdig/zsync. Last, what the RFC 3229 path costs on the same pair (see
# delta226): bytes received, wall and CPU time of the `hdig get` that
# got the 226, against zsync's.
#
# On a machine shared with other work, wall times are noise; the CPU ratio
# is steadier. It prints figures and asserts nothing.
#
# Usage: bench/zsync.sh                 (from anywhere inside the repository)
#        HDIG=/path/to/hdig SIZE_MIB=256 RUNS=5 bench/zsync.sh
# Needs root to install zsync, nginx and time with apt-get when missing.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-64}
RUNS=${RUNS:-3}
C_OLD=${C_OLD:-HEAD~30}
C_NEW=${C_NEW:-HEAD}
D226_TRIES=${D226_TRIES:-60}
D226_WAIT=${D226_WAIT:-2}
. "$(dirname "$0")/lib.sh"
need zsync zsync
SERVER=${SERVER:-nginx}
[ "$SERVER" = nginx ] && need nginx nginx
need python3 python3
[ -x /usr/bin/time ] || need time time
py=/usr/bin/python3
[ -x "$py" ] || py=python3

build_hdig

mkdir -p "$tmp/www" "$tmp/out" "$tmp/seeds"
chmod 755 "$tmp" # nginx workers run as another user
"$py" - "$tmp" "$SIZE_MIB" <<'PY'
import random, sys
tmp, mib = sys.argv[1], int(sys.argv[2])
rnd = random.Random(12)
old = bytearray()
for _ in range(mib):                     # randbytes takes at most 2^28 bytes
    old += rnd.randbytes(1 << 20)
new = bytearray(old)
step = len(new) // 64
for k in range(64):                      # 64 scattered 1 KiB edits
    p = k * step + rnd.randrange(step - 1024)
    new[p:p + 1024] = rnd.randbytes(1024)
open(f"{tmp}/seeds/a.bin", "wb").write(old)
open(f"{tmp}/seeds/b.bin", "wb").write(old)
open(f"{tmp}/www/a.bin", "wb").write(new)
ins = rnd.randbytes(1 << 20)             # (b): 1 MiB inserted at 4 KiB + 123
open(f"{tmp}/www/b.bin", "wb").write(new[:4219] + ins + new[4219:])
PY
git -C "$repo" archive --format=tar "$C_OLD" >"$tmp/seeds/c.tar"
git -C "$repo" archive --format=tar "$C_NEW" >"$tmp/www/c.tar"
cases="a.bin b.bin c.tar"
for f in $cases; do
	(cd "$tmp/www" && zsyncmake -u "$f" -o "$f.zsync" "$f" >"$tmp/zsyncmake.out" 2>&1)
done
chmod a+r "$tmp/www"/*

if [ "$SERVER" = nginx ]; then
	port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	nginx_conf "$tmp/nginx" "$tmp/www" "$port"
	nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" &
	server_pid=$!
	base="http://127.0.0.1:$port/"
	for _ in $(seq 100); do
		curl -sf -o "$tmp/probe" "${base}a.bin.zsync" 2>/dev/null && break
		sleep 0.05
	done
else
	"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
	server_pid=$!
	for _ in $(seq 100); do
		[ -s "$tmp/serve.out" ] && break
		sleep 0.05
	done
	base=$(head -1 "$tmp/serve.out" | sed 's/.* at //')
fi

# once NAME COMMAND...: runs COMMAND once in $tmp/out; appends its wall
# seconds, CPU seconds and peak RSS (KiB) to $tmp/NAME.{wall,cpu,rss};
# leaves its stdout in $tmp/stdout.
once() {
	local name=$1
	shift
	rm -rf "$tmp/out"/* "$tmp/out"/.[!.]* 2>/dev/null || true
	(cd "$tmp/out" && /usr/bin/time -v "$@" >"$tmp/stdout" 2>"$tmp/time.txt") || {
		echo "failed: $*" >&2
		cat "$tmp/stdout" "$tmp/time.txt" >&2
		exit 1
	}
	wall_of "$tmp/time.txt" >>"$tmp/$name.wall"
	cpu_of "$tmp/time.txt" >>"$tmp/$name.cpu"
	awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt" >>"$tmp/$name.rss"
}
# wall_of, cpu_of FILE: wall seconds, CPU (user + system) seconds in the
# output of /usr/bin/time -v.
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$1"; }
cpu_of() { awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$1"; }
median() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
peak_mib() { sort -n "$1" | tail -1 | awk '{printf "%.1f", $1 / 1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

# delta226 FILE: the RFC 3229 path on the same pair: `hdig serve` serving
# the old version, `hdig get` caching it, the file replaced, then `hdig
# get` with that cache again, into another file. The origin makes a large
# pair's delta in the background while the request that asked for it gets
# the whole file (200); so that get is repeated, each time with the cache
# as the first get left it (its entry links the first get's output, left
# untouched), until a 226 comes (at most D226_TRIES tries, D226_WAIT
# seconds apart). Prints the 226's bytes received, wall and CPU seconds
# and the tries it took, or "failed: ..." (the bench goes on).
delta226() {
	local f=$1 d="$tmp/d226" pid b try how=""
	rm -rf "$d" && mkdir -p "$d/www" "$d/get"
	cp "$tmp/seeds/$f" "$d/www/$f"
	"$tmp/hdig" serve "$d/www" --addr 127.0.0.1:0 >"$d/serve.out" 2>"$d/serve.err" &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$d/serve.out" ] && break
		sleep 0.05
	done
	b=$(head -1 "$d/serve.out" | sed 's/.* at //')
	if ! "$tmp/hdig" get --cache-dir "$d/cache" -o "$d/get/$f" "$b$f" 2>"$d/get1.err"; then
		kill "$pid" && wait "$pid" 2>/dev/null || true
		echo "failed: $(tail -1 "$d/get1.err")"
		return
	fi
	cp -a "$d/cache" "$d/cache.old"
	cp "$tmp/www/$f" "$d/www/.new" && mv "$d/www/.new" "$d/www/$f"
	for try in $(seq "$D226_TRIES"); do
		rm -rf "$d/cache" "$d/try" && cp -a "$d/cache.old" "$d/cache" && mkdir "$d/try"
		/usr/bin/time -v "$tmp/hdig" get --json --cache-dir "$d/cache" -o "$d/try/$f" "$b$f" >"$d/json" 2>"$d/time.txt" || break
		how=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["transfer"]["strategy"])' "$d/json")
		[ "$how" = delta ] && break
		sleep "$D226_WAIT"
	done
	kill "$pid" && wait "$pid" 2>/dev/null || true
	if [ "$how" != delta ] || ! cmp -s "$d/try/$f" "$tmp/www/$f"; then
		echo "failed: no 226 in $try tries (last: ${how:-error} $(head -1 "$d/time.txt" | tr '\n' ' '))"
		return
	fi
	echo "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["transfer"]["received"])' "$d/json") $(wall_of "$d/time.txt") $(cpu_of "$d/time.txt") $try"
}

echo "(a), (b): $SIZE_MIB MiB; (c): git archive $C_OLD -> $C_NEW; served by $SERVER on loopback; median of $RUNS alternating runs; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-4s %-6s %12s %9s %9s %10s\n' case client received wall cpu "peak RSS"
for f in $cases; do
	url="${base}$f.zsync"
	seed="$tmp/seeds/$f"
	rm -f "$tmp"/z.* "$tmp"/h.*
	for _ in $(seq "$RUNS"); do
		once z zsync -q -i "$seed" -o "$f" "$url"
		cmp -s "$tmp/out/$f" "$tmp/www/$f" || { echo "zsync rebuilt a different $f" >&2; exit 1; }
		once h "$tmp/hdig" get -s --json --no-cache --zsync --seed "$seed" -o "$f" "$url"
		cmp -s "$tmp/out/$f" "$tmp/www/$f" || { echo "hdig rebuilt a different $f" >&2; exit 1; }
	done
	h_recv=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["transfer"]["received"])' "$tmp/stdout")
	# zsync -q prints nothing: count the range bytes it asked for again
	# without -q, once (its "fetched N" line).
	(cd "$tmp/out" && rm -f "$f" && zsync -i "$seed" -o "$f" "$url" >"$tmp/zsync.txt" 2>&1)
	z_recv=$(grep -o 'fetched [0-9]*' "$tmp/zsync.txt" | awk '{print $2}' | tail -1)
	z_w=$(median "$tmp/z.wall") h_w=$(median "$tmp/h.wall")
	z_c=$(median "$tmp/z.cpu") h_c=$(median "$tmp/h.cpu")
	z_r=$(peak_mib "$tmp/z.rss") h_r=$(peak_mib "$tmp/h.rss")
	d226=$(delta226 "$f")
	label="(${f%%.*})"
	printf '%-4s %-6s %12s %8.2fs %8.2fs %6s MiB\n' "$label" zsync "$z_recv" "$z_w" "$z_c" "$z_r"
	printf '%-4s %-6s %12s %8.2fs %8.2fs %6s MiB\n' "$label" hdig "$h_recv" "$h_w" "$h_c" "$h_r"
	echo "$label hdig/zsync: received $(ratio "$h_recv" "$z_recv") (target <= 1.0), wall $(ratio "$h_w" "$z_w") (target <= 0.5), cpu $(ratio "$h_c" "$z_c"), hdig peak RSS $h_r MiB (target < 64)"
	case $d226 in
	failed*) printf '%-4s %-6s %s\n' "$label" 226 "$d226" ;;
	*)
		read -r d_recv d_w d_c d_tries <<<"$d226"
		printf '%-4s %-6s %12s %8.2fs %8.2fs   (hdig serve, hdig get with the old version cached; the 226 came on try %s)\n' "$label" 226 "$d_recv" "$d_w" "$d_c" "$d_tries"
		echo "$label 226/zsync: received $(ratio "$d_recv" "$z_recv"), wall $(ratio "$d_w" "$z_w"), cpu $(ratio "$d_c" "$z_c")"
		;;
	esac
done
