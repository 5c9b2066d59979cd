package server

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMaxConnsKeepsSteadyDownload: under --max-conns 1, a client that
// reads a large file slowly but steadily keeps its connection while a
// second client waits: its write is blocked far longer than stallMin in
// all, but bytes keep moving, so it is not stalled. The download ends
// intact; the second client is served after it.
func TestMaxConnsKeepsSteadyDownload(t *testing.T) {
	for _, path := range []struct {
		name   string
		settle time.Duration
		tls    bool
	}{
		{"trusted, one sendfile", 0, false},
		{"hashed as sent", time.Hour, false},
		{"TLS records", 0, true},
	} {
		for _, counter := range counters {
			t.Run(path.name+", "+counter.name, func(t *testing.T) {
				found := setSocketCounter(t, counter.get)
				steadyDownload(t, path.settle, path.tls)
				if counter.socket && runtime.GOOS == "linux" && found.Load() == 0 {
					t.Error("the limiter found no TCP socket to ask: it counted bytes handed over")
				}
			})
		}
	}
}

// counters are the two ways the limiter counts bytes moved: socket is
// whether get asks the socket.
var counters = []struct {
	name   string
	socket bool
	get    func(net.Conn) func() (int64, bool)
}{
	{"bytes acknowledged", true, socketCounter},
	{"bytes handed over", false, func(net.Conn) func() (int64, bool) { return nil }},
}

// setSocketCounter sets socketCounter to get for one test (before its
// server starts); the count returned is of the connections it found a
// socket for.
func setSocketCounter(t *testing.T, get func(net.Conn) func() (int64, bool)) *atomic.Int64 {
	old := socketCounter
	var found atomic.Int64
	socketCounter = func(c net.Conn) func() (int64, bool) {
		f := get(c)
		if f != nil {
			found.Add(1)
		}
		return f
	}
	t.Cleanup(func() { socketCounter = old })
	return &found
}

// steadyLooks is how many times the limiter must have looked for room
// while the first download goes on: a few times stallMin.
const steadyLooks = 16

func steadyDownload(t *testing.T, settle time.Duration, withTLS bool) {
	setStallMin(t, 250*time.Millisecond)
	dir := fixture(t)
	body := steadyBody()
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), body, 0o644))
	s, err := New(dir, WithMaxConns(1), WithSettle(settle))
	must(t, err)
	var serverTLS, clientTLS *tls.Config
	if withTLS {
		serverTLS, clientTLS = testTLS(t)
	}
	base, _ := serveLnTLS(t, s, serverTLS)

	var conn io.ReadWriteCloser = dialServer(t, base, 0)
	if withTLS {
		conn = tls.Client(conn.(net.Conn), clientTLS)
	}
	io.WriteString(conn, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	must(t, err)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /big.bin: status %d, want 200", resp.StatusCode)
	}
	looks := roomLooks.Load()
	r := &steadyReader{r: resp.Body, until: func() bool { return roomLooks.Load()-looks >= steadyLooks }}
	h := sha256.New()
	if _, err := io.CopyN(h, r, 1<<20); err != nil {
		t.Fatalf("first MiB: %v", err)
	}
	second := make(chan string, 1)
	go func() { second <- getHello(base, clientTLS) }()
	n, err := io.Copy(h, r)
	n += 1 << 20
	if err != nil || n != int64(len(body)) {
		t.Fatalf("the steady download was cut: %d of %d bytes, %v", n, len(body), err)
	}
	if got, want := h.Sum(nil), sha256.Sum256(body); string(got) != string(want[:]) {
		t.Fatalf("the steady download's bytes differ: sha256 %x, want %x", got, want)
	}
	if !r.done() {
		t.Fatalf("the download ended before the limiter looked %d times for room: the test proves nothing", steadyLooks)
	}
	conn.Close()
	if got := <-second; got != "" {
		t.Error(got)
	}
}

// steadyReader reads at most 16 KiB at a time with a pause after each,
// until until reports true; then at full speed.
type steadyReader struct {
	r     io.Reader
	until func() bool
	fast  bool
}

func (s *steadyReader) Read(p []byte) (int, error) {
	if s.done() {
		return s.r.Read(p)
	}
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 16<<10)])
}

func (s *steadyReader) done() bool {
	s.fast = s.fast || s.until()
	return s.fast
}

// getHello fetches /hello.json, over TLS with clientTLS if not nil; ""
// when it came back whole, else what went wrong.
func getHello(base string, clientTLS *tls.Config) string {
	client := &http.Client{Timeout: 60 * time.Second} // a safety net, not a measure
	if clientTLS != nil {
		client.Transport = &http.Transport{TLSClientConfig: clientTLS}
		base = "https://" + strings.TrimPrefix(base, "http://")
	}
	resp, err := client.Get(base + "/hello.json")
	if err != nil {
		return "the second client: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != hello {
		return "the second client got " + resp.Status + ": " + string(b)
	}
	return ""
}

// steadyBody is the large file of the steady downloads, random bytes
// (a shifted or cut transfer changes its digest), made once.
var steadyBody = sync.OnceValue(func() []byte {
	b := make([]byte, 48<<20)
	rand.Read(b)
	return b
})

// setStallMin sets stallMin for one test (before its server starts).
func setStallMin(t *testing.T, d time.Duration) {
	old := stallMin
	stallMin = d
	t.Cleanup(func() { stallMin = old })
}

// TestMaxConnsEvictsTrickle: a client that keeps its write moving by a
// trickle (here 16 KiB every 10 ms, moving every look of the limiter but
// under the test's minimum rate; in use a few bytes a second, under 1
// KiB/s) holds no slot against a new client:
// under --max-conns 1 it is closed once it has moved slower than minRate
// for stallMin, and the second client is served at once.
func TestMaxConnsEvictsTrickle(t *testing.T) {
	for _, counter := range counters {
		t.Run(counter.name, func(t *testing.T) {
			setSocketCounter(t, counter.get)
			setStallMin(t, 250*time.Millisecond)
			old := minRate
			minRate = 64 << 20
			t.Cleanup(func() { minRate = old })
			evictsTrickle(t)
		})
	}
}

func evictsTrickle(t *testing.T) {
	base := fullServer(t, 1)
	conn := dialServer(t, base, 256<<10)
	io.WriteString(conn, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	must(t, err)
	trickled := make(chan int64, 1)
	go func() {
		var n int64
		buf := make([]byte, 16<<10)
		for {
			m, err := io.ReadFull(resp.Body, buf)
			n += int64(m)
			if err != nil {
				trickled <- n
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	looks := roomLooks.Load()
	if got := getHello(base, nil); got != "" {
		t.Fatal(got)
	}
	// Counted, not timed: closing the trickle takes the looks of about
	// one stallMin (a look every stallMin/4). Without the rate it held its
	// slot until the trickle happened to pause for stallMin: hundreds.
	if n := roomLooks.Load() - looks; n > maxTrickleLooks {
		t.Errorf("the new client waited %d looks for room, want at most %d", n, maxTrickleLooks)
	}
	conn.Close()
	if n := <-trickled; n >= 32<<20 {
		t.Errorf("the trickle got the whole file (%d bytes): it was never closed", n)
	}
}

// maxTrickleLooks bounds the looks for room the trickle may cost: a few
// times the 5 of one stallMin.
const maxTrickleLooks = 40
