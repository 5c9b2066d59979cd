// Package browsertest drives Debian's headless Chromium over the DevTools
// protocol for tests that need a real browser: pages on loopback origins
// whose scripts fetch, hash (crypto.subtle) and load subresources, their
// results read back with Page.Eval.
//
// The browser is reached through --remote-debugging-pipe, so nothing
// listens on a port and no WebSocket client is needed. One browser serves
// a package's tests (Shared, closed by CloseShared in TestMain); each Page
// has its own browser context, so cache, cookies and compression
// dictionaries never leak from one test into another.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// BaseFlags are the flags every browser starts with: headless, no
// sandbox (tests run as root in CI), and none of the background traffic
// (component updates, sync, field trials over the network) a test must
// not depend on. QUIC is off: everything is HTTP/1.1 on loopback.
var BaseFlags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-dev-shm-usage",
	"--disable-features=Translate,MediaRouter,OptimizationHints",
	"--remote-debugging-pipe",
}

// Options configure Start.
type Options struct {
	// Binary is the browser to run; default "chromium" on PATH.
	Binary string
	// Flags are added after BaseFlags (e.g. --enable-features=…).
	Flags []string
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	dir     string // the fresh --user-data-dir, removed by Close
	conn    *conn
	stderr  *tailBuffer
	version string
	once    sync.Once
	waited  chan struct{}
	werr    error
}

// Start runs the browser with a fresh profile directory and connects to
// it. ctx bounds the start only.
func Start(ctx context.Context, o Options) (*Browser, error) {
	bin := o.Binary
	if bin == "" {
		bin = "chromium"
	}
	dir, err := os.MkdirTemp("", "hdig-chromium-")
	if err != nil {
		return nil, err
	}
	toBrowser, err := pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	fromBrowser, err := pipe()
	if err != nil {
		toBrowser.close()
		os.RemoveAll(dir)
		return nil, err
	}
	args := append(append(append([]string{}, BaseFlags...), o.Flags...), "--user-data-dir="+dir, "about:blank")
	b := &Browser{dir: dir, stderr: &tailBuffer{max: 16 << 10}, waited: make(chan struct{})}
	b.cmd = exec.Command(bin, args...)
	b.cmd.Stderr = b.stderr
	b.cmd.Stdout = b.stderr
	// fd 3: the browser reads commands; fd 4: it writes replies and events.
	b.cmd.ExtraFiles = []*os.File{toBrowser.r, fromBrowser.w}
	if err := b.cmd.Start(); err != nil {
		toBrowser.close()
		fromBrowser.close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %v", bin, err)
	}
	toBrowser.r.Close()
	fromBrowser.w.Close()
	go func() { b.werr = b.cmd.Wait(); close(b.waited) }()
	b.conn = newConn(toBrowser.w, fromBrowser.r)
	var v struct {
		Product string `json:"product"`
	}
	if err := b.conn.call(ctx, "", "Browser.getVersion", nil, &v); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s did not answer over DevTools: %v; its output: %s", bin, err, b.stderr.String())
	}
	b.version = v.Product
	return b, nil
}

// Version is the browser's product string, e.g. "Chrome/156.0.8078.79"
// (headless builds say "HeadlessChrome/…").
func (b *Browser) Version() string { return b.version }

// Output is the tail of the browser's stderr, for failure messages.
func (b *Browser) Output() string { return b.stderr.String() }

// Close asks the browser to exit, kills it if it has not within 30 s,
// and removes its profile directory.
func (b *Browser) Close() error {
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = b.conn.call(ctx, "", "Browser.close", nil, nil)
		cancel()
		select {
		case <-b.waited:
		case <-time.After(30 * time.Second):
			_ = b.cmd.Process.Kill()
			<-b.waited
		}
		b.conn.w.Close()
		os.RemoveAll(b.dir)
	})
	return nil
}

type osPipe struct{ r, w *os.File }

func pipe() (osPipe, error) {
	r, w, err := os.Pipe()
	return osPipe{r, w}, err
}

func (p osPipe) close() { p.r.Close(); p.w.Close() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(t.buf.String())
}
