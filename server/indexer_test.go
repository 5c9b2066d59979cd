package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// requestEachRead serves a GET through h at each read, as if a request
// came while the indexer read and hashed each chunk.
type requestEachRead struct {
	h http.Handler
	n int
}

func (r *requestEachRead) Read(p []byte) (int, error) {
	r.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/hello.json", nil))
	r.n++
	return len(p), nil
}

// While requests keep coming, the indexer pauses before every chunk after
// the first; with none, it reads chunk after chunk without a pause.
func TestIndexerGivesWayToRequests(t *testing.T) {
	s, err := New(fixture(t), WithSettle(0), WithAccessLog(io.Discard))
	must(t, err)
	defer s.Close()
	sleeps := 0
	s.cfg.sleep = func(context.Context, time.Duration) bool { sleeps++; return true }
	const chunks = 8
	busy := &requestEachRead{h: s.Handler()}
	y := &yieldReader{ctx: context.Background(), s: s, r: io.LimitReader(busy, chunks*indexChunk)}
	n, err := io.CopyBuffer(writerOnly{io.Discard}, y, make([]byte, 4*indexChunk))
	if err != nil || n != chunks*indexChunk || busy.n != chunks {
		t.Fatalf("indexed %d bytes in %d reads (%v), want %d in %d", n, busy.n, err, chunks*indexChunk, chunks)
	}
	// A pause before each chunk after the first, and before the read
	// that finds the end.
	if p := s.indexPauses.Load(); p != chunks || sleeps != chunks {
		t.Errorf("%d chunks read while requests came: %d pauses, %d sleeps; want %d", chunks, p, sleeps, chunks)
	}
	quiet := &countReader{}
	y = &yieldReader{ctx: context.Background(), s: s, r: io.LimitReader(quiet, chunks*indexChunk)}
	if _, err := io.CopyBuffer(writerOnly{io.Discard}, y, make([]byte, indexChunk)); err != nil || quiet.n != chunks {
		t.Fatalf("quiet: %d reads (%v), want %d", quiet.n, err, chunks)
	}
	if p := s.indexPauses.Load(); p != chunks {
		t.Errorf("%d chunks read with no request: %d more pauses, want none", chunks, p-chunks)
	}
}

// TestIndexerPauseBounded: a chunk that took long (a stalled disk, a
// descheduled thread) does not make the indexer wait 19 times as long.
func TestIndexerPauseBounded(t *testing.T) {
	s, err := New(fixture(t), WithSettle(0), WithAccessLog(io.Discard))
	must(t, err)
	defer s.Close()
	var asked time.Duration
	s.cfg.sleep = func(_ context.Context, d time.Duration) bool { asked = d; return true }
	y := &yieldReader{ctx: context.Background(), s: s, r: &countReader{}, begun: s.begun.Load() - 1, start: time.Now().Add(-time.Minute)}
	if _, err := y.Read(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if asked != indexMaxPause {
		t.Fatalf("paused %v after a chunk of a minute, want %v", asked, indexMaxPause)
	}
}
