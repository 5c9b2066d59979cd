package httpfield

import (
	"net/url"
	"strings"
)

// Redact is rawURL for output, its password replaced by "xxxxx": the one
// rule every message and report that names a URL goes through. A URL that
// does not parse (an invalid escape, a bad port) is redacted as text, its
// userinfo being what comes before the authority's last "@"; so is one
// without "//" ("user:pass@host/f" parses as scheme "user", which curl
// would take for http://user:pass@host/f).
func Redact(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Opaque == "" {
		return u.Redacted()
	}
	start := 0
	if i := strings.Index(rawURL, "://"); i >= 0 && !strings.ContainsAny(rawURL[:i], "/?#") {
		start = i + len("://")
	}
	end := len(rawURL)
	if i := strings.IndexAny(rawURL[start:], "/?#"); i >= 0 {
		end = start + i
	}
	at := strings.LastIndex(rawURL[start:end], "@")
	if host := rawURL[start:end]; at < 0 && !strings.HasPrefix(host, "[") {
		// A password holding "/", "?" or "#" ends the authority early
		// ("u:pa/ss@h" reads as host u, port "pa/…"): a port that is not
		// a number, and an "@" further on, are such a password's marks.
		if i := strings.LastIndex(host, ":"); i >= 0 && strings.Trim(host[i+1:], "0123456789") != "" {
			at = strings.LastIndex(rawURL[start:], "@")
		}
	}
	if at < 0 {
		return rawURL
	}
	user, _, hasPassword := strings.Cut(rawURL[start:start+at], ":")
	if !hasPassword {
		return rawURL
	}
	return rawURL[:start] + user + ":xxxxx" + rawURL[start+at:]
}
