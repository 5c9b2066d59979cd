package fetch

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// A status line's reason phrase is the server's text: printed in the
// one-line error, its control characters (a terminal's escape sequences)
// must not reach the user's terminal, as the body excerpt's do not.
func TestStatusErrorReasonPrintable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			c.Write([]byte("HTTP/1.1 404 Not\x1b]0;owned\x07 \x1b[2JFound\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			c.Close()
		}
	}()
	c, err := NewClient(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), &Request{URL: "http://" + ln.Addr().String() + "/f"}, DiscardSink{})
	var se *StatusError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a StatusError", err)
	}
	if msg := se.Error(); strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, "404") {
		t.Errorf("error %q: want the status without control characters", msg)
	}
}
