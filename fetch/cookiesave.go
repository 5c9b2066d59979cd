package fetch

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Save writes the jar's live cookies in the Netscape format (-c FILE),
// sorted, session cookies with expiry 0.
func (j *CookieJar) Save(w io.Writer) error {
	j.mu.Lock()
	var lines []string
	now := j.now().Unix()
	for _, e := range j.kept {
		if e.expires < 0 || (e.expires != 0 && e.expires <= now) {
			continue
		}
		domain, sub := e.domain, "FALSE"
		if e.subdomains {
			domain, sub = "."+domain, "TRUE"
		}
		if e.httpOnly {
			domain = "#HttpOnly_" + domain
		}
		lines = append(lines, strings.Join([]string{domain, sub, e.path, upperBool(e.secure),
			strconv.FormatInt(e.expires, 10), e.name, e.value}, "\t"))
	}
	j.mu.Unlock()
	sort.Strings(lines)
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, "# Netscape HTTP Cookie File\n# Written by hdig. Edit at your own risk.\n\n")
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	return bw.Flush()
}

func upperBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}
