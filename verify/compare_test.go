package verify

import (
	"bytes"
	"strings"
	"testing"
)

func TestAgree(t *testing.T) {
	hdr := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Hello + ":, foo=:AQ==:, md5=:AQ==:"})
	same := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Hello + ":, foo=:AQ==:"})
	if cs := Agree(hdr, same); len(cs) != 0 {
		t.Errorf("Agree(same) = %v, want nothing", cs)
	}
	tr := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Empty + ":, foo=:Ag==:, sha-512=:AQ==:"})
	cs := Agree(hdr, tr)
	if len(cs) != 2 {
		t.Fatalf("Agree = %v, want sha-256 and foo", cs)
	}
	for i, alg := range []string{"sha-256", "foo"} {
		c := cs[i]
		if c.Algorithm != alg || c.Result != Mismatch || c.Field != ReprDigest || !strings.Contains(c.Reason, "header and trailer differ") {
			t.Errorf("check %d = %+v, want a %s mismatch between header and trailer", i, c, alg)
		}
	}
	if !bytes.Equal(cs[0].Expected, mustB64(t, sha256Hello)) || !bytes.Equal(cs[0].Actual, mustB64(t, sha256Empty)) {
		t.Errorf("check = %v, want header value expected, trailer value actual", cs[0])
	}
	if cs := Agree(hdr, DigestField{Name: ReprDigest}); cs != nil {
		t.Errorf("Agree with an absent trailer = %v", cs)
	}
}

func TestEmptyDigests(t *testing.T) {
	ds := EmptyDigests(Algorithms)
	if len(ds) != len(Algorithms) {
		t.Fatalf("EmptyDigests = %v, want one per algorithm", ds)
	}
	want, _, err := Sum(strings.NewReader(""), Algorithms)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if d.Algorithm != want[i].Algorithm || !bytes.Equal(d.Value, want[i].Value) {
			t.Errorf("EmptyDigests[%d] = %v, want %v", i, d, want[i])
		}
	}
	if v, _ := (DigestField{Digests: ds}).Get("sha-256"); Base64(v) != sha256Empty {
		t.Errorf("sha-256 of empty content = %s, want %s", Base64(v), sha256Empty)
	}
}
