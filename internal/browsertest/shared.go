package browsertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hdig/hdig/internal/peertest"
)

// Generous bounds: browser tests run under -race on a loaded 2-core
// machine. They bound waiting for a dead browser, they are not figures.
const (
	// StartTimeout bounds starting the browser.
	StartTimeout = 2 * time.Minute
	// TestTimeout is what a browser test's context allows (Context).
	TestTimeout = 3 * time.Minute
	// defaultCloseWait bounds closing a page.
	defaultCloseWait = 30 * time.Second
)

var shared struct {
	mu  sync.Mutex
	b   *Browser
	err error
}

// Shared returns the package's browser, started on first use with
// BaseFlags. Without chromium the test is skipped, except under CI=true,
// where it fails (peertest.Need). Call CloseShared from TestMain.
func Shared(t testing.TB) *Browser {
	t.Helper()
	bin := peertest.Need(t, "chromium")
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b == nil && shared.err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		shared.b, shared.err = Start(ctx, Options{Binary: bin})
		cancel()
	}
	if shared.err != nil {
		t.Fatalf("chromium: %v", shared.err)
	}
	return shared.b
}

// CloseShared stops the browser Shared started, if any.
func CloseShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b != nil {
		shared.b.Close()
		shared.b = nil
	}
}

// Context returns a context bounded by TestTimeout, cancelled when t ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), TestTimeout)
	t.Cleanup(cancel)
	return ctx
}

// NewPage opens a page in its own browser context of b, closed when t
// ends; on failure the test fails with the page's log.
func NewPage(t testing.TB, ctx context.Context, b *Browser) *Page {
	t.Helper()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatalf("new page: %v\nbrowser output: %s", err, b.Output())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page log:\n%s", p.Log())
		}
		p.Close()
	})
	return p
}
