package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/server"
)

// demoSteps are run in order; later features add their own.
var demoSteps = []func(context.Context, *demo) error{
	demoPlain,
	demoHead,
	demoRange,
	demoCorrupt,
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
	_, partErr := os.Stat(out + ".hdig-part")
	d.expect(code == 1 && string(b) == "the old app.js\n" && os.IsNotExist(partErr) && strings.Contains(stderr, "mismatch"),
		"exit 1, the old app.js untouched, no part file left")
	return nil
}
