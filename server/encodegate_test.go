package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// wordText is n bytes of pseudo-random words: compresses about 3×.
func wordText(seed uint64, n int) []byte {
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega digest range origin variant")
	r := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// bigTexts writes n text files larger than syncBuildMax.
func bigTexts(t *testing.T, n int) (string, [][]byte) {
	dir := t.TempDir()
	var all [][]byte
	for i := range n {
		b := wordText(uint64(i), syncBuildMax+200<<10)
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%d.txt", i)), b, 0o644))
		all = append(all, b)
	}
	return dir, all
}

// TestLargeVariantBuiltInBackground: the first request for a large file's
// variant gets identity at once instead of waiting for the build; once
// the background build is done, the variant is served.
func TestLargeVariantBuiltInBackground(t *testing.T) {
	dir, texts := bigTexts(t, 1)
	s, ts := start(t, dir)
	r := raw(t, ts, "GET", "/t0.txt", "Accept-Encoding: br")
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Content-Encoding", "")
	wantHeader(t, r, "Vary", "Accept-Encoding")
	if !bytes.Equal(r.body, texts[0]) {
		t.Fatal("identity body differs from the file")
	}
	s.gate.bg.Wait()
	r = raw(t, ts, "GET", "/t0.txt", "Accept-Encoding: br")
	wantHeader(t, r, "Content-Encoding", "br")
	if got := decode(t, "br", r.body); !bytes.Equal(got, texts[0]) {
		t.Fatal("decoded variant differs from the file")
	}
}

// TestVariantBuildsBounded: many concurrent requests for the variants of
// different large files start no more builds at once than there are
// slots, and every one is answered.
func TestVariantBuildsBounded(t *testing.T) {
	dir, texts := bigTexts(t, 8)
	s, ts := start(t, dir)
	var wg sync.WaitGroup
	for i := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", fmt.Sprintf("%s/t%d.txt", ts.URL, i), nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := ts.Client().Transport.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("t%d: status %d", i, resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	s.gate.bg.Wait()
	if s.gate.peak > cap(s.gate.large) {
		t.Errorf("%d builds ran at once, want at most %d", s.gate.peak, cap(s.gate.large))
	}
	if s.gate.builds == 0 || s.gate.builds > len(texts) {
		t.Errorf("%d builds for %d files", s.gate.builds, len(texts))
	}
}

// TestEvictedVariantNotRebuiltInLoop: with a memory budget for two
// variants and four files requested in turn, each variant is built once;
// evicted ones are served as identity instead of being rebuilt on every
// request.
func TestEvictedVariantNotRebuiltInLoop(t *testing.T) {
	dir, texts := bigTexts(t, 4)
	var enc bytes.Buffer
	must(t, compress(&enc, bytes.NewReader(texts[0]), "gzip"))
	budget := int64(enc.Len()) * 5 / 2
	s, ts := start(t, dir, WithVariantMemory(budget))
	for round := 0; round < 5; round++ {
		for i := range texts {
			r := raw(t, ts, "GET", fmt.Sprintf("/t%d.txt", i), "Accept-Encoding: gzip")
			wantStatus(t, r, http.StatusOK)
			body := r.body
			if r.Header.Get("Content-Encoding") == "gzip" {
				body = decode(t, "gzip", r.body)
			}
			if !bytes.Equal(body, texts[i]) {
				t.Fatalf("round %d, t%d: wrong bytes", round, i)
			}
			s.gate.bg.Wait()
		}
	}
	if s.gate.builds > len(texts) {
		t.Errorf("%d builds for %d files over 5 rounds: evicted variants rebuilt in a loop", s.gate.builds, len(texts))
	}
}
