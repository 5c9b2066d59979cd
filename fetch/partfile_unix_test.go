//go:build unix

package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hdig/hdig/verify"
)

// -C trusts the sidecar beside the part: its spans say which bytes are
// kept, the Repr-Digest it recorded proves the resumed whole. In a shared
// (sticky, world-writable) directory anyone can put FILE.hdig-part and
// FILE.hdig-resume there first: a part of someone else's bytes with a
// sidecar recording their digest was resumed and reported verified
// (only its last byte was fetched). And a FIFO put at the sidecar's name
// hung -C forever on opening it. A part or sidecar that is not a regular
// file of its own owned by the user is not hdig's: the download starts over.
func TestResumeForeignPartOrSidecar(t *testing.T) {
	data := genData(1<<20, 1)
	for _, how := range []string{"fifo", "foreign"} {
		t.Run(how, func(t *testing.T) {
			if how == "foreign" && os.Geteuid() != 0 {
				t.Skip("needs root to make files owned by someone else")
			}
			o := newResumeOrigin(t, data, sha256Field(data), func(http.Header, []byte) {})
			o.whole.Store(true)
			shared := filepath.Join(t.TempDir(), "shared")
			os.Mkdir(shared, 0o755)
			os.Chmod(shared, os.ModeSticky|0o777)
			path := filepath.Join(shared, "f")
			forged := genData(len(data), 2)
			forged[len(forged)-1] = data[len(data)-1]
			if how == "fifo" { // the user's own part, resumed from its length
				forged = data[:len(data)/2]
			}
			os.WriteFile(path+PartSuffix, forged, 0o666)
			os.Chmod(path+PartSuffix, 0o666)
			sc := sidecar{Version: sidecarVersion, URL: o.srv.URL, ETag: `"v1"`, Total: int64(len(data)), ReprDigest: sha256Field(forged),
				Algorithms: []string{"sha-256"}, Done: [][2]int64{{0, int64(len(data))}}}
			b, _ := json.Marshal(sc)
			if how == "fifo" {
				if err := syscall.Mkfifo(path+SidecarSuffix, 0o666); err != nil {
					t.Skip(err)
				}
			} else {
				os.WriteFile(path+SidecarSuffix, b, 0o666)
				for _, p := range []string{path + PartSuffix, path + SidecarSuffix} {
					if err := os.Chown(p, 65534, 65534); err != nil {
						t.Fatal(err)
					}
				}
			}
			c, _ := NewClient(Options{Timeout: testStall})
			res, err := c.Download(context.Background(), &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()}, path, DownloadOptions{Continue: true, Parallel: 1})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, data) || how == "foreign" && res.Outcome() != verify.Verified {
				t.Errorf("outcome %s, FILE the origin's: %v; want someone else's part and sidecar not resumed", res.Outcome(), bytes.Equal(got, data))
			}
		})
	}
}
