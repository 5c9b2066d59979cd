package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// multiFlags are curl's flags for several URLs in one command. curl's
// --parallel is -Z here: hdig's --parallel N already means range pieces.
type multiFlags struct {
	Parallel    bool
	ParallelMax int
}

func (m *multiFlags) add(f *pflag.FlagSet) {
	f.BoolVarP(&m.Parallel, "parallel-urls", "Z", false, "with several URLs, fetch them concurrently (curl's -Z; its --parallel is range pieces here; needs -O)")
	f.IntVar(&m.ParallelMax, "parallel-max", 50, "with -Z, at most `N` transfers at a time (1 to 300)")
}

// schemeless gives a URL without "scheme://" curl's default, http://.
func schemeless(u string) string {
	if strings.Contains(u, "://") {
		return u
	}
	return "http://" + u
}

// runGets fetches each URL with the same flags, one verdict line each: one
// after another, or with -Z up to --parallel-max at a time. The exit status
// is multiExit's: 1 when any URL mismatched, else that of the first URL,
// in command-line order, that failed.
func runGets(c *cobra.Command, ios *IOStreams, o *getOptions, urls []string) error {
	if f, ok := ios.Out.(*os.File); o.Output == "-" || ok && fetch.NamesOpen(o.Output, f) {
		o.Output = "" // curl's -o -, or -o /dev/stdout: stdout, held until verified
	}
	if err := o.Req.openJar(); err != nil {
		return err
	}
	if err := o.clash(o.Out.within(o.Output)); err != nil { // before -D empties its file; -O's names: resolveOutput
		return err
	}
	if err := o.Out.startDump(); err != nil {
		return err
	}
	err := runEach(c, ios, o, urls)
	if jerr := o.Req.saveJar(ios.Out); jerr != nil && ExitCode(err) == ExitOK {
		return jerr
	}
	return err
}

// runEach fetches the URLs.
func runEach(c *cobra.Command, ios *IOStreams, o *getOptions, urls []string) error {
	if len(urls) == 1 {
		o.URL = urls[0]
		return runGet(c, ios, o)
	}
	switch {
	case o.Output != "":
		return usageErrorf("-o names one file; with %d URLs use -O (and --output-dir)", len(urls))
	case len(o.Mirr.Mirrors) > 0:
		return usageErrorf("--mirror names mirrors of one file; got %d URLs", len(urls))
	case o.Multi.ParallelMax < 1 || o.Multi.ParallelMax > 300:
		return usageErrorf("--parallel-max %d: want 1 to 300", o.Multi.ParallelMax)
	case o.Multi.Parallel && !o.RemoteName:
		return usageErrorf("-Z needs -O: concurrent bodies cannot share stdout")
	}
	if name := o.bodyReadOnce(); name != "" {
		return usageErrorf("the request body reads %s, which can be read for one URL only", name)
	}
	if o.Multi.Parallel && !o.Out.RemoteHeaderName {
		// Two transfers into one FILE.hdig-part at once could rename one's
		// bytes onto FILE as the other's verified result.
		seen := map[string]string{}
		for _, u := range urls {
			name, err := remoteName(schemeless(u))
			if err != nil {
				continue // runGet reports it
			}
			if prev, ok := seen[name]; ok {
				return usageErrorf("-Z: %s and %s both write %s; fetch them one at a time or name them apart", httpfield.Redact(prev), httpfield.Redact(u), name)
			}
			seen[name] = u
		}
	}
	width := 1
	if o.Multi.Parallel {
		width = o.Multi.ParallelMax
	}
	shared := &IOStreams{In: ios.In, Out: &lockedWriter{w: ios.Out}, ErrOut: &lockedWriter{w: ios.ErrOut},
		StdoutTTY: ios.StdoutTTY, StderrTTY: ios.StderrTTY && !o.Multi.Parallel}
	errs := make([]error, len(urls))
	sem := make(chan struct{}, width)
	var wg sync.WaitGroup
	for i, u := range urls {
		one := *o
		one.URL, one.label = u, httpfield.Redact(schemeless(u))+": "
		if o.Out.RemoteHeaderName {
			one.jSlot = fmt.Sprintf("%d.", i+1)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = runGet(c, shared, &one)
			if errs[i] != nil && ExitCode(errs[i]) != ExitOK && !quietError(errs[i]) && (!o.Silent || o.Out.ShowError) {
				linef(shared.ErrOut, "hdig: %s: %v", httpfield.Redact(schemeless(u)), errs[i])
			}
		}()
	}
	wg.Wait()
	return exitSilently(multiExit(errs))
}

// lockedWriter lets concurrent transfers share a stream, one write at a
// time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// quietError says err was already reported (or hidden by -s).
func quietError(err error) bool {
	var se *silentError
	return errors.As(err, &se)
}

// multiExit is the exit status of several transfers: an integrity failure
// (1) of any of them first, so that a network error of one URL never hides
// a mismatch of another; else the first other failure in command-line order.
func multiExit(errs []error) int {
	first := ExitOK
	for _, err := range errs {
		switch code := ExitCode(err); {
		case code == ExitIntegrity:
			return code
		case code != ExitOK && first == ExitOK:
			first = code
		}
	}
	return first
}
