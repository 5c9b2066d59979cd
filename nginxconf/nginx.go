package nginxconf

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// stateMark starts the comment line that records an entry for the next run.
const stateMark = "# hdig-index "

// Refuse says why uri cannot be a key of the map ("" when it can): nginx
// reads the include as bytes in quotes, so control characters (a line
// break would end the token's line, a tab is rewritten) and bytes that are
// not UTF-8 are refused rather than guessed at.
func Refuse(uri string) string {
	if !utf8.ValidString(uri) {
		return fmt.Sprintf("name %q is not UTF-8", uri)
	}
	for _, r := range uri {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("name %q has a control character", uri)
		}
	}
	return ""
}

// quote returns s as an nginx quoted string: inside double quotes only
// backslash and double quote need a backslash (ngx_conf_read_token).
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// key returns the map key of uri. nginx matches a map's string keys
// ignoring case, so a URI whose lower-case form is shared with another
// file's gets a case-sensitive regular expression instead.
func key(uri string, folded bool) string {
	if !folded {
		return quote(uri)
	}
	var b strings.Builder
	b.WriteString("~^")
	for _, r := range uri {
		if r < 0x80 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString("$")
	return quote(b.String())
}

// relativeRef is the relative reference to a file named name in the
// same directory: percent-encoded, and not mistaken for a scheme.
func relativeRef(name string) string {
	// A $ would start a variable in an nginx value: encode it too.
	ref := strings.ReplaceAll((&url.URL{Path: name}).EscapedPath(), "$", "%24")
	if strings.Contains(name, ":") {
		ref = "./" + ref // a colon in the first segment would read as a scheme
	}
	return ref
}

// link is the Link field value naming uri's control file, relative to it.
func link(uri string) string {
	return "<" + relativeRef(path.Base(uri)+ControlSuffix) + `>; rel="describedby"; type="application/x-zsync"`
}

// Write writes the include file for entries.
func Write(w io.Writer, dir string, entries []Entry) error {
	bw := bufio.NewWriter(w)
	folded := map[string]int{}
	longest := 0
	for _, e := range entries {
		folded[strings.ToLower(e.URI)]++
		longest = max(longest, len(e.URI)+len(ControlSuffix))
	}
	fmt.Fprintf(bw, header, dir)
	fmt.Fprintf(bw, "map_hash_max_size %d;\nmap_hash_bucket_size %d;\n\n", pow2(max(2048, 2*len(entries))), pow2(max(128, longest+32)))
	bw.WriteString("map $uri $hdig_repr_digest_uri {\n")
	for _, e := range entries {
		state, err := json.Marshal(e)
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "    %s%s\n    %s %s;\n", stateMark, state, key(e.URI, folded[strings.ToLower(e.URI)] > 1), quote(e.Digest))
	}
	bw.WriteString("}\n\nmap $uri $hdig_zsync_link_uri {\n")
	for _, e := range entries {
		if !e.Zsync.IsZero() {
			fmt.Fprintf(bw, "    %s %s;\n", key(e.URI, folded[strings.ToLower(e.URI)] > 1), quote(link(e.URI)))
		}
	}
	bw.WriteString(footer)
	return bw.Flush()
}

func pow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

const header = `# Written by hdig index %s --nginx: Repr-Digest (RFC 9530) and the zsync
# control file's Link for every file, for a stock nginx whose root is that
# directory. Include it in the http {} block:
#
#     http {
#         include /path/to/this/file;
#         server { listen 80; root /the/indexed/dir; gzip off; }
#     }
#
# Repr-Digest depends on Content-Encoding: it is sent only on identity
# responses. Keep gzip off where this applies (the gzip filter runs after
# add_header and would compress under a digest of the identity bytes);
# gzip_static responses carry Content-Encoding early and get no Repr-Digest.
# A server {} or location {} with add_header lines of its own does not
# inherit these: include the two add_header lines there too.
# Re-run hdig index to update; edits here are lost.

`

const footer = `}

# Only on responses whose status says the file was served, and only when
# nginx did not set a Content-Encoding first (gzip_static). The range
# filter turns 200 into 206 after add_header runs, so 200 covers 206.
map "$status:$sent_http_content_encoding" $hdig_repr_digest {
    "200:" $hdig_repr_digest_uri;
    "304:" $hdig_repr_digest_uri;
    default "";
}

map $status $hdig_zsync_link {
    200 $hdig_zsync_link_uri;
    304 $hdig_zsync_link_uri;
    default "";
}

add_header Repr-Digest $hdig_repr_digest always;
add_header Link $hdig_zsync_link always;
`

// ReadState returns the entries a previous Write recorded in r, by URI.
// Lines it does not recognise are ignored: a damaged file only costs
// rehashing.
func ReadState(r io.Reader) map[string]Entry {
	old := map[string]Entry{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		s, ok := strings.CutPrefix(line, stateMark)
		if !ok {
			continue
		}
		var e Entry
		if json.Unmarshal([]byte(s), &e) == nil && e.URI != "" {
			old[e.URI] = e
		}
	}
	return old
}
