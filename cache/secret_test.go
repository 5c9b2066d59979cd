package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A URL's userinfo is a credential: the cache never writes it to disk or
// lists it, and the version is found again with or without it.
func TestURLCredentialsNeverStored(t *testing.T) {
	c := newCache(t)
	const secret = "hunter2"
	put(t, c, "https://alice:"+secret+"@example.org/f#frag", `"a"`, "alpha")

	err := filepath.Walk(c.Dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the password: %s", p, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	es, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].URL != "https://example.org/f" {
		t.Fatalf("Entries = %+v, want one for https://example.org/f", es)
	}
	for _, u := range []string{"https://example.org/f", "https://bob:x@example.org/f"} {
		vs, err := c.Versions(u)
		if err != nil || len(vs) != 1 {
			t.Errorf("Versions(%q) = %v, %v; want the one version", u, vs, err)
		}
	}
}

func TestRemoveWithCredentials(t *testing.T) {
	c := newCache(t)
	put(t, c, "https://alice:pw@example.org/f", `"a"`, "alpha")
	if n, err := c.Remove("https://bob:pw2@example.org/f"); n != 1 || err != nil {
		t.Fatalf("Remove = %d, %v; want 1 version dropped", n, err)
	}
}
