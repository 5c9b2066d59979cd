// Command mirrorsrv serves one directory from several loopback origins,
// each with its own faults, for bench/mirrors.sh: hdig serve keeps its
// fault injection out of the command line, so the benchmark's rate-limited
// mirrors and its liar are started here, with the server package's options.
//
//	mirrorsrv -dir DIR SPEC...
//
// Each SPEC starts one server: RATE[,flip=N][,dup] — RATE bytes per second
// per response (K, M suffixes, powers of 1024), flip=N inverts one byte at
// every multiple of N in each response, dup makes this server advertise
// all the others as Link rel=duplicate. One line per server goes to
// stdout, its URL, in order; it serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/hdig/hdig/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mirrorsrv:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) < 3 || args[0] != "-dir" {
		return fmt.Errorf("usage: mirrorsrv -dir DIR SPEC [SPEC...], SPEC = RATE[,flip=N][,dup]")
	}
	dir, specs := args[1], args[2:]
	lns := make([]net.Listener, len(specs))
	urls := make([]string, len(specs))
	for i := range specs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		lns[i], urls[i] = ln, "http://"+ln.Addr().String()+"/"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for i, spec := range specs {
		opts, err := options(spec, urls, i)
		if err != nil {
			return err
		}
		s, err := server.New(dir, opts...)
		if err != nil {
			return err
		}
		defer s.Close()
		srv := &http.Server{Handler: s.Handler()}
		go srv.Serve(lns[i])
		defer srv.Close()
		fmt.Println(urls[i])
	}
	<-ctx.Done()
	return nil
}

// options reads one SPEC; urls are every server's, i this one's.
func options(spec string, urls []string, i int) ([]server.Option, error) {
	parts := strings.Split(spec, ",")
	rate, err := size(parts[0])
	if err != nil {
		return nil, fmt.Errorf("%q: rate: %v", spec, err)
	}
	opts := []server.Option{server.WithRateLimit(rate)}
	for _, p := range parts[1:] {
		switch k, v, _ := strings.Cut(p, "="); k {
		case "flip":
			n, err := size(v)
			if err != nil {
				return nil, fmt.Errorf("%q: flip: %v", spec, err)
			}
			opts = append(opts, server.WithFlippedByteEvery(n))
		case "dup":
			var others []string
			for j, u := range urls {
				if j != i {
					others = append(others, u)
				}
			}
			opts = append(opts, server.WithDuplicates(others...))
		default:
			return nil, fmt.Errorf("%q: unknown %q", spec, p)
		}
	}
	return opts, nil
}

// size reads 123, 64K, 8M.
func size(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a positive number with an optional K or M", s)
	}
	return n * mult, nil
}
