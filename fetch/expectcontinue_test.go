package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// A request that carries Expect: 100-continue (-H) waits for the origin's
// 100 before it sends its content, as curl does (--expect100-timeout, 1 s):
// an origin that answers at once, 413 here, gets none of it, and the
// client reads that answer rather than a broken pipe. net/http sent the
// content at once (its ExpectContinueTimeout was zero).
func TestExpectContinueWaits(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		if _, err := http.ReadRequest(br); err != nil { // the header only
			got <- -1
			return
		}
		io.WriteString(conn, "HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		n, _ := io.Copy(io.Discard, br) // the content, if sent, until the client closes
		got <- n
	}()
	// Long enough that only the 413 can end the wait.
	c, _ := NewClient(Options{Timeout: testStall, Connection: Connection{Expect100Timeout: time.Hour}})
	req := &Request{URL: "http://" + ln.Addr().String() + "/up", Method: http.MethodPut, Policy: verify.DefaultPolicy(),
		Header: http.Header{"Expect": {"100-continue"}}, Body: BytesBody([]byte(strings.Repeat("x", 4096)))}
	_, err = c.Do(context.Background(), req, DiscardSink{})
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("error %v, want the origin's 413", err)
	}
	if n := <-got; n != 0 {
		t.Errorf("the origin received %d bytes of content before its 100, want none", n)
	}
}

// An origin or proxy that refuses the expectation (417, as old proxies
// answer any Expect) gets the request again without it, its content sent
// once then, as curl does: hdig adds Expect: 100-continue itself to a body
// over 1 MiB (8e3445b), and such an upload failed, exit 4, where it had
// worked (found by the final reread).
func TestExpectRefusedSentAgain(t *testing.T) {
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Expect") != "" {
			requests = append(requests, "expect")
			w.WriteHeader(http.StatusExpectationFailed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		requests = append(requests, fmt.Sprintf("%d bytes", len(b)))
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall, Connection: Connection{Expect100Timeout: time.Hour}})
	req := &Request{URL: srv.URL + "/up", Method: http.MethodPut, Policy: verify.DefaultPolicy(),
		Header: http.Header{"Expect": {"100-continue"}}, Body: BytesBody([]byte(strings.Repeat("x", 4096)))}
	res, err := c.Do(context.Background(), req, DiscardSink{})
	if err != nil || res.Status != http.StatusCreated || strings.Join(requests, ", ") != "expect, 4096 bytes" {
		t.Errorf("Do: %v; requests %q, want a 417 then the content without Expect", err, requests)
	}
}

// TestExpect100TimeoutAtOnce: a negative Expect100Timeout (--expect100-timeout
// 0) sends the content at once, net/http's zero; zero is curl's 1 s.
func TestExpect100TimeoutAtOnce(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{-1: 0, 0: time.Second, 3 * time.Second: 3 * time.Second} {
		tr, err := Connection{Expect100Timeout: in}.transport(nil, testStall)
		if err != nil || tr.ExpectContinueTimeout != want {
			t.Errorf("Expect100Timeout %v: ExpectContinueTimeout %v (%v), want %v", in, tr.ExpectContinueTimeout, err, want)
		}
	}
}
