package check

import (
	"net"
	"testing"
)

// TestRefusedPlain: an origin that refuses the connection is reported
// unreachable in the words fetch uses, naming the address, without Go's
// "dial tcp ADDR: connect:" layers.
func TestRefusedPlain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	r := auditURL(t, "http://"+addr+"/f", Options{})
	want := "GET failed: cannot connect to " + addr + ": connection refused; want a 200 response"
	if !r.Unreachable || r.Checks[0].Status != Fail || r.Checks[0].Message != want {
		t.Errorf("unreachable %v, %+v; want the message %q", r.Unreachable, r.Checks[0], want)
	}
}
