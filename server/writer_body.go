package server

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/hdig/hdig/verify"
)

// Write passes p on, through the filters when any is active.
func (w *bodyWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.failed {
		return 0, errAborted
	}
	if err := w.sendPreamble(); err != nil {
		return 0, err
	}
	return w.write(p)
}

func (w *bodyWriter) write(p []byte) (int, error) {
	if !w.filtered {
		return w.ResponseWriter.Write(p)
	}
	return w.filter(p)
}

// sendPreamble sends a multipart body's leading CRLF once, through the
// same stages as the body (it is content: hashed, held, counted).
func (w *bodyWriter) sendPreamble() error {
	if !w.preamble {
		return nil
	}
	w.preamble = false
	_, err := w.write([]byte(multipartPreamble))
	return err
}

// ReadFrom keeps net/http's sendfile path when nothing needs to see the
// bytes; io.CopyN in ServeContent lands here.
func (w *bodyWriter) ReadFrom(src io.Reader) (int64, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.failed {
		return 0, errAborted
	}
	if err := w.sendPreamble(); err != nil {
		return 0, err
	}
	if !w.filtered {
		if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
			if n, err, ok := sendFile(w, rf, src); ok {
				return n, err
			}
			return rf.ReadFrom(src)
		}
	}
	return io.Copy(writerOnly{w}, src)
}

// writerOnly hides ReadFrom so io.Copy uses Write.
type writerOnly struct{ io.Writer }

// filter is the first stage: hash the true bytes for a streamed
// Content-Digest, invert the faulty byte, then hold (multipart) or send.
func (w *bodyWriter) filter(p []byte) (int, error) {
	if w.hasher != nil {
		w.hasher.Write(p)
	}
	out := p
	if w.flipAt >= w.seen && w.flipAt < w.seen+int64(len(p)) {
		out = append([]byte(nil), p...)
		out[w.flipAt-w.seen] ^= 0xff
	}
	w.seen += int64(len(p))
	if w.buf != nil {
		return w.buf.Write(out)
	}
	if err := w.send(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// send is the second stage: rate limit and truncation.
func (w *bodyWriter) send(p []byte) error {
	for len(p) > 0 || w.truncAt == w.sent {
		c := p
		if n := w.rateChunk(); n > 0 && len(c) > n {
			c = c[:n]
		}
		if w.truncAt >= 0 && int64(len(c)) > w.truncAt-w.sent {
			c = c[:w.truncAt-w.sent]
		}
		if _, err := w.ResponseWriter.Write(c); err != nil {
			return err
		}
		w.sent += int64(len(c))
		p = p[len(c):]
		if w.truncAt >= 0 && w.sent >= w.truncAt {
			w.abort()
		}
		w.throttle()
	}
	return nil
}

// rateChunk is the write size under WithRateLimit (0: unlimited): about
// 20 writes a second.
func (w *bodyWriter) rateChunk() int {
	rate := w.s.cfg.faults.rate
	if rate <= 0 {
		return 0
	}
	return int(min(max(rate/20, 1), 32<<10))
}

// throttle sleeps until the bytes sent fit the rate.
func (w *bodyWriter) throttle() {
	rate := w.s.cfg.faults.rate
	if rate <= 0 {
		return
	}
	due := time.Duration(float64(w.sent) / float64(rate) * float64(time.Second))
	if d := due - time.Since(w.start); d > 0 {
		http.NewResponseController(w.ResponseWriter).Flush()
		if !w.s.cfg.sleep(w.r.Context(), d) {
			panic(http.ErrAbortHandler)
		}
	}
}

// abort flushes what was sent and drops the connection: the client sees a
// body shorter than announced.
func (w *bodyWriter) abort() {
	http.NewResponseController(w.ResponseWriter).Flush()
	panic(http.ErrAbortHandler)
}

// finish completes a streamed Content-Digest, releases a held multipart
// body and sets the trailer values.
func (w *bodyWriter) finish() {
	if w.failed || !w.wroteHeader {
		return
	}
	h := w.Header()
	if w.rep.stream && w.status == http.StatusOK {
		w.finishStream()
	}
	if w.hasher != nil {
		v := w.plan.formatContent(w.hasher.Sums())
		if w.cdTrailer {
			if w.trailers == nil {
				w.trailers = map[string]string{}
			}
			w.trailers[verify.ContentDigest] = v
		} else {
			h.Set(verify.ContentDigest, v)
		}
	}
	if w.buf != nil {
		buf := w.buf
		w.buf = nil
		w.ResponseWriter.WriteHeader(w.status)
		if w.send(buf.Bytes()) != nil {
			return
		}
	}
	for k, v := range w.trailers {
		h.Set(k, v)
	}
}

// close stops the hasher's goroutines and returns the held memory, also
// after an abort.
func (w *bodyWriter) close() {
	if w.hasher != nil {
		w.hasher.Close()
	}
	w.buf = nil
	w.s.held.release(w.held)
	w.held = 0
	w.releaseHashing()
}

// maxHeldMemory bounds the multipart bodies all requests together hold in
// memory to send their Content-Digest as a header; a request that does not
// fit gets it as a trailer instead. Without it, concurrent multi-range
// requests would each hold up to WithHeaderDigestLimit (64 MiB).
const maxHeldMemory = 128 << 20

// memBudget is a byte budget shared by concurrent requests.
type memBudget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// reserve takes n bytes if they fit, without waiting.
func (b *memBudget) reserve(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

func (b *memBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

func (b *memBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
