package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
	"github.com/spf13/cobra"
)

func init() { register(newDemoCmd) }

// demoOptions are the flags of hdig demo.
type demoOptions struct {
	Keep bool
}

func newDemoCmd(ios *IOStreams) *cobra.Command {
	o := &demoOptions{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole story on an embedded origin on 127.0.0.1 and say what happened",
		Long: `Start the reference origin in-process on 127.0.0.1 over a temporary
directory of generated files, run hdig against it, and print in plain words
what was asked, what came back, and the verdicts.` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runDemo(c.Context(), ios, o) },
	}
	c.Flags().BoolVar(&o.Keep, "keep", false, "keep the temporary directory and print its path")
	return c
}

// demo holds the state of one demo run.
type demo struct {
	ios   *IOStreams
	cache string // base-version cache
	etag  string // lib.js's first ETag, for the check step
	dir   string // served files
	work  string // downloads and cache
	base  string // origin URL
	step  int
	fails int
}

func runDemo(ctx context.Context, ios *IOStreams, o *demoOptions) error {
	tmp, err := os.MkdirTemp("", "hdig-demo-")
	if err != nil {
		return err
	}
	if o.Keep {
		defer fmt.Fprintf(ios.ErrOut, "kept %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	d := &demo{ios: ios, dir: filepath.Join(tmp, "site"), work: filepath.Join(tmp, "work"), cache: filepath.Join(tmp, "cache")}
	if err := d.makeFiles(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	base, err := d.startOrigin(ctx, "origin", nil)
	if err != nil {
		return err
	}
	d.base = base
	fmt.Fprintf(ios.Out, "hdig demo: the reference origin serves %s at %s\n", d.dir, base)
	for _, step := range demoSteps {
		if err := step(ctx, d); err != nil {
			return err
		}
	}
	fmt.Fprintln(ios.Out)
	if d.fails > 0 {
		fmt.Fprintf(ios.Out, "%d step(s) did not turn out as expected.\n", d.fails)
		return exitSilently(ExitIntegrity)
	}
	fmt.Fprintln(ios.Out, "Every step turned out as expected.")
	return nil
}

// startOrigin serves d.dir on 127.0.0.1:0 in-process until ctx is done.
func (d *demo) startOrigin(ctx context.Context, name string, opts []server.Option) (string, error) {
	history, err := delta.New(filepath.Join(d.work, "state-"+name), delta.DefaultHistory, 0, nil)
	if err != nil {
		return "", fmt.Errorf("start %s: %w", name, err)
	}
	opts = append([]server.Option{server.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), server.WithDelta(history)}, opts...)
	srv, err := server.New(d.dir, opts...)
	if err != nil {
		return "", fmt.Errorf("start %s: %w", name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return "", fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		defer history.Close()
		defer srv.Close()
		srv.Serve(ctx, ln, nil)
	}()
	return "http://" + ln.Addr().String() + "/", nil
}

// makeFiles writes the demo's site: the RFC 9530 example, a text file that
// will change, and a larger binary file.
func (d *demo) makeFiles() error {
	for _, dir := range []string{d.dir, d.work} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	files := map[string][]byte{
		"hello.json": []byte("{\"hello\": \"world\"}\n"),
		"app.js":     demoScript(1),
		"lib.js":     demoScript(1),
		"big.bin":    demoBinary(24 << 20),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(d.dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// demoScript is a deterministic JavaScript-like text of about 256 KiB;
// version v differs from version 1 in a few scattered lines.
func demoScript(v int) []byte {
	var b bytes.Buffer
	for i := 0; i < 4000; i++ {
		n := i
		if v > 1 && i%997 == 0 {
			n = i * 1000003
		}
		fmt.Fprintf(&b, "export function f%d(x) { return x * %d + %d; } // generated line %d\n", i, n%97, n%89, i)
	}
	return b.Bytes()
}

// demoBinary is n deterministic pseudo-random bytes.
func demoBinary(n int) []byte {
	r := rand.New(rand.NewPCG(9530, 3229))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// run runs one hdig command in-process and returns its exit status and
// outputs, timing it.
func (d *demo) run(ctx context.Context, args ...string) (int, string, string, time.Duration) {
	ios, _, out, errOut := Test()
	start := time.Now()
	code := Run(ctx, ios, args)
	return code, out.String(), errOut.String(), time.Since(start)
}

// title starts a step.
func (d *demo) title(s string) {
	d.step++
	fmt.Fprintf(d.ios.Out, "\n%d. %s\n", d.step, s)
}

// say prints an indented line.
func (d *demo) say(label, format string, a ...any) {
	if label != "" {
		label += ":"
	}
	fmt.Fprintf(d.ios.Out, "   %-9s %s\n", label, fmt.Sprintf(format, a...))
}

// expect reports whether an outcome was the expected one.
func (d *demo) expect(ok bool, what string) {
	if ok {
		d.say("result", "as expected: %s", what)
		return
	}
	d.fails++
	d.say("result", "NOT as expected: wanted %s", what)
}

// verdict returns the verdict line from stderr of hdig get.
func verdict(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "✔") || strings.HasPrefix(l, "✖") || strings.HasPrefix(l, "⚠") {
			return l
		}
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "hdig: ") {
			return l
		}
	}
	return strings.TrimSpace(stderr)
}

// headers picks response header lines (from -v output) by name.
func headers(stderr string, names ...string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimPrefix(l, "< ")
		if strings.HasPrefix(l, "HTTP/") {
			out = append(out, l)
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(strings.ToLower(l), strings.ToLower(n)+":") {
				out = append(out, l)
			}
		}
	}
	return out
}
