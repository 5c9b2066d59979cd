package browsertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// Messages split across reads and longer than the reader's buffer come
// out whole; the last one without its NUL is an EOF.
func TestReadMessage(t *testing.T) {
	long := `{"id":2,"result":{"v":"` + strings.Repeat("x", 200<<10) + `"}}`
	in := `{"id":1,"result":{}}` + "\x00" + long + "\x00" + `{"id":3`
	br := bufio.NewReaderSize(iotestHalf(strings.NewReader(in)), 16)
	for _, want := range []string{`{"id":1,"result":{}}`, long} {
		got, err := readMessage(br, maxMessage)
		if err != nil || string(got) != want {
			t.Fatalf("readMessage = %d bytes, %v; want %d bytes", len(got), err, len(want))
		}
	}
	if _, err := readMessage(br, maxMessage); err != io.EOF {
		t.Fatalf("a message without its NUL: want io.EOF, got %v", err)
	}
}

func TestReadMessageBound(t *testing.T) {
	const limit = 64 << 10
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Repeat([]byte("a"), limit+1)), strings.NewReader("\x00")), 16)
	if _, err := readMessage(br, limit); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("a message over %d bytes: want an error, got %v", limit, err)
	}
}

// Replies reach their caller; events reach their session's handler only.
func TestConnDispatch(t *testing.T) {
	pr, pw := io.Pipe()
	cr, cw := io.Pipe() // the commands conn sends
	c := newConn(cw, pr)
	got := make(chan string, 2)
	c.handle("S1", func(method string, _ json.RawMessage) { got <- method })
	done := make(chan error, 1)
	var v struct{ Product string }
	go func() { done <- c.call(t.Context(), "", "Browser.getVersion", nil, &v) }()
	// The reply is sent once the command was: a reply to an id not yet
	// asked for is a stray, and the call would wait for ever.
	sent, err := bufio.NewReader(cr).ReadString(0)
	if err != nil || !strings.Contains(sent, `"method":"Browser.getVersion"`) {
		t.Fatalf("sent %q, %v: want the command, NUL-terminated", sent, err)
	}
	go func() {
		pw.Write([]byte(`{"method":"Page.loadEventFired","sessionId":"S2","params":{}}` + "\x00"))
		pw.Write([]byte(`{"method":"Page.loadEventFired","sessionId":"S1","params":{}}` + "\x00"))
		pw.Write([]byte(`{"id":1,"result":{"product":"Chrome/156"}}` + "\x00"))
		pw.Write([]byte(`{"id":99,"error":{"code":-32000,"message":"stray"}}` + "\x00"))
	}()
	if err := <-done; err != nil || v.Product != "Chrome/156" {
		t.Fatalf("call = %+v, %v; want Chrome/156", v, err)
	}
	if m := <-got; m != "Page.loadEventFired" {
		t.Fatalf("session S1 got %q", m)
	}
	pw.Close()
	<-c.done
	if len(got) != 0 {
		t.Fatalf("session S1 got another session's event")
	}
	if err := c.call(t.Context(), "", "Browser.close", nil, nil); err == nil {
		t.Fatal("a call after the pipe closed: want an error, got none")
	}
}

// iotestHalf reads at most half of what is asked (at least one byte).
func iotestHalf(r io.Reader) io.Reader { return halfReader{r} }

type halfReader struct{ r io.Reader }

func (h halfReader) Read(p []byte) (int, error) { return h.r.Read(p[:(len(p)+1)/2]) }
