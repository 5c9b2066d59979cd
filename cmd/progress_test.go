package cmd

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBarsTinyAndSingle: a tiny body draws no bar; a single stream draws
// one (the total), not a piece bar beside it; several pieces draw theirs.
func TestBarsTinyAndSingle(t *testing.T) {
	b := newBars(io.Discard)
	b.Start(1000, 0)
	p := b.Piece(0, 1000, 0)
	p.Add(1000)
	p.Done(true)
	if b.total != nil || len(b.open) != 0 {
		t.Errorf("tiny body: total %v, %d bars", b.total, len(b.open))
	}
	b.Finish()

	b = newBars(io.Discard)
	b.Start(8<<20, 0)
	b.Piece(0, 8<<20, 0).Add(100)
	if len(b.open) != 1 || b.total == nil || b.total.Current() != 100 {
		t.Errorf("one stream: %d bars, total at %d; want 1 bar at 100", len(b.open), b.total.Current())
	}
	b.Finish()

	b = newBars(io.Discard)
	b.Start(8<<20, 0)
	b.Piece(0, 4<<20, 0)
	b.Piece(1, 4<<20, 0)
	if len(b.open) != 3 {
		t.Errorf("two pieces: %d bars, want 3", len(b.open))
	}
	b.Finish()
}

// TestSpeedCountsBytesReceivedNow: a resumed transfer's speed and ETA
// count only what arrived since it started, not the part on disk.
func TestSpeedCountsBytesReceivedNow(t *testing.T) {
	bps, left := speedAndETA(10<<20, 10*time.Second, 20<<20)
	if bps != 1<<20 || left != 20*time.Second {
		t.Errorf("got %v B/s, %v left; want 1 MiB/s, 20s", bps, left)
	}
	if _, left := speedAndETA(0, time.Second, 5); left != -1 {
		t.Errorf("nothing received yet: ETA %v, want unknown", left)
	}
	b := newBars(io.Discard)
	b.Start(100<<20, 90<<20) // resumed at 90 MiB
	b.Piece(0, 100<<20, 90<<20).Add(1 << 20)
	if b.base != 90<<20 || b.total.Current()-b.base != 1<<20 {
		t.Errorf("base %d, counted %d; want the 1 MiB received now", b.base, b.total.Current()-b.base)
	}
	b.Finish()
}

// TestGetBarToStdout: with the body going to a pipe and stderr a terminal,
// the transfer shows its bar; with stdout a terminal too, none (curl).
func TestGetBarToStdout(t *testing.T) {
	body := strings.Repeat("z", 2<<20)
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(w, body)
	})
	for _, stdoutTTY := range []bool{false, true} {
		ios, _, out, errOut := Test()
		ios.StderrTTY, ios.StdoutTTY = true, stdoutTTY
		if code := Run(context.Background(), ios, []string{"get", "--no-cache", srv.URL}); code != 0 || out.Len() != len(body) {
			t.Fatalf("exit %d, %d bytes: %s", code, out.Len(), errOut)
		}
		if got := strings.Contains(errOut.String(), "total"); got == stdoutTTY {
			t.Errorf("stdout a terminal %v: bar shown %v: %q", stdoutTTY, got, errOut.String())
		}
	}
}
