#!/usr/bin/env bash
# bench/serve.sh: throughput of `hdig serve` against nginx serving the same
# 256 MiB file to curl over loopback, 3 runs each, once hdig's digests are
# cached (the first GET of a file computes its sha-256 for ETag and
# Repr-Digest; later GETs use sendfile like nginx).
#
# Usage: bench/serve.sh            (run from anywhere inside the repository)
#        HDIG=/path/to/hdig bench/serve.sh   (use a prebuilt binary)
#        SIZE_MIB=1024 RUNS=5 bench/serve.sh
# Needs root to install nginx with apt-get when it is missing.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-256}
RUNS=${RUNS:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
hdig_pid=""
cleanup() {
	[ -n "$hdig_pid" ] && kill "$hdig_pid" 2>/dev/null && wait "$hdig_pid" 2>/dev/null
	[ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
	sleep 0.2
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
	echo "installing nginx" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [ -n "${HDIG:-}" ]; then
	cp "$HDIG" "$tmp/hdig"
else
	echo "building hdig" >&2
	(cd "$repo" && go build -o "$tmp/hdig" .)
fi

mkdir -p "$tmp/www"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$tmp/www/big.bin"

# nginx: loopback only, sendfile, no access log, everything under $tmp.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$tmp/nginx.conf" <<CONF
user root;
worker_processes auto;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 64; }
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
nginx_url="http://127.0.0.1:$port/big.bin"

"$tmp/hdig" serve "$tmp/www" --addr 127.0.0.1:0 >"$tmp/hdig.out" 2>"$tmp/hdig.err" &
hdig_pid=$!
for _ in $(seq 50); do
	[ -s "$tmp/hdig.out" ] && break
	sleep 0.1
done
hdig_url="$(sed -n '1s/^serving .* at \(http:\/\/[^ ]*\)$/\1/p' "$tmp/hdig.out")big.bin"

# Warm up: page cache for both, digest cache for hdig.
t0=$(date +%s.%N)
curl -fsS -o /dev/null "$hdig_url"
t1=$(date +%s.%N)
curl -fsS -o /dev/null "$nginx_url"
echo "first hdig GET (hashing included): $(echo "$t1 - $t0" | bc) s" >&2

speed() { # URL → MB/s of one GET
	curl -fsS -o /dev/null -w '%{speed_download}\n' "$1" | awk '{ printf "%.1f\n", $1 / 1e6 }'
}
# Alternate the servers run by run, so that load from elsewhere on the
# machine hits both alike.
nginx_runs="" hdig_runs=""
for _ in $(seq "$RUNS"); do
	nginx_runs="$nginx_runs $(speed "$nginx_url")"
	hdig_runs="$hdig_runs $(speed "$hdig_url")"
done
mean() { tr ' ' '\n' | awk 'NF { s += $1; n++ } END { printf "%.1f", s / n }'; }
nginx_mean=$(echo "$nginx_runs" | mean)
hdig_mean=$(echo "$hdig_runs" | mean)

echo "file: ${SIZE_MIB} MiB, $RUNS runs each, curl over loopback"
echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///'):$nginx_runs MB/s (mean $nginx_mean)"
echo "hdig serve:  $hdig_runs MB/s (mean $hdig_mean)"
echo "ratio hdig/nginx: $(awk -v a="$hdig_mean" -v b="$nginx_mean" 'BEGIN { printf "%.2f", a / b }')"
