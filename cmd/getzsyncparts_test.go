package cmd

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// partsOrigin answers a request for several ranges as RFC 9110 allows a
// server to: only the first range, as a plain 206 (firstOnly), or every
// range in a multipart body in reverse order (reversed).
type partsOrigin struct {
	body, ctl []byte
	firstOnly bool
}

func (o *partsOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !atFile(w, r, o.ctl) {
		return
	}
	w.Header().Set("ETag", `"v1"`)
	specs := strings.Split(strings.TrimPrefix(r.Header.Get("Range"), "bytes="), ",")
	if len(specs) < 2 {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.body))
		return
	}
	if o.firstOnly {
		r.Header.Set("Range", "bytes="+specs[0])
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.body))
		return
	}
	slices.Reverse(specs)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, s := range specs {
		a, b, _ := strings.Cut(s, "-")
		first, _ := strconv.Atoi(a)
		last, _ := strconv.Atoi(b)
		p, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Range": {fmt.Sprintf("bytes %d-%d/%d", first, last, len(o.body))}})
		p.Write(o.body[first : last+1])
	}
	mw.Close()
	w.Header().Set("Content-Type", "multipart/byteranges; boundary="+mw.Boundary())
	w.WriteHeader(http.StatusPartialContent)
	w.Write(buf.Bytes())
}

// TestGetZsyncPartsAsSent: the bytes of a range response go where its
// Content-Range says, not where the order of the ranges asked would put
// them, and ranges an answer left out are asked for again: an origin that
// sends multipart parts in another order, or one range of several, is
// not a corrupt origin (zsync 0.6.2 places each part by its
// Content-Range and asks again for what is still missing).
func TestGetZsyncPartsAsSent(t *testing.T) {
	for _, firstOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("firstOnly=%v", firstOnly), func(t *testing.T) {
			o := &partsOrigin{firstOnly: firstOnly}
			s := &singleRangeOrigin{}
			_, seed, out := singleRangeSetup(t, s)
			o.body, o.ctl = s.body, s.ctl
			ts := httptest.NewServer(o)
			defer ts.Close()
			code, _, errOut := runHdig(t, "get", "--no-cache", "--zsync", "--seed", seed, "-o", out, ts.URL+"/f.zsync")
			if code != ExitOK {
				t.Fatalf("hdig get --zsync = %d, %q; want 0", code, errOut)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, o.body) {
				t.Fatal("rebuilt file differs")
			}
		})
	}
}
