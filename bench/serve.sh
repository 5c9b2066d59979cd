#!/usr/bin/env bash
# bench/serve.sh: `hdig serve` against nginx on loopback, side by side:
#   - small files: wrk -c50 requests/s for a 1 KiB and a 100 KiB file;
#   - a large file: curl MB/s for a 256 MiB file, once hdig's digests are
#     cached (the first GET of a file computes its sha-256 for ETag and
#     Repr-Digest; later GETs use sendfile like nginx);
#   - time to first byte (curl's time_starttransfer) of a 1 GiB file
#     (TTFB_MIB): indexed (by the background indexer, then again after a
#     restart with the same --state-dir), and not indexed yet, with
#     `TE: trailers` (streamed, digests as trailers) and without (hashed
#     first), against nginx;
#   - indexing's cost to other requests: 1 KiB requests/s of a server whose
#     background indexer is hashing a large tree not indexed yet
#     (INDEX_MIB, in 4 files; a fresh state directory every run) against
#     the same server and tree once indexed (idle), alternating.
# The servers alternate run by run, so that load from elsewhere on the
# machine hits both alike; the median of the runs is compared. nginx runs
# without an access log; hdig logs every request (buffered) to a file.
#
# Usage: bench/serve.sh            (run from anywhere inside the repository)
#        HDIG=/path/to/hdig bench/serve.sh   (use a prebuilt binary)
#        SIZE_MIB=1024 RUNS=5 DURATION=5s CONNS=50 TTFB_MIB=1024 bench/serve.sh
#        TTFB_MIB=0 bench/serve.sh   (skip the time-to-first-byte part)
#        INDEX_MIB=0 bench/serve.sh  (skip the indexing part)
#        COMPARE=0 bench/serve.sh    (skip the side-by-side with nginx)
# Needs root to install nginx-light and wrk with apt-get when missing.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-256}
TTFB_MIB=${TTFB_MIB:-1024}
INDEX_MIB=${INDEX_MIB:-4096}
COMPARE=${COMPARE:-1}
RUNS=${RUNS:-5}
DURATION=${DURATION:-4s}
CONNS=${CONNS:-50}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
hdig_pid=""
cleanup() {
	[ -n "$hdig_pid" ] && kill "$hdig_pid" 2>/dev/null && wait "$hdig_pid" 2>/dev/null
	[ -n "${ttfb_pid:-}" ] && kill "$ttfb_pid" 2>/dev/null && wait "$ttfb_pid" 2>/dev/null
	[ -n "${idx_pid:-}" ] && kill "$idx_pid" 2>/dev/null && wait "$idx_pid" 2>/dev/null
	[ -n "${idle_pid:-}" ] && kill "$idle_pid" 2>/dev/null && wait "$idle_pid" 2>/dev/null
	[ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
	sleep 0.2
	rm -rf "$tmp"
}
trap cleanup EXIT

serve_base() { # serve_base OUT: waits (up to 5 s) for `hdig serve`'s first line in OUT; prints its URL
	for _ in $(seq 50); do
		[ -s "$1" ] && break
		sleep 0.1
	done
	sed -n '1s/^serving .* at \(http:\/\/[^ ]*\)$/\1/p' "$1"
}

need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [ -n "${HDIG:-}" ]; then
	cp "$HDIG" "$tmp/hdig"
else
	echo "building hdig" >&2
	(cd "$repo" && go build -o "$tmp/hdig" .)
fi

mkdir -p "$tmp/www"
chmod 755 "$tmp/www"
head -c 1024 /dev/urandom >"$tmp/www/1k.bin"
head -c $((100 << 10)) /dev/urandom >"$tmp/www/100k.bin"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$tmp/www/big.bin"
chmod a+r "$tmp/www"/*
# Past hdig's settle window (2 s) before its first GET: digests hashed from
# a file changed less than 2 s before are not trusted by its ID, and a GET
# within the window hashes the bytes it sends instead of using sendfile
# (strace: reads and writes, no sendfile), so that short runs (small RUNS,
# DURATION) of the large file would measure hashing, not sending.
sleep 2.5

# nginx: loopback only, sendfile, no access log, everything under $tmp.
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$tmp/nginx.conf" <<CONF
user root;
worker_processes auto;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	client_body_temp_path $tmp/client_body;
	proxy_temp_path $tmp/proxy;
	fastcgi_temp_path $tmp/fastcgi;
	uwsgi_temp_path $tmp/uwsgi;
	scgi_temp_path $tmp/scgi;
	types { application/octet-stream bin; }
	server {
		listen 127.0.0.1:$port;
		root $tmp/www;
	}
}
CONF
"$NGINX" -c "$tmp/nginx.conf" -p "$tmp"
nginx_base="http://127.0.0.1:$port/"

"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 >"$tmp/hdig.out" 2>"$tmp/hdig.err" &
hdig_pid=$!
for _ in $(seq 50); do
	[ -s "$tmp/hdig.out" ] && break
	sleep 0.1
done
hdig_base="$(sed -n '1s/^serving .* at \(http:\/\/[^ ]*\)$/\1/p' "$tmp/hdig.out")"

# Warm up: page cache for both, digest cache for hdig.
t0=$(date +%s.%N)
curl -fsS -o /dev/null "${hdig_base}big.bin"
t1=$(date +%s.%N)
echo "first hdig GET of big.bin (hashing included): $(echo "$t1 - $t0" | bc) s" >&2
for f in 1k.bin 100k.bin big.bin; do
	curl -fsS -o /dev/null "${nginx_base}$f"
	curl -fsS -o /dev/null "${hdig_base}$f"
done

# CPU time of the server processes, in clock ticks: a second figure that a
# busy machine disturbs less than requests/s.
tick=$(getconf CLK_TCK)
cputicks() { # PID... → utime+stime
	local t=0 p
	for p in "$@"; do t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done
	echo "$t"
}
server_pids() { # URL → the PIDs serving it
	case "$1" in
	"$hdig_base"*) echo "$hdig_pid" ;;
	"${idx_base:-none}"*) echo "$idx_pid" ;;
	"${idle_base:-none}"*) echo "$idle_pid" ;;
	*) pgrep -P "$(cat "$tmp/nginx.pid")" | tr '\n' ' ' ;;
	esac
}
cpu_log="$tmp/cpu.log"
rps() { # URL → requests/s of one wrk run; logs URL and server CPU µs per request
	local pids c0 c1 out
	pids=$(server_pids "$1")
	c0=$(cputicks $pids)
	out=$(wrk -t"$((CONNS < 2 ? CONNS : 2))" -c"$CONNS" -d"$DURATION" "$1")
	c1=$(cputicks $pids)
	echo "$out" | awk -v u="$1" -v c=$((c1 - c0)) -v t="$tick" '/requests in/ { printf "%s %.1f\n", u, c / t / $1 * 1e6 }' >>"$cpu_log"
	echo "$out" | awk '/^Requests\/sec/ { printf "%.0f\n", $2 }'
}
# The server's threads' CPU time in ns (schedstat) and context switches
# (voluntary + involuntary): finer than clock ticks for one large GET.
sched() { # PID... → "ns switches"
	local p
	for p in "$@"; do
		cat /proc/"$p"/task/*/schedstat | awk '{ ns += $1 } END { printf "%.0f ", ns }'
		cat /proc/"$p"/task/*/status | awk '/ctxt_switches/ { n += $2 } END { printf "%.0f\n", n }'
	done | awk '{ ns += $1; n += $2 } END { printf "%.0f %.0f\n", ns, n }'
}
mbps() { # URL → MB/s of one curl GET; logs URL, server CPU ms and context switches per GiB
	local pids s0 s1 out
	pids=$(server_pids "$1")
	s0=$(sched $pids)
	out=$(curl -fsS -o /dev/null -w '%{speed_download} %{size_download}\n' "$1")
	s1=$(sched $pids)
	echo "$s0 $s1 $out" | awk -v u="$1" '{ g = $6 / 2^30; printf "%s %.1f %.0f\n", u, ($3 - $1) / 1e6 / g, ($4 - $2) / g }' >>"$cpu_log"
	echo "$out" | awk '{ printf "%.1f\n", $1 / 1e6 }'
}
median() { tr ' ' '\n' | awk 'NF' | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

compare() { # label unit measure file
	local label=$1 unit=$2 measure=$3 file=$4 n="" h=""
	for _ in $(seq "$RUNS"); do
		n="$n $($measure "${nginx_base}$file")"
		h="$h $($measure "${hdig_base}$file")"
	done
	local nm hm
	nm=$(echo "$n" | median)
	hm=$(echo "$h" | median)
	printf '%-9s nginx:%s %s (median %s)\n' "$label" "$n" "$unit" "$nm"
	printf '%-9s hdig: %s %s (median %s)\n' "$label" "$h" "$unit" "$hm"
	printf '%-9s ratio hdig/nginx: %s\n' "$label" "$(ratio "$hm" "$nm")"
	if [ "$measure" = rps ]; then
		local nc hc
		nc=$(awk -v u="${nginx_base}$file" '$1 == u { print $2 }' "$cpu_log" | tr '\n' ' ' | median)
		hc=$(awk -v u="${hdig_base}$file" '$1 == u { print $2 }' "$cpu_log" | tr '\n' ' ' | median)
		printf '%-9s server CPU per request: nginx %s µs, hdig %s µs (ratio nginx/hdig %s)\n' "$label" "$nc" "$hc" "$(ratio "$nc" "$hc")"
	fi
	if [ "$measure" = mbps ]; then
		local nc hc ns hs
		nc=$(awk -v u="${nginx_base}$file" '$1 == u { print $2 }' "$cpu_log" | tr '\n' ' ' | median)
		hc=$(awk -v u="${hdig_base}$file" '$1 == u { print $2 }' "$cpu_log" | tr '\n' ' ' | median)
		ns=$(awk -v u="${nginx_base}$file" '$1 == u { print $3 }' "$cpu_log" | tr '\n' ' ' | median)
		hs=$(awk -v u="${hdig_base}$file" '$1 == u { print $3 }' "$cpu_log" | tr '\n' ' ' | median)
		printf '%-9s server CPU per GiB: nginx %s ms, hdig %s ms (ratio nginx/hdig %s); context switches per GiB: nginx %s, hdig %s\n' \
			"$label" "$nc" "$hc" "$(ratio "$nc" "$hc")" "$ns" "$hs"
	fi
}

echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///'), $RUNS runs each, loopback, $(nproc) cores"
if [ "$COMPARE" != 0 ]; then
	compare "1 KiB" "req/s" rps 1k.bin
	compare "100 KiB" "req/s" rps 100k.bin
	compare "${SIZE_MIB} MiB" "MB/s" mbps big.bin
fi

if [ "$INDEX_MIB" -gt 0 ]; then
	. "$repo/bench/serve_index.sh"
fi

[ "$TTFB_MIB" -gt 0 ] || exit 0

# Time to first byte. hdig serves its own directory, with a state directory;
# nginx serves a hard link of the indexed file. zz-*.bin come last in the
# indexer's walk, so they are asked for before it reaches them.
kill "$hdig_pid" && wait "$hdig_pid" 2>/dev/null || true
hdig_pid=""
mkdir -p "$tmp/ttfb" "$tmp/state"
chmod 755 "$tmp/ttfb"
head -c $((TTFB_MIB << 20)) /dev/urandom >"$tmp/ttfb/aa-indexed.bin"
cp "$tmp/ttfb/aa-indexed.bin" "$tmp/ttfb/zy-unindexed.bin"
cp "$tmp/ttfb/aa-indexed.bin" "$tmp/ttfb/zz-unindexed.bin"
ln "$tmp/ttfb/aa-indexed.bin" "$tmp/www/aa-indexed.bin"
chmod a+r "$tmp/ttfb"/*
sleep 2.5 # past hdig's settle window: the files' digests can be trusted by their ID
ttfb() { # URL [curl args] → seconds to the first byte
	local u=$1
	shift
	curl -fsS -o /dev/null -w '%{time_starttransfer}\n' "$@" "$u"
}
start_ttfb() {
	: >"$tmp/ttfb.out"
	"$tmp/hdig" serve "$tmp/ttfb" --addr 127.0.0.1:0 --state-dir "$tmp/state" >"$tmp/ttfb.out" 2>"$tmp/ttfb.err" &
	ttfb_pid=$!
	ttfb_base="$(serve_base "$tmp/ttfb.out")"
}
start_ttfb
u_te=$(ttfb "${ttfb_base}zz-unindexed.bin" -H 'TE: trailers')
u_plain=$(ttfb "${ttfb_base}zy-unindexed.bin")
for _ in $(seq 600); do # the indexer has aa-indexed.bin (its line in STATE/digests)
	grep -q '"aa-indexed.bin"' "$tmp/state/digests" 2>/dev/null && break
	sleep 0.1
done
n="" h=""
for _ in $(seq "$RUNS"); do
	n="$n $(ttfb "${nginx_base}aa-indexed.bin")"
	h="$h $(ttfb "${ttfb_base}aa-indexed.bin")"
done
kill "$ttfb_pid" && wait "$ttfb_pid" 2>/dev/null || true
start_ttfb
r=$(ttfb "${ttfb_base}aa-indexed.bin")
kill "$ttfb_pid" && wait "$ttfb_pid" 2>/dev/null || true
ttfb_pid=""
ms() { awk -v s="$1" 'BEGIN { printf "%.1f ms", s * 1000 }'; }
nm=$(echo "$n" | median)
hm=$(echo "$h" | median)
printf 'TTFB %s MiB, nginx:                              %s (median of %s)\n' "$TTFB_MIB" "$(ms "$nm")" "$RUNS"
printf 'TTFB %s MiB, hdig indexed:                       %s (median of %s; ratio hdig/nginx %s)\n' "$TTFB_MIB" "$(ms "$hm")" "$RUNS" "$(ratio "$hm" "$nm")"
printf 'TTFB %s MiB, hdig indexed, first GET after restart: %s\n' "$TTFB_MIB" "$(ms "$r")"
printf 'TTFB %s MiB, hdig not indexed, TE: trailers:     %s (digests as trailers)\n' "$TTFB_MIB" "$(ms "$u_te")"
printf 'TTFB %s MiB, hdig not indexed, no TE:            %s (hashed first)\n' "$TTFB_MIB" "$(ms "$u_plain")"
