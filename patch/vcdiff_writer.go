package patch

import (
	"errors"
	"fmt"
	"io"
)

// windowWriter writes decoded windows on its own goroutine, one at a time,
// so that the next window decodes on one core while the last is written
// (and hashed, when out hashes) on the other. A window's buffer is not
// reused until its write is done: release waits for it.
type windowWriter struct {
	out     io.Writer
	jobs    chan []byte
	done    chan error // capacity 1: the goroutine never waits to report
	busy    []byte     // the window being written, if pending
	n       int        // its window number
	pending bool
}

// put hands window n's bytes to the writer, after the write before it.
func (w *windowWriter) put(t []byte, n int) error {
	if err := w.wait(); err != nil {
		return err
	}
	if w.jobs == nil {
		w.jobs, w.done = make(chan []byte), make(chan error, 1)
		go func() {
			for t := range w.jobs {
				w.done <- catch(func() error {
					_, err := w.out.Write(t)
					return err
				})
			}
		}()
	}
	w.jobs <- t
	w.busy, w.n, w.pending = t, n, true
	return nil
}

// wait waits for the write in progress and returns its error, naming its
// window.
func (w *windowWriter) wait() error {
	if !w.pending {
		return nil
	}
	w.busy, w.pending = nil, false
	if err := rethrow(<-w.done); err != nil {
		return &windowError{w.n, err}
	}
	return nil
}

// panicked carries a panic from a helper goroutine (a writer's, a
// secondary decoder's) to the caller's, where it is raised again: a panic
// stays the caller's to recover, as when everything ran on its goroutine.
type panicked struct{ v any }

func (p *panicked) Error() string { return fmt.Sprint("panic: ", p.v) }

// catch runs f, turning a panic into a *panicked error.
func catch(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicked{v}
		}
	}()
	return f()
}

// rethrow panics again with the value of a *panicked in err's chain.
func rethrow(err error) error {
	if p, ok := errors.AsType[*panicked](err); ok {
		panic(p.v)
	}
	return err
}

// windowError is an error of writing a window, which names it.
type windowError struct {
	n   int
	err error
}

func (e *windowError) Error() string { return fmt.Sprintf("vcdiff window %d: %v", e.n, e.err) }
func (e *windowError) Unwrap() error { return e.err }

// release waits for the write in progress if it is of buf's memory.
func (w *windowWriter) release(buf []byte) error {
	if w.pending && cap(buf) > 0 && cap(w.busy) > 0 && &buf[:1][0] == &w.busy[:1][0] {
		return w.wait()
	}
	return nil
}

// stop waits for the write in progress and ends the goroutine.
func (w *windowWriter) stop() {
	w.wait()
	if w.jobs != nil {
		close(w.jobs)
	}
}
