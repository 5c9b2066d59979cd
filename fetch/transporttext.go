package fetch

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
)

// transportText is an exchange that failed below HTTP, told as a user
// reads it; the error it describes stays underneath for errors.Is and As.
type transportText struct {
	text string
	err  error
}

func (e *transportText) Error() string { return e.text }
func (e *transportText) Unwrap() error { return e.err }

// TransportProblem describes a failed exchange without Go's layers:
// net/http's `Get "URL": dial tcp ADDR: connect: connection refused` is
// "cannot connect to ADDR: connection refused", a name that does not
// resolve "cannot resolve NAME: no such host", either of them on the way
// to the proxy "proxy: cannot connect to ADDR: …"; anything else is the
// url.Error's cause, without the method and URL it repeats.
func TransportProblem(err error) error { return transportProblem(err) }

func transportProblem(err error) error {
	var dns *net.DNSError
	var op *net.OpError
	var ue *url.Error
	switch {
	case errors.As(err, &op) && op.Op == "proxyconnect":
		return &transportText{text: "proxy: " + transportProblem(op.Err).Error(), err: err}
	case errors.As(err, &dns):
		return &transportText{text: fmt.Sprintf("cannot resolve %s: %s", dns.Name, dns.Err), err: err}
	case errors.As(err, &op) && op.Op == "dial" && op.Addr != nil:
		return &transportText{text: fmt.Sprintf("cannot connect to %s: %s", op.Addr, NetCause(op.Err)), err: err}
	case errors.As(err, &op) && (op.Op == "read" || op.Op == "write") && op.Addr != nil:
		return &transportText{text: fmt.Sprintf("connection to %s failed: %s", op.Addr, NetCause(op.Err)), err: err}
	case errors.As(err, &ue):
		return &transportText{text: ue.Err.Error(), err: err}
	}
	return err
}

// NetCause is the system's word for a socket's failure ("connection
// refused", "address already in use"), without the layers Go puts before
// it (the call's name, "listen tcp ADDR:"); an error of another kind is
// told as it is.
func NetCause(err error) string {
	var sc *os.SyscallError
	if errors.As(err, &sc) {
		return sc.Err.Error()
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err.Error()
	}
	return err.Error()
}
