package check

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
	"github.com/hdig/hdig/verify"
)

// zsyncFaultOrigin serves files with a clean reference origin, and its
// control files with one built with opts: the file's responses are right,
// only the control file's are faulty.
func zsyncFaultOrigin(t *testing.T, opts ...server.Option) string {
	t.Helper()
	dir := servertest.WriteFiles(t, files)
	clean, err := server.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	faulty, err := server.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			faulty.Handler().ServeHTTP(w, r)
			return
		}
		clean.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); clean.Close(); faulty.Close() })
	return ts.URL
}

// A control file whose own Repr-Digest, Content-Digest, Content-MD5 or
// field outside RFC 9530 does not match its bytes is one hdig get --zsync
// refuses (the control file's response is verified as any other): the
// check must fail it, not pass it because the bytes parse and describe the
// file.
func TestZsyncControlOwnDigestsCompared(t *testing.T) {
	for _, field := range []string{verify.ReprDigest, verify.ContentDigest} {
		t.Run(field, func(t *testing.T) {
			rep := auditURL(t, zsyncFaultOrigin(t, server.WithWrongDigest(field))+"/doc.txt", Options{})
			got := result(rep, "zsync.control")
			if got.Status != Fail || !strings.Contains(got.Message, field) {
				t.Errorf("zsync.control = %s (%s), want fail naming %s: the control file's %s is wrong", got.Status, got.Message, field, field)
			}
		})
	}
	outside := outsideReprValues("not the control file")
	outside[verify.ContentMD5] = b64Of("md5", "not the control file")
	outside[verify.LegacyDigest] = "SHA-256=" + b64Of("sha-256", "not the control file")
	for name, wrong := range outside {
		t.Run(name, func(t *testing.T) {
			rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
				if strings.HasSuffix(r.URL.Path, ".zsync") {
					h.Set(name, wrong)
				}
				return body
			}))+"/doc.txt", Options{})
			got := result(rep, "zsync.control")
			if got.Status != Fail || !strings.Contains(got.Message, name) {
				t.Errorf("zsync.control = %s (%s), want fail naming %s", got.Status, got.Message, name)
			}
		})
	}
	// The clean origin's control file passes, its digests compared.
	rep := auditURL(t, zsyncFaultOrigin(t)+"/doc.txt", Options{})
	if got := result(rep, "zsync.control"); got.Status != Pass {
		t.Errorf("zsync.control = %s (%s), want pass", got.Status, got.Message)
	}
}
