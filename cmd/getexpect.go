package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
	"github.com/spf13/pflag"
)

// Field names of the user's digests in the verdict and --json.
const (
	expectField       = "--expect"
	checksumFileField = "--checksum-file"
)

// expectFlags are hdig get's digests from the user and the flag that asks
// Amazon S3 for its checksums.
type expectFlags struct {
	Expect       []string
	ExpectAlg    string
	ChecksumFile string
	AmzChecksum  bool
}

func (e *expectFlags) add(f *pflag.FlagSet) {
	f.StringArrayVar(&e.Expect, "expect", nil, "a `DIGEST` of the bytes written that you trust (repeatable): sha-256=:b64:, SRI sha384-b64 (npm integrity), OCI sha256:hex, or hex; with --compressed, of the decoded bytes")
	f.StringVar(&e.ExpectAlg, "expect-alg", "", "the `ALG` of bare hex digests in --expect and of untagged --checksum-file lines (default: from the length)")
	f.StringVar(&e.ChecksumFile, "checksum-file", "", "expect the entry for the output name (or the URL's last segment) in `FILE|URL`, sha256sum or BSD-tag lines (exit 2 when it has none)")
	f.BoolVar(&e.AmzChecksum, "amz-checksum-mode", false, "send x-amz-checksum-mode: ENABLED so Amazon S3 sends x-amz-checksum-* (sent to *.amazonaws.com regardless)")
}

// conflicts refuses the user's digests on a request whose answer carries
// no content (-I, -X HEAD) or a part of the representation (-r, a Range
// header): nothing hdig computes could be compared with them, and a
// digest the user trusts is never left unchecked under exit 0 (curl's rule
// for flags that cannot work together: a usage error).
func (e *expectFlags) conflicts(o *getOptions, req *fetch.Request) error {
	var flag string
	switch {
	case len(e.Expect) > 0:
		flag = expectField
	case e.ChecksumFile != "":
		flag = checksumFileField
	default:
		return nil
	}
	switch {
	case o.Head:
		return usageErrorf("-I and %s cannot be combined: a HEAD response has no body to compare the digest with", flag)
	case strings.EqualFold(req.Method, http.MethodHead):
		return usageErrorf("-X HEAD and %s cannot be combined: a HEAD response has no body to compare the digest with", flag)
	case req.Partial():
		return usageErrorf("%s and %s cannot be combined: the digest covers the whole file, a range brings a part of it", o.rangeName(), flag)
	}
	return nil
}

// resolve parses the user's digests, fetching the checksum file with
// client when it is a URL, into req.Expected. Each says on stderr what an
// inferred algorithm was taken to be.
func (e *expectFlags) resolve(ctx context.Context, ios *IOStreams, o *getOptions, client *fetch.Client, req *fetch.Request) error {
	req.ChecksumMode = e.AmzChecksum
	if e.ExpectAlg != "" {
		if _, ok := verify.Find(strings.ToLower(e.ExpectAlg)); !ok {
			return usageErrorf("--expect-alg: unknown digest algorithm %q (known: %s)", e.ExpectAlg, strings.Join(verify.AllKeys(), ", "))
		}
		e.ExpectAlg = strings.ToLower(e.ExpectAlg)
	}
	var all []verify.Expected
	for _, s := range e.Expect {
		xs, err := verify.ParseExpected(s, e.ExpectAlg)
		if err != nil {
			return usageErrorf("--expect: %v", err)
		}
		all = append(all, xs...)
	}
	if err := verify.Conflicting(all); err != nil {
		return usageErrorf("--expect: %v", err)
	}
	req.Expected = append(req.Expected, e.fields(ios, o, expectField, all)...)
	if e.ChecksumFile == "" {
		return nil
	}
	xs, err := e.checksumEntries(ctx, ios, o, client, req)
	if err != nil {
		return err
	}
	if err := verify.Conflicting(append(all, xs...)); err != nil {
		return usageErrorf("--expect and --checksum-file: %v", err)
	}
	req.Expected = append(req.Expected, e.fields(ios, o, checksumFileField, xs)...)
	return nil
}

