package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/server"
)

// demoSteps are run in order; later features add their own.
var demoSteps = []func(context.Context, *demo) error{
	demoPlain,
	demoHead,
	demoRange,
	demoCorrupt,
	demoDelta,
	demoParallel,
	demoCheck,
}

var digestHeaders = []string{"Repr-Digest", "Content-Digest", "ETag", "Content-Range", "IM", "Delta-Base", "Content-Length"}

func demoPlain(ctx context.Context, d *demo) error {
	d.title("A GET that asks for digests (RFC 9530 §4) and verifies them")
	out := filepath.Join(d.work, "hello.json")
	code, _, stderr, took := d.run(ctx, "get", "-v", "--no-cache", "-o", out, d.base+"hello.json")
	d.say("asked", "GET /hello.json with Want-Repr-Digest: sha-256=10, sha-512=5 and Want-Content-Digest")
	for _, h := range headers(stderr, digestHeaders...) {
		d.say("got", "%s", h)
	}
	d.say("verdict", "%s [%s]", verdict(stderr), took.Round(1e6))
	b, _ := os.ReadFile(out)
	d.expect(code == 0 && string(b) == "{\"hello\": \"world\"}\n", "exit 0 and hello.json written after verification")
	return nil
}

func demoHead(ctx context.Context, d *demo) error {
	d.title("A HEAD: the same Repr-Digest, and Content-Digest of empty content (RFC 9530 B.2)")
	code, _, stderr, _ := d.run(ctx, "get", "-I", "-v", d.base+"hello.json")
	for _, h := range headers(stderr, "Repr-Digest", "Content-Digest") {
		d.say("got", "%s", h)
	}
	d.say("verdict", "%s", verdict(stderr))
	d.expect(code == 0, "exit 0")
	return nil
}

func demoRange(ctx context.Context, d *demo) error {
	d.title("A range: Content-Digest covers the 9 bytes sent, Repr-Digest still the whole (RFC 9530 B.3)")
	code, stdout, stderr, _ := d.run(ctx, "get", "-v", "--no-cache", "-H", "Range: bytes=10-18", d.base+"hello.json")
	for _, h := range headers(stderr, "Content-Range", "Repr-Digest", "Content-Digest") {
		d.say("got", "%s", h)
	}
	d.say("body", "%q", stdout)
	d.say("verdict", "%s", verdict(stderr))
	d.expect(code == 0 && stdout == "\"world\"}\n", "exit 0 and the 9 bytes")
	return nil
}

func demoCorrupt(ctx context.Context, d *demo) error {
	d.title("An origin that flips one byte in transit: caught, and nothing is written")
	bad, err := d.startOrigin(ctx, "faulty origin", []server.Option{server.WithFlippedByte(5)})
	if err != nil {
		return err
	}
	out := filepath.Join(d.work, "app.js")
	if err := os.WriteFile(out, []byte("the old app.js\n"), 0o644); err != nil {
		return err
	}
	code, _, stderr, _ := d.run(ctx, "get", "--no-cache", "-o", out, bad+"app.js")
	d.say("asked", "GET /app.js -o %s (the file already exists)", filepath.Base(out))
	d.say("verdict", "%s", verdict(stderr))
	b, _ := os.ReadFile(out)
	_, partErr := os.Stat(fetch.Beside(out, fetch.PartSuffix))
	d.expect(code == 1 && string(b) == "the old app.js\n" && os.IsNotExist(partErr) && strings.Contains(stderr, "mismatch"),
		"exit 1, the old app.js untouched, no part file left")
	return nil
}

