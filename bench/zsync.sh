#!/usr/bin/env bash
# bench/zsync.sh: `hdig get --zsync` side by side with Debian's zsync 0.6.2
# client, both rebuilding a new version from an old one with the same
# control file (made by Debian's zsyncmake), served on loopback by a stock
# nginx (ranges and multipart/byteranges, as on any static host; SERVER=hdig
# uses `hdig serve` instead):
#
#   (a) SIZE_MIB random bytes with 64 scattered 1 KiB edits
#   (b) the same with 1 MiB inserted near the start
#
# For each: bytes received (hdig's --json transfer.received, zsync's
# "fetched"), median wall time and peak RSS (/usr/bin/time -v) of RUNS runs,
# then the ratios hdig/zsync. It prints figures and asserts nothing.
#
# Usage: bench/zsync.sh                 (from anywhere inside the repository)
#        HDIG=/path/to/hdig SIZE_MIB=256 RUNS=3 bench/zsync.sh
# Needs root to install zsync and time with apt-get when they are missing.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-64}
RUNS=${RUNS:-3}
. "$(dirname "$0")/lib.sh"
need zsync zsync
SERVER=${SERVER:-nginx}
[ "$SERVER" = nginx ] && need nginx nginx
need python3 python3
[ -x /usr/bin/time ] || need time time

build_hdig

mkdir -p "$tmp/www" "$tmp/out"
chmod 755 "$tmp" # nginx workers run as another user
python3 - "$tmp" "$SIZE_MIB" <<'PY'
import random, sys
tmp, mib = sys.argv[1], int(sys.argv[2])
rnd = random.Random(12)
old = bytearray(rnd.randbytes(mib << 20))
new = bytearray(old)
step = len(new) // 64
for k in range(64):                      # 64 scattered 1 KiB edits
    p = k * step + rnd.randrange(step - 1024)
    new[p:p + 1024] = rnd.randbytes(1024)
open(f"{tmp}/old.bin", "wb").write(old)
open(f"{tmp}/www/a.bin", "wb").write(new)
ins = rnd.randbytes(1 << 20)             # (b): 1 MiB inserted at 4 KiB + 123
open(f"{tmp}/www/b.bin", "wb").write(new[:4219] + ins + new[4219:])
PY
for f in a b; do
	(cd "$tmp/www" && zsyncmake -u "$f.bin" -o "$f.bin.zsync" "$f.bin" >/dev/null 2>&1)
done

if [ "$SERVER" = nginx ]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$tmp/nginx/logs"
	cat >"$tmp/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $tmp/nginx;
	proxy_temp_path $tmp/nginx;
	fastcgi_temp_path $tmp/nginx;
	uwsgi_temp_path $tmp/nginx;
	scgi_temp_path $tmp/nginx;
	server { listen 127.0.0.1:$port; root $tmp/www; }
}
CONF
	nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" &
	server_pid=$!
	base="http://127.0.0.1:$port/"
	for _ in $(seq 100); do
		curl -sf -o /dev/null "${base}a.bin.zsync" 2>/dev/null && break
		sleep 0.05
	done
else
	"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 >"$tmp/serve.out" 2>/dev/null &
	server_pid=$!
	for _ in $(seq 100); do
		[ -s "$tmp/serve.out" ] && break
		sleep 0.05
	done
	base=$(head -1 "$tmp/serve.out" | sed 's/.* at //')
fi

# measure COMMAND...: runs COMMAND RUNS times in $tmp/out; sets $secs (the
# median wall seconds), $rss (peak RSS, MiB) and leaves the last run's
# stdout in $tmp/stdout, its stderr (time's report last) in $tmp/time.txt.
measure() {
	local times=() peak=0
	for _ in $(seq "$RUNS"); do
		rm -rf "$tmp/out"/* "$tmp/out"/.[!.]* 2>/dev/null || true
		(cd "$tmp/out" && /usr/bin/time -v "$@" >"$tmp/stdout" 2>"$tmp/time.txt") || {
			echo "failed: $*" >&2
			cat "$tmp/stdout" "$tmp/time.txt" >&2
			exit 1
		}
		times+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$tmp/time.txt")")
		local kb
		kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
		[ "$kb" -gt "$peak" ] && peak=$kb
	done
	secs=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	rss=$(awk -v kb="$peak" 'BEGIN {printf "%.1f", kb / 1024}')
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

echo "$SIZE_MIB MiB, seed = the old version, served by $SERVER on loopback, median of $RUNS runs, $(nproc) CPUs"
printf '%-4s %-6s %12s %9s %10s\n' case client received wall "peak RSS"
for f in a b; do
	url="${base}$f.bin.zsync"
	measure zsync -q -i "$tmp/old.bin" -o new.bin "$url"
	# zsync -q prints nothing: count the range bytes it asked for again
	# without -q, once (its "fetched N" line).
	z_s=$secs z_rss=$rss
	(cd "$tmp/out" && rm -f new.bin && zsync -i "$tmp/old.bin" -o new.bin "$url" >"$tmp/zsync.txt" 2>&1)
	z_recv=$(grep -o 'fetched [0-9]*' "$tmp/zsync.txt" | awk '{print $2}' | tail -1)
	cmp -s "$tmp/out/new.bin" "$tmp/www/$f.bin" || { echo "zsync rebuilt a different file" >&2; exit 1; }
	measure "$tmp/hdig" get -s --json --no-cache --zsync --seed "$tmp/old.bin" -o new.bin "$url"
	h_s=$secs h_rss=$rss
	h_recv=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transfer"]["received"])' "$tmp/stdout")
	cmp -s "$tmp/out/new.bin" "$tmp/www/$f.bin" || { echo "hdig rebuilt a different file" >&2; exit 1; }
	printf '%-4s %-6s %12s %8.2fs %7s MiB\n' "($f)" zsync "$z_recv" "$z_s" "$z_rss"
	printf '%-4s %-6s %12s %8.2fs %7s MiB\n' "($f)" hdig "$h_recv" "$h_s" "$h_rss"
	echo "($f) hdig/zsync: received $(ratio "$h_recv" "$z_recv") (target <= 1.0), wall $(ratio "$h_s" "$z_s") (target <= 0.5), peak RSS $(ratio "$h_rss" "$z_rss") (target: hdig < 64 MiB)"
done