// fields groups digests into a trusted field, and an untrusted one for
// md5 or sha-1 inferred from the length of hex: checked (a mismatch
// fails), but proof only when named (--expect-alg, --accept). A deprecated
// algorithm the user named is proof of the bytes named, with a warning
// that it stops corruption, not a forger.
func (e *expectFlags) fields(ios *IOStreams, o *getOptions, name string, xs []verify.Expected) []verify.DigestField {
	trusted := verify.DigestField{Name: name, Present: true, Trusted: true}
	weak := verify.DigestField{Name: name, Present: true}
	for _, x := range xs {
		a, _ := verify.Find(x.Algorithm)
		if !x.Inferred {
			trusted.Digests = append(trusted.Digests, x.Digest)
			if a.Status == verify.Deprecated && !o.Silent {
				linef(ios.ErrOut, "warning: %s: %s is deprecated (RFC 9530 §5): a match shows the bytes are not corrupted, but %s does not resist a deliberate collision", name, a.Key, a.Key)
			}
			continue
		}
		msg := fmt.Sprintf("%s: %d hex digits read as %s (--expect-alg ALG names another)", name, 2*a.Size, a.Key)
		if a.Status == verify.Deprecated {
			msg += fmt.Sprintf("; checked, but proof only with --expect-alg %s or --accept %s", a.Key, a.Key)
			weak.Digests = append(weak.Digests, x.Digest)
		} else {
			trusted.Digests = append(trusted.Digests, x.Digest)
		}
		if !o.Silent {
			linef(ios.ErrOut, "warning: %s", msg)
		}
	}
	var out []verify.DigestField
	for _, f := range []verify.DigestField{trusted, weak} {
		if len(f.Digests) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// checksumEntries reads the checksum file and finds the entries for the
// output's name, else the URL's last segment. No entry is exit 2.
func (e *expectFlags) checksumEntries(ctx context.Context, ios *IOStreams, o *getOptions, client *fetch.Client, req *fetch.Request) ([]verify.Expected, error) {
	data, err := e.readChecksumFile(ctx, client, req)
	if err != nil {
		return nil, err
	}
	names := lookupNames(o)
	if len(names) == 0 {
		return nil, usageErrorf("--checksum-file: neither -o nor the URL names a file to look up")
	}
	es, err := verify.ChecksumEntries(data, names, e.ExpectAlg)
	if err != nil {
		if errors.Is(err, verify.ErrNoEntry) {
			return nil, usageErrorf("--checksum-file %s: %v (nothing was fetched)", e.ChecksumFile, err)
		}
		return nil, usageErrorf("--checksum-file %s: %v", e.ChecksumFile, err)
	}
	var out []verify.Expected
	for _, x := range es {
		out = append(out, verify.Expected{Digest: x.Digest, Form: "checksum file", Inferred: e.ExpectAlg == "" && !x.Tagged})
	}
	return out, nil
}

// lookupNames are the names an entry may have: the output's base name,
// then the URL's last path segment. With -J the output is a scratch name
// of hdig's until the response names the file, after the checksum file is
// read: the name looked up is -O's, the file's name without
// Content-Disposition (none for a URL without a file name).
func lookupNames(o *getOptions) []string {
	var names []string
	output := o.Output
	if o.Out.RemoteHeaderName {
		output = o.Out.remoteName
	}
	if output != "" && !o.special {
		names = append(names, filepath.Base(output))
	}
	if u, err := url.Parse(o.URL); err == nil {
		if b := lastSegment(u); b != "/" && b != "." && b != "" && (len(names) == 0 || names[0] != b) {
			names = append(names, b)
		}
	}
	return names
}

// readChecksumFile reads a local file or fetches a URL with the same
// client (TLS options, redirects), bounded to verify.MaxChecksumFile. The
// download's credentials go along only to the same origin.
func (e *expectFlags) readChecksumFile(ctx context.Context, client *fetch.Client, req *fetch.Request) ([]byte, error) {
	src := e.ChecksumFile
	if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
		f, err := os.Open(src)
		if err != nil {
			return nil, withExit(ExitUsage, fmt.Errorf("--checksum-file: %w", err))
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, verify.MaxChecksumFile+1))
		if err != nil {
			return nil, withExit(ExitUsage, fmt.Errorf("--checksum-file: %w", err))
		}
		return data, nil
	}
	// Who the user is goes along (not the request's conditions or ranges);
	// the client's credential rule keeps Authorization and Cookie from any
	// origin but req.URL's (fetch.CredentialsFor).
	creq := &fetch.Request{URL: src, Header: http.Header{}, Policy: req.Policy, Retry: req.Retry,
		Limits: fetch.Limits{MaxFileSize: verify.MaxChecksumFile, MaxRatio: -1}}
	for _, k := range []string{"Authorization", "Cookie", "User-Agent"} {
		if v := req.Header.Values(k); len(v) > 0 {
			creq.Header[k] = v
		}
	}
	ctx = fetch.CredentialsFor(ctx, req.URL)
	var buf bytes.Buffer
	if _, err := client.Do(ctx, creq, &fetch.HeldSink{Out: &buf}); err != nil {
		return nil, fmt.Errorf("--checksum-file %s: %w", src, err)
	}
	return buf.Bytes(), nil
}
