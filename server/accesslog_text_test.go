package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slogLine is the line slog's TextHandler writes for l at time t.
func slogLine(t *testing.T, at time.Time, l *accessLine) string {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("method", l.method), slog.String("path", l.path), slog.Int("status", l.status),
		slog.Int64("bytes", l.bytes), slog.Duration("dur", l.dur), slog.String("remote", l.remote),
		slog.Bool("aborted", l.aborted))
	must(t, slog.NewTextHandler(&buf, nil).Handle(context.Background(), r))
	return buf.String()
}

// TestAccessLineAsSlog checks the hand-made line is, byte for byte, the
// one slog's TextHandler makes, for paths that need quoting and not.
func TestAccessLineAsSlog(t *testing.T) {
	paths := []string{"/1k.bin", "/", "", "/a b", "/a=b", `/a"b`, `/a\b`, "/é/ü.txt", "/tab\there",
		"/nl\n", "/\x7f", "/bad\xff", "/nb\u00a0sp", "/\u200b", "/日本"}
	times := []time.Time{
		time.Date(2026, 11, 23, 4, 5, 6, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.FixedZone("x", 5*3600+1800)),
		time.Date(1999, 12, 31, 23, 59, 59, 1_000_000, time.Local),
		time.Now(),
	}
	durs := []time.Duration{0, 12 * time.Microsecond, 1500 * time.Millisecond, 3 * time.Hour}
	n := 0
	for i, p := range paths {
		for j, at := range times {
			l := accessLine{method: []string{"GET", "PUT", "M E"}[i%3], path: p, remote: "127.0.0.1:5" + strings.Repeat("1", j),
				status: 200 + i, bytes: int64(i * 1000), dur: durs[(i+j)%len(durs)], aborted: i%2 == 0}
			got := string(appendAccessLine(nil, at, &l))
			if want := slogLine(t, at, &l); got != want {
				t.Errorf("path %q at %v:\ngot  %q\nwant %q", p, at, got, want)
			}
			n++
		}
	}
	if n != len(paths)*len(times) {
		t.Fatalf("compared %d lines, want %d", n, len(paths)*len(times))
	}
}

// TestAccessLogWriter checks a served request's line reaches the
// WithAccessLog writer, with its fields, once and whole.
func TestAccessLogWriter(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("hello"), 0o644))
	var out lineRecorder
	s, err := New(dir, WithAccessLog(&out))
	must(t, err)
	defer s.Close()
	req, _ := http.NewRequest(http.MethodGet, "/a%20b.txt", nil)
	req.RemoteAddr = "127.0.0.1:4242"
	s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	if len(out.writes) != 1 {
		t.Fatalf("%d writes to the access log, want 1: %q", len(out.writes), out.writes)
	}
	line := out.writes[0]
	for _, f := range []string{" level=INFO msg=request method=GET ", ` path="/a b.txt" `, " status=200 ",
		" bytes=5 ", " remote=127.0.0.1:4242 aborted=false\n"} {
		if !strings.Contains(line, f) {
			t.Errorf("line %q lacks %q", line, f)
		}
	}
	if !strings.HasPrefix(line, "time=") || strings.Count(line, "\n") != 1 {
		t.Errorf("line %q: want one line starting with time=", line)
	}
}

// lineRecorder keeps each Write.
type lineRecorder struct{ writes []string }

func (l *lineRecorder) Write(p []byte) (int, error) {
	l.writes = append(l.writes, string(p))
	return len(p), nil
}

// The time of a line formatted from the second's memo (lastSecond) is
// the one time.Format makes, every millisecond of a second, in several
// locations in turn, and for years that are not 4 digits.
func TestAccessTimeMemo(t *testing.T) {
	locs := []*time.Location{time.UTC, time.FixedZone("a", -(3*3600 + 1800)), time.Local}
	n := 0
	for _, sec := range []int64{0, 1_795_000_000, 1_795_000_001, -62_000_000_000, 260_000_000_000} {
		for ms := int64(0); ms < 1000; ms += 37 {
			for _, loc := range locs {
				at := time.Unix(sec, ms*1e6+ms%10*1000).In(loc)
				got, want := string(appendMillis(nil, at)), string(appendMillisFormat(nil, at))
				if got != want {
					t.Fatalf("%v: %q, want %q", at, got, want)
				}
				n++
			}
		}
	}
	if n != 5*28*3 {
		t.Fatalf("compared %d times", n)
	}
}
