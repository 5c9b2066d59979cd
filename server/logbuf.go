package server

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// LogWriter buffers log lines for w: one write system call per 32 KiB or
// per flush interval instead of one per request. Close flushes what is
// left; lines are never split.
type LogWriter struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// logFlushEvery is how long a log line may wait in the buffer.
const logFlushEvery = 200 * time.Millisecond

// NewLogWriter starts a LogWriter on w.
func NewLogWriter(w io.Writer) *LogWriter {
	l := &LogWriter{buf: bufio.NewWriterSize(w, 32<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go l.flusher()
	return l
}

// Write buffers p, a whole line as slog writes it.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Available() < len(p) {
		l.buf.Flush()
	}
	return l.buf.Write(p)
}

// Flush writes out what is buffered.
func (l *LogWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Flush()
}

// Close stops the flusher and flushes.
func (l *LogWriter) Close() error {
	close(l.stop)
	<-l.done
	return l.Flush()
}

func (l *LogWriter) flusher() {
	defer close(l.done)
	t := time.NewTicker(logFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			l.Flush()
		case <-l.stop:
			return
		}
	}
}
