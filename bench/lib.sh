# bench/lib.sh: what the side-by-side benchmarks share; sourced, not run.
# Sets repo and tmp (removed on exit, with the server of server_pid),
# and provides need and build_hdig.

repo=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
tmp=$(mktemp -d)
server_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

need() { # need COMMAND PACKAGE: install PACKAGE with apt-get when COMMAND is missing
	if ! command -v "$1" >/dev/null 2>&1 && [ ! -x "/usr/bin/$1" ]; then
		echo "installing $2" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
	fi
}

build_hdig() { # $tmp/hdig: a copy of $HDIG, else built from the repository
	if [ -n "${HDIG:-}" ]; then
		cp "$HDIG" "$tmp/hdig"
	else
		echo "building hdig" >&2
		(cd "$repo" && CGO_ENABLED=0 go build -o "$tmp/hdig" .) # as shipped: make build
	fi
}

nginx_conf() { # nginx_conf PREFIX ROOT PORT [DIRECTIVES]: PREFIX/nginx.conf, a foreground nginx serving ROOT on 127.0.0.1:PORT without logs
	mkdir -p "$1/logs"
	cat >"$1/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $1/nginx.pid;
error_log $1/logs/error.log;
events { worker_connections 64; }
http {
	access_log off;
	${4:-}
	client_body_temp_path $1;
	proxy_temp_path $1;
	fastcgi_temp_path $1;
	uwsgi_temp_path $1;
	scgi_temp_path $1;
	server { listen 127.0.0.1:$3; root $2; }
}
CONF
}

serve_hdig() { # serve_hdig HDIG DIR [ARGS...]: HDIG serve DIR on loopback (any port) with ARGS, in the background; sets server_pid and served (http://HOST:PORT); exits if it does not start
	local bin=$1 dir=$2
	shift 2
	"$bin" serve "$dir" --addr 127.0.0.1:0 "$@" >"$tmp/serve.out" 2>"$tmp/serve.err" &
	server_pid=$!
	for _ in $(seq 1 100); do
		grep -q '^serving' "$tmp/serve.out" 2>/dev/null && break
		sleep 0.1
	done
	served=$(sed -n 's/^serving .* at \(.*\)\/$/\1/p' "$tmp/serve.out")
	[ -n "$served" ] || { echo "$(basename "$0"): hdig serve did not start" >&2; cat "$tmp/serve.err" >&2; exit 1; }
}
