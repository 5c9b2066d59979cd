package httpsig

import (
	"errors"
	"testing"
	"time"
)

// appendixB are the signed messages of RFC 9421 (Appendix B and the
// examples of §2.4, §3.2, §4.3) with their expected signature bases.
var appendixB = []struct {
	name, msg, req, label, base string
	ok                          bool
}{
	{"B.2.1 minimal rsa-pss", "b2.1", "", "sig-b21", "b2.1", true},
	{"B.2.2 selective rsa-pss", "b2.2", "", "sig-b22", "b2.2", true},
	{"B.2.3 full coverage rsa-pss", "b2.3", "", "sig-b23", "b2.3", true},
	{"B.2.4 response ecdsa-p256", "b2.4", "", "sig-b24", "b2.4", true},
	{"B.2.5 hmac-sha256", "b2.5", "", "sig-b25", "b2.5", true},
	{"B.2.6 ed25519", "b2.6", "", "sig-b26", "b2.6", true},
	{"B.3 TLS-terminating proxy", "b3-ttrp", "", "ttrp", "b3-ttrp", true},
	{"B.4 transform original", "b4-transform", "", "transform", "b4-transform", true},
	{"B.4 transform query and header added", "b4-transform-added", "", "transform", "b4-transform", true},
	{"B.4 transform Accept collapsed", "b4-transform-collapsed", "", "transform", "b4-transform", true},
	{"B.4 transform fields reordered", "b4-transform-reordered", "", "transform", "b4-transform", true},
	{"B.4 transform method and authority changed", "b4-transform-changed", "", "transform", "", false},
	{"B.4 transform Accept lines swapped", "b4-transform-swapped", "", "transform", "", false},
	{"2.4 response covering request", "sec2.4-reqres1", "sec2.4-request1", "reqres", "sec2.4-reqres1", true},
	{"2.4 response to a signed request", "sec2.4-reqres2", "sec2.4-request2", "reqres", "sec2.4-reqres2", true},
	{"3.2 verify rsa-pss", "sec3.2-sig1", "", "sig1", "sec3.2-sig1", true},
	{"4.3 client ecdsa-p256", "sec4.3-sig1", "", "sig1", "", true},
	{"4.3 proxy rsa-v1_5-sha256", "sec4.3-proxy_sig", "", "proxy_sig", "sec4.3-proxy_sig", true},
	{"4.3 client signature after the proxy changed the host", "sec4.3-proxy_sig", "", "sig1", "", false},
}

// rfcNow is a clock at the time of the RFC's examples.
func rfcNow() time.Time { return time.Unix(1618884480, 0) }

func TestAppendixB(t *testing.T) {
	keys := testKeys(t)
	for _, tc := range appendixB {
		t.Run(tc.name, func(t *testing.T) {
			m := message(t, tc.msg, tc.req)
			r, err := Verify(m, Policy{Keys: keys, Label: tc.label, Now: rfcNow})
			if !tc.ok {
				if !errors.Is(err, ErrBadSignature) {
					t.Fatalf("Verify = %v, want ErrBadSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if r.Label != tc.label {
				t.Fatalf("label %q, want %q", r.Label, tc.label)
			}
			if tc.base == "" {
				return
			}
			if want := string(readFile(t, "base/"+tc.base+".txt")); string(r.Base) != want {
				t.Fatalf("signature base:\n%s\nwant:\n%s", r.Base, want)
			}
		})
	}
}

// TestProduceB25B26 produces the deterministic examples byte for byte: the
// same Signature-Input and Signature fields as the RFC.
func TestProduceB25B26(t *testing.T) {
	for _, tc := range []struct{ msg, label, key string }{
		{"b2.5", "sig-b25", "test-shared-secret"},
		{"b2.6", "sig-b26", "test-key-ed25519"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			signed := readRequest(t, tc.msg)
			sigs, err := ParseSignatures(signed.Header)
			if err != nil || len(sigs) != 1 {
				t.Fatalf("ParseSignatures = %v, %v", sigs, err)
			}
			m := RequestMessage(readRequest(t, "test-request"))
			p := Params{Components: sigs[0].Params.Components, Created: sigs[0].Params.Created, KeyID: tc.key}
			if _, err := Sign(m, tc.label, p, testSigner(t, tc.key)); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"Signature-Input", "Signature"} {
				if got, want := m.Request.Header.Get(f), signed.Header.Get(f); got != want {
					t.Errorf("%s:\n got %s\nwant %s", f, got, want)
				}
			}
		})
	}
}
