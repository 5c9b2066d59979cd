# bench/deltapairs.sh: the real-data pairs of bench/delta.sh; sourced, not run.
# make_pairs DIR writes DIR/NAME.old and DIR/NAME.new for each pair it can
# make (a pair whose inputs are unavailable is skipped with a note) and
# lists the names in DIR/pairs.

# modcat MODULE@VERSION OUT: the module's .go files (sorted by path) in one file.
modcat() {
	local dir
	dir=$(cd "$tmp" && go mod download -json "$1" 2>/dev/null | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] && [ -d "$dir" ] || return 1
	(cd "$dir" && find . -name '*.go' -type f | LC_ALL=C sort | xargs cat) >"$2"
}

# modtar MODULE@VERSION OUT: all the module's files as a tar (names sorted).
modtar() {
	local dir
	dir=$(cd "$tmp" && go mod download -json "$1" 2>/dev/null | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] && [ -d "$dir" ] || return 1
	tar -C "$dir" --sort=name --mtime=@0 --owner=0 --group=0 -cf "$2" .
}

# hdigbin COMMIT OUT: the hdig binary built from COMMIT of this repository.
hdigbin() {
	local src="$tmp/src-$1"
	mkdir -p "$src"
	git -C "$repo" archive "$1" | tar -x -C "$src" && (cd "$src" && go build -trimpath -o "$2" .)
}

# gotree OLD NEW: a tar of $GOROOT/src, and the same with 50 files edited.
gotree() {
	local root
	root=$(go env GOROOT)/src
	tar -C "$root" --sort=name --mtime=@0 --owner=0 --group=0 -cf "$1" .
	local ed="$tmp/gotree-edit"
	rm -rf "$ed" && mkdir -p "$ed" && tar -C "$ed" -xf "$1"
	find "$ed" -name '*.go' -type f | LC_ALL=C sort | awk 'NR % 97 == 0' | head -n 50 |
		while read -r f; do
			sed -i -e '0,/func /s//func  /' -e '$a\
// edited for bench/delta.sh' "$f"
		done
	tar -C "$ed" --sort=name --mtime=@0 --owner=0 --group=0 -cf "$2" .
	rm -rf "$ed"
}

make_pairs() {
	local d=$1
	: >"$d/pairs"
	if modcat golang.org/x/sys@v0.41.0 "$d/xsys.old" && modcat golang.org/x/sys@v0.42.0 "$d/xsys.new"; then
		echo xsys >>"$d/pairs"
	else echo "deltapairs: golang.org/x/sys not available, skipped" >&2; fi
	if modcat github.com/klauspost/compress@v1.19.2 "$d/compress.old" && modcat github.com/klauspost/compress@v1.20.3 "$d/compress.new"; then
		echo compress >>"$d/pairs"
	else echo "deltapairs: klauspost/compress not available, skipped" >&2; fi
	if hdigbin "${DELTA_OLD_COMMIT:-HEAD~20}" "$d/hdigbin.old" && hdigbin "${DELTA_NEW_COMMIT:-HEAD}" "$d/hdigbin.new"; then
		echo hdigbin >>"$d/pairs"
	else echo "deltapairs: hdig binaries not built, skipped" >&2; fi
	gotree "$d/gotree.old" "$d/gotree.new" && echo gotree >>"$d/pairs"
}
