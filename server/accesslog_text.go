package server

import (
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// WithAccessLog sends the access log's request lines to w, one Write per
// line, formatted by hand exactly as slog.NewTextHandler(w, nil) would
// format them (time, level, msg and the same fields), without building a
// slog.Record per request. Without it, they go to the logger (WithLogger).
func WithAccessLog(w io.Writer) Option {
	return func(c *config) error {
		c.accessOut = w
		return nil
	}
}

// accessLine is one request's fields in the access log.
type accessLine struct {
	method, path, remote string
	status               int
	bytes                int64
	dur                  time.Duration
	aborted              bool
}

// linePool holds the buffers lines are formatted in.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// writeAccessLine formats l at time t and writes it to w in one Write.
func writeAccessLine(w io.Writer, t time.Time, l *accessLine) {
	bp := linePool.Get().(*[]byte)
	b := appendAccessLine((*bp)[:0], t, l)
	w.Write(b)
	if cap(b) <= 4<<10 {
		*bp = b
		linePool.Put(bp)
	}
}

// appendAccessLine appends the line slog's TextHandler writes for the
// record "request" at Info level with l's attributes.
func appendAccessLine(b []byte, t time.Time, l *accessLine) []byte {
	b = append(b, "time="...)
	b = appendMillis(b, t)
	b = append(b, " level=INFO msg=request method="...)
	b = appendTextString(b, l.method)
	b = append(b, " path="...)
	b = appendTextString(b, l.path)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, " dur="...)
	b = append(b, l.dur.String()...)
	b = append(b, " remote="...)
	b = appendTextString(b, l.remote)
	b = append(b, " aborted="...)
	b = strconv.AppendBool(b, l.aborted)
	return append(b, '\n')
}

// appendMillis is slog's time format: RFC 3339 with exactly three
// fractional digits, in t's location. The date, time of day and zone of
// the second are formatted once per second (lastSecond): a busy server
// writes many lines in each.
func appendMillis(b []byte, t time.Time) []byte {
	c := lastSecond.Load()
	if c == nil || c.sec != t.Unix() || c.loc != t.Location() {
		if y := t.Year(); y < 0 || y > 9999 {
			return appendMillisFormat(b, t) // not 4 digits of year
		}
		s := t.Format(time.RFC3339)
		c = &secondText{sec: t.Unix(), loc: t.Location(), date: s[:19], zone: s[19:]}
		lastSecond.Store(c)
	}
	ms := t.Nanosecond() / 1e6
	b = append(b, c.date...)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, c.zone...)
}

// secondText is one second of appendMillis's format in one location:
// "2006-01-02T15:04:05" and the zone ("Z", "+01:00").
type secondText struct {
	sec        int64
	loc        *time.Location
	date, zone string
}

var lastSecond atomic.Pointer[secondText]

// appendMillisFormat is appendMillis by time.Format alone.
func appendMillisFormat(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Round(0).Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}

// appendTextString appends s as slog's TextHandler does: bare when it
// needs no quoting, else Go-quoted.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textNeedsQuoting is slog's rule: an empty string, a space, '=', '"',
// an ASCII control byte, invalid UTF-8 or a non-printing or space rune.
func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
