package check

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// mpPart is one part an answer to two ranges sends: its range and bytes.
type mpPart struct {
	first, last int64
	b           string
	digest      string // a Content-Digest field of its own, if set
}

// answerRanges serves doc.txt from the reference origin, but answers a
// request for several ranges with answer(doc, asked).
func answerRanges(answer func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rg := r.Header.Get("Range")
			if !strings.Contains(rg, ",") {
				next.ServeHTTP(w, r)
				return
			}
			asked, err := httpfield.ParseRanges(rg)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			answer(w, files[strings.TrimPrefix(r.URL.Path, "/")], asked)
		})
	}
}

// sendParts writes a 206 multipart/byteranges body of parts.
func sendParts(w http.ResponseWriter, total int, parts []mpPart) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		h := textproto.MIMEHeader{"Content-Type": {"text/plain"}, "Content-Range": {fmt.Sprintf("bytes %d-%d/%d", p.first, p.last, total)}}
		if p.digest != "" {
			h.Set(verify.ContentDigest, p.digest)
		}
		pw, _ := mw.CreatePart(h)
		pw.Write([]byte(p.b))
	}
	mw.Close()
	w.Header().Set("Content-Type", "multipart/byteranges; boundary="+mw.Boundary())
	w.WriteHeader(http.StatusPartialContent)
	w.Write(body.Bytes())
}

// partOf is the part of doc for r, asked and sent as it is.
func partOf(doc string, r httpfield.ByteRange) mpPart {
	return mpPart{first: r.First, last: r.Last, b: doc[r.First : r.Last+1]}
}

// hdig check asked for no several ranges at once, so multipart/byteranges
// answers, which hdig get -r A,B verifies, went unaudited. range.multipart
// asks for two and judges the answer as hdig get does.
func TestRangeMultipart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange)
		file   string // "/doc.txt" when ""
		opt    []server.Option
		want   Status
		hint   string
	}{
		{name: "reference origin", want: Pass, hint: "2 parts in the order asked"},
		{name: "no ranges offered", opt: []server.Option{server.WithIgnoreRange()}, want: Skip, hint: "offers no ranges"},
		{name: "parts out of order", answer: func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange) {
			sendParts(w, len(doc), []mpPart{partOf(doc, asked[1]), partOf(doc, asked[0])})
		}, want: Fail, hint: "in the order asked"},
		{name: "a part of other bytes", answer: func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange) {
			p := partOf(doc, asked[1])
			p.b = strings.Repeat("x", len(p.b))
			sendParts(w, len(doc), []mpPart{partOf(doc, asked[0]), p})
		}, want: Fail, hint: "differs from those bytes"},
		{name: "a range left out", answer: func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange) {
			sendParts(w, len(doc), []mpPart{partOf(doc, asked[0])})
		}, want: Fail, hint: "left out"},
		{name: "a part's own Content-Digest wrong", answer: func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange) {
			p := partOf(doc, asked[1])
			p.digest = "sha-256=:" + b64Of("sha-256", "other") + ":"
			sendParts(w, len(doc), []mpPart{partOf(doc, asked[0]), p})
		}, want: Fail, hint: "Content-Digest"},
		{name: "the body's Content-Digest wrong", answer: func(w http.ResponseWriter, doc string, asked []httpfield.ByteRange) {
			w.Header().Set(verify.ContentDigest, "sha-256=:"+b64Of("sha-256", "other")+":")
			sendParts(w, len(doc), []mpPart{partOf(doc, asked[0]), partOf(doc, asked[1])})
		}, want: Fail, hint: "content as sent"},
		{name: "one part coalescing both across a small gap", file: "/blob.bin", answer: coalesceBoth, want: Pass, hint: "coalescing both"},
		// doc.txt's two ranges are 2.5 KiB apart: more than sending them
		// apart would cost (RFC 9110 §14.6), and hdig get -r refuses it.
		{name: "one part coalescing both across a large gap", answer: coalesceBoth, want: Fail, hint: "bytes not asked for"},
		{name: "the whole in a 200", answer: func(w http.ResponseWriter, doc string, _ []httpfield.ByteRange) {
			w.Write([]byte(doc))
		}, want: Pass, hint: "whole representation"},
		{name: "other bytes in a 200", answer: func(w http.ResponseWriter, doc string, _ []httpfield.ByteRange) {
			w.Write([]byte(strings.ToUpper(doc)))
		}, want: Fail, hint: "not the representation"},
	} {
		var wrap func(http.Handler) http.Handler
		if tc.answer != nil {
			wrap = answerRanges(tc.answer)
		}
		file := tc.file
		if file == "" {
			file = "/doc.txt"
		}
		rep := auditURL(t, newOrigin(t, wrap, tc.opt...)+file, Options{})
		if got := result(rep, "range.multipart"); got.Status != tc.want || !strings.Contains(got.Message, tc.hint) {
			t.Errorf("%s: range.multipart = %s (%s), want %s containing %q", tc.name, got.Status, got.Message, tc.want, tc.hint)
		}
	}
}

// coalesceBoth answers the two ranges asked with one part holding both and
// the bytes between them.
func coalesceBoth(w http.ResponseWriter, doc string, asked []httpfield.ByteRange) {
	first, last := asked[0].First, asked[1].Last
	w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(doc)))
	w.WriteHeader(http.StatusPartialContent)
	w.Write([]byte(doc[first : last+1]))
}
