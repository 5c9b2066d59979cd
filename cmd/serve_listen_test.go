package cmd

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestServeAddrInUse: an address in use is said in one plain line,
// without Go's "listen tcp ADDR: bind:" layers, exit 2.
func TestServeAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, out, errOut := runHdigCtx(t, ctx, "serve", t.TempDir(), "--addr", addr)
	want := "hdig: --addr " + addr + ": cannot listen: address already in use\n"
	if code != ExitUsage || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, want)
	}
}
