package check

import (
	"bytes"
	"fmt"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/verify"
)

// checkDictionaryDecode decides dictionary.decode: the body decodes with
// the dictionary to the identity representation of the first GET.
func (a *audit) checkDictionaryDecode(ce string, body, dict []byte) ([]byte, bool) {
	id := "dictionary.decode"
	out, err := dictionary.Decode(ce, body, dict, dictionary.Limits{MaxOutput: a.opts.MaxBody})
	if err != nil {
		a.s.fail(id, fmt.Sprintf("the %s body does not decode with the dictionary: %v", ce, err))
		return nil, false
	}
	if a.full.capped || a.full.sums == nil {
		a.s.skip(id, fmt.Sprintf("the %s body decodes to %s, but the identity GET was larger than --max-body (%s), not hashed: nothing to compare it with", ce, bytesOf(int64(len(out))), bytesOf(a.opts.MaxBody)))
		return out, true
	}
	sums, _, err := verify.Sum(bytes.NewReader(out), []verify.Algorithm{sha256Of()})
	if err != nil {
		a.s.fail(id, err.Error())
		return out, true
	}
	want, _ := lookup(a.full.sums, "sha-256")
	if !bytes.Equal(sums[0].Value, want) {
		a.s.fail(id, fmt.Sprintf("the %s body decodes to %s with %s; want the identity's %s, %s", ce, bytesOf(int64(len(out))), member(sums[0]), bytesOf(a.full.size), member(verify.Digest{Algorithm: "sha-256", Value: want})))
		return out, true
	}
	a.s.pass(id, fmt.Sprintf("the %s body (%s) decodes to the identity's %s", ce, bytesOf(int64(len(body))), bytesOf(int64(len(out)))))
	return out, true
}

// checkUnencoded decides dictionary.unencoded: Unencoded-Digest
// (draft-ietf-httpbis-unencoded-digest) covers the decoded bytes.
func (a *audit) checkUnencoded(r *response, decoded []byte) {
	id, ce := "dictionary.unencoded", r.encoding()
	f := verify.ParseDigestField(verify.UnencodedDigest, r.values(verify.UnencodedDigest))
	switch {
	case !f.Present:
		a.s.skip(id, fmt.Sprintf("the %s response carries no Unencoded-Digest", ce))
		return
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("Unencoded-Digest is %s", malformed(f)))
		return
	}
	sums, _, err := verify.Sum(bytes.NewReader(decoded), verify.Algorithms)
	if err != nil {
		a.s.fail(id, err.Error())
		return
	}
	o := compare(f, sums)
	switch {
	case len(o.wrong) > 0 && allEqualIn(f, r.sums):
		a.s.fail(id, fmt.Sprintf("Unencoded-Digest %s is the digest of the %s bytes; it must cover the decoded %s: want %s", members(o.wrong), ce, bytesOf(int64(len(decoded))), wantOf(o.wrong, sums)))
	case len(o.wrong) > 0:
		a.s.fail(id, fmt.Sprintf("Unencoded-Digest %s does not match the decoded %s; want %s", members(o.wrong), bytesOf(int64(len(decoded))), wantOf(o.wrong, sums)))
	case len(o.matched) == 0:
		a.s.skip(id, fmt.Sprintf("Unencoded-Digest has no algorithm hdig can compute (%s)", keysOf(f)))
	default:
		a.s.pass(id, fmt.Sprintf("Unencoded-Digest covers the decoded %s", bytesOf(int64(len(decoded)))))
	}
}

// sha256Of returns the sha-256 algorithm.
func sha256Of() verify.Algorithm {
	a, _ := verify.Lookup("sha-256")
	return a
}
