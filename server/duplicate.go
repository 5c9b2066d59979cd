package server

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// maxDuplicates bounds WithDuplicates: every file's response carries one
// Link per mirror.
const maxDuplicates = 16

// WithDuplicates advertises mirrors of the served tree (RFC 6249): each is
// the absolute http or https URL of a directory that holds the same files
// at the same paths, and the GET or HEAD of a regular file carries
// `Link: <BASE/PATH>; rel=duplicate` for each, in the order given (hdig
// serve --duplicate). The mirrors' bytes are not the origin's business:
// clients check them against this origin's Repr-Digest.
func WithDuplicates(bases ...string) Option {
	return func(c *config) error {
		if len(bases) > maxDuplicates {
			return fmt.Errorf("%d duplicates: want at most %d", len(bases), maxDuplicates)
		}
		for _, b := range bases {
			u, err := url.Parse(b)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
				return fmt.Errorf("duplicate %q: want an http:// or https:// URL of a directory, without credentials, query or fragment", httpfield.Redact(b))
			}
			if !strings.HasSuffix(u.Path, "/") {
				u.Path += "/"
				u.RawPath = ""
			}
			c.duplicates = append(c.duplicates, u)
		}
		return nil
	}
}

// duplicateLinks adds the rel=duplicate Links of name when it is a regular
// file (lfi: its Lstat info, links checked by linkInfo).
func (s *Server) duplicateLinks(w http.ResponseWriter, name string, lfi fs.FileInfo) {
	if len(s.cfg.duplicates) == 0 || lfi == nil {
		return
	}
	if lfi.Mode()&fs.ModeSymlink != 0 {
		fi, err := s.root.Stat(name)
		if err != nil {
			return
		}
		lfi = fi
	}
	if !lfi.Mode().IsRegular() {
		return
	}
	rel := &url.URL{Path: name}
	for _, base := range s.cfg.duplicates {
		w.Header().Add("Link", fmt.Sprintf("<%s>; rel=duplicate", base.ResolveReference(rel)))
	}
}