func demoDelta(ctx context.Context, d *demo) error {
	d.title("A changed file comes as a delta (RFC 3229 226 IM Used) and is proven by Repr-Digest")
	out := filepath.Join(d.work, "lib.js")
	code, stdout, stderr, _ := d.run(ctx, "get", "--json", "--cache-dir", d.cache, "-o", out, d.base+"lib.js")
	v := parseVerdict(stdout)
	d.etag = v.ETag
	d.say("first", "200, %s received, kept as a base version (ETag %s)", humanBytes(v.Transfer.Received), v.ETag)
	if code != 0 {
		d.expect(false, "the first fetch to succeed: "+verdict(stderr))
		return nil
	}
	if err := os.WriteFile(filepath.Join(d.dir, "lib.js"), demoScript(2), 0o644); err != nil {
		return err
	}
	d.say("change", "the origin's lib.js changes in a few scattered lines")
	code, stdout, stderr, took := d.run(ctx, "get", "--json", "--cache-dir", d.cache, "-o", out, d.base+"lib.js")
	v = parseVerdict(stdout)
	d.say("asked", "GET /lib.js with A-IM: %s and If-None-Match: %s", "vcdiff, gdiff;q=0.8, diffe;q=0.5, gzip;q=0.3", d.etag)
	d.say("got", "%d, IM: %s, Delta-Base: %s, %s of delta for a %s file", v.Status, strings.Join(v.Transfer.IM, ", "),
		v.Transfer.DeltaBase, humanBytes(v.Transfer.Received), humanBytes(v.Bytes))
	d.say("verdict", "%s [%s]", verdict(stderr), took.Round(1e6))
	b, _ := os.ReadFile(out)
	d.expect(code == 0 && v.Status == 226 && string(b) == string(demoScript(2)) && v.Transfer.Received*10 < v.Bytes,
		"a 226 of under a tenth of the file, rebuilt and verified")
	code, stdout, _, _ = d.run(ctx, "get", "--json", "--cache-dir", d.cache, "-o", out, d.base+"lib.js")
	v = parseVerdict(stdout)
	d.say("again", "%d: %s received; the cached copy was re-verified", v.Status, humanBytes(v.Transfer.Received))
	d.expect(code == 0 && v.Transfer.Strategy == "not-modified", "a 304 and no body bytes")
	return nil
}

func demoParallel(ctx context.Context, d *demo) error {
	d.title("A larger file in parallel Range pieces, proven whole by Repr-Digest as the pieces land")
	out := filepath.Join(d.work, "big.bin")
	code, stdout, stderr, took := d.run(ctx, "get", "--json", "--no-cache", "--parallel", "4", "-o", out, d.base+"big.bin")
	v := parseVerdict(stdout)
	d.say("asked", "GET /big.bin, then Range pieces with If-Range: %s", v.ETag)
	d.say("got", "%d pieces over 4 connections, %s, each 206 checked against its own Content-Digest", v.Transfer.Pieces, humanBytes(v.Bytes))
	d.say("verdict", "%s [%s]", verdict(stderr), took.Round(1e6))
	st, err := os.Stat(out)
	d.expect(code == 0 && v.Transfer.Strategy == "ranges" && v.Transfer.Pieces > 1 && err == nil && st.Size() == 24<<20,
		"several pieces, one verified 24 MiB file")
	return nil
}

func demoCheck(ctx context.Context, d *demo) error {
	d.title("hdig check audits the origin as a CI gate would, a delta from the old lib.js included")
	runs := [][]string{{"check", d.base + "hello.json", d.base + "app.js"}}
	if d.etag != "" {
		// The -o file was replaced by the new version, so the old one's
		// bytes come from a file for check to rebuild the delta.
		old := filepath.Join(d.work, "lib.js.v1")
		if err := os.WriteFile(old, demoScript(1), 0o644); err != nil {
			return err
		}
		runs = append(runs, []string{"check", "--base-etag", d.etag, "--base", old, d.base + "lib.js"})
	}
	ok := true
	for _, args := range runs {
		code, stdout, stderr, took := d.run(ctx, args...)
		for _, l := range strings.Split(stdout, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "http") || strings.Contains(l, "delta.226") {
				d.say("check", "%s", l)
			}
			if strings.Contains(l, "passed,") && !strings.Contains(l, "checked:") {
				d.say("", "%s [%s]", l, took.Round(1e6))
			}
		}
		if code != 0 {
			ok = false
			d.say("stderr", "%s", strings.TrimSpace(stderr))
		}
	}
	d.expect(ok, "every check passed or skipped (exit 0)")
	return nil
}

// parseVerdict reads hdig get --json output; a failure leaves it empty.
func parseVerdict(s string) jsonVerdict {
	var v jsonVerdict
	json.Unmarshal([]byte(s), &v)
	return v
}
