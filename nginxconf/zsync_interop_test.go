package nginxconf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/cmd"
	"github.com/hdig/hdig/internal/peertest"
	"github.com/hdig/hdig/nginxconf"
)

// TestNginxZsyncClients: the control files hdig index writes, served by a
// stock nginx with the include, take both Debian's zsync 0.6.2 and hdig
// get --zsync from an old version to the new one with scattered edits
// (several ranges per request: nginx's multipart/byteranges). hdig finds
// the control file through the Link the include adds and checks the
// Repr-Digest nginx sends on the 206s: verified, not only the SHA-1.
func TestNginxZsyncClients(t *testing.T) {
	zs := peertest.Need(t, "zsync")
	www := filepath.Join(t.TempDir(), "www")
	inc := filepath.Join(t.TempDir(), "hdig.conf")
	cur := make([]byte, 3<<20)
	for i := range cur {
		cur[i] = byte(uint64(i)*2654435761>>13) ^ byte(i/3)
	}
	old := bytes.Clone(cur)
	for k := 0; k < 12; k++ {
		old[k*250_000+77] ^= 0x5a
	}
	nginxconf.WriteTree(t, www, map[string][]byte{"rel/app.bin": cur})
	nginxconf.IndexTree(t, www, inc)
	base := nginxconf.StartNginx(t, www, inc)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "old.bin"), old, 0o644); err != nil {
		t.Fatal(err)
	}

	z := exec.Command(zs, "-i", "old.bin", "-o", "zsync.bin", base+"/rel/app.bin.zsync")
	z.Dir = work
	if out, err := z.CombinedOutput(); err != nil {
		t.Fatalf("zsync 0.6.2: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "zsync.bin")); !bytes.Equal(got, cur) {
		t.Error("zsync 0.6.2 rebuilt a different file")
	}

	ios, _, stdout, stderr := cmd.Test()
	code := cmd.Run(context.Background(), ios, []string{"get", "--json", "--no-cache", "--zsync", "--require-digest",
		"--seed", filepath.Join(work, "old.bin"), "-o", filepath.Join(work, "hdig.bin"), base + "/rel/app.bin"})
	var v struct {
		Outcome  string `json:"outcome"`
		Transfer struct {
			Strategy string `json:"strategy"`
			Received int64  `json:"received"`
		} `json:"transfer"`
	}
	json.Unmarshal(stdout.Bytes(), &v)
	if code != cmd.ExitOK || v.Transfer.Strategy != "zsync" || v.Transfer.Received >= int64(len(cur))/10 || !strings.Contains(stdout.String(), "Repr-Digest") {
		t.Fatalf("hdig get --zsync --require-digest from nginx = %d, %+v; want 0, zsync, a few blocks, Repr-Digest verified\n%s\n%s", code, v, stdout, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "hdig.bin")); !bytes.Equal(got, cur) {
		t.Error("hdig rebuilt a different file")
	}
}
