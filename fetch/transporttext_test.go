package fetch

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A refused connection is told as a user reads it, naming the address,
// without net/http's `Get "URL": dial tcp ADDR: connect:` (Go's layers),
// and stays a network failure with its cause underneath.
func TestTransportErrorPlain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the dial is refused
	c, _ := NewClient(Options{Timeout: testStall})
	_, err = c.Do(context.Background(), &Request{URL: "http://" + addr + "/f", Policy: verify.DefaultPolicy()}, DiscardSink{})
	if err == nil {
		t.Fatal("no error from a refused connection")
	}
	want := "cannot connect to " + addr + ": connection refused"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if !errors.Is(err, ErrNetwork) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("%v: want ErrNetwork and ECONNREFUSED underneath", err)
	}
}

// A name that does not resolve says which name.
func TestTransportTextDNS(t *testing.T) {
	err := &net.DNSError{Err: "no such host", Name: "nonexistent.invalid", Server: "10.0.0.53:53", IsNotFound: true}
	got := transportProblem(err).Error()
	if want := "cannot resolve nonexistent.invalid: no such host"; got != want || strings.Contains(got, "lookup") {
		t.Errorf("%q, want %q", got, want)
	}
}
