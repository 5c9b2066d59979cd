package cmd

import (
	"strings"
	"testing"
)

// TestRemoteNameDirectory: -O takes the URL's last path segment; a URL
// ending in "/" has an empty one (curl refuses such a URL too) and is not
// named after the directory above it.
func TestRemoteNameDirectory(t *testing.T) {
	for _, u := range []string{"http://h/dir/", "http://h/", "http://h", "http://h/a/..", "http://h/dir/?x=1"} {
		if name, err := remoteName(u); err == nil || !strings.Contains(err.Error(), "no file name") {
			t.Errorf("remoteName(%q) = %q, %v: want a usage error", u, name, err)
		}
	}
	for u, want := range map[string]string{"http://h/dir/f.iso": "f.iso", "http://h/f?x=/y": "f", "http://h/a%2Fb": "b"} {
		if name, err := remoteName(u); err != nil || name != want {
			t.Errorf("remoteName(%q) = %q, %v: want %q", u, name, err, want)
		}
	}
}
