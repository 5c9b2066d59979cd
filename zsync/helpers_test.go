package zsync

import (
	"bytes"
	"github.com/hdig/hdig/internal/peertest"
	"math/rand/v2"
	"os/exec"
	"testing"
)

// tool returns the path of a zsync 0.6.2 binary. Without it the test is
// skipped, except in CI (CI set), where it fails.
func tool(t *testing.T, name string) string {
	return peertest.Need(t, name)
}

func runTool(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return out
}

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// makeControl makes the control file of data with default options.
func makeControl(t *testing.T, data []byte, bs int) *Control {
	t.Helper()
	c, err := Make(bytes.NewReader(data), int64(len(data)), MakeOptions{Blocksize: bs, URL: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// encode returns the bytes of c's control file.
func encode(t testing.TB, c *Control) []byte {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return buf.Bytes()
}
