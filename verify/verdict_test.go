package verify

import (
	"slices"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	body := bodyHello
	field := func(s string) DigestField { return ParseDigestField(ReprDigest, []string{s}) }
	md5Hello := "UFIauregE76D7gDe0/n0JA=="
	tests := []struct {
		name    string
		field   DigestField
		policy  Policy
		results []Result
		reasons []string // substrings, "" for none
		want    Outcome
	}{
		{"match", field("sha-256=:" + sha256Hello + ":"), DefaultPolicy(),
			[]Result{Match}, []string{""}, Verified},
		{"mismatch", field("sha-256=:" + sha256Empty + ":"), DefaultPolicy(),
			[]Result{Mismatch}, []string{""}, Mismatched},
		{"one accepted mismatch fails whatever the others say", field("sha-256=:" + sha256Hello + ":, sha-512=:" + sha512Brotli + ":"), DefaultPolicy(),
			[]Result{Match, Mismatch}, []string{"", ""}, Mismatched},
		{"mismatch first, match after", field("sha-512=:" + sha512Brotli + ":, sha-256=:" + sha256Hello + ":"), DefaultPolicy(),
			[]Result{Mismatch, Match}, []string{"", ""}, Mismatched},
		{"deprecated not accepted, matching", field("md5=:" + md5Hello + ":"), DefaultPolicy(),
			[]Result{Ignored}, []string{"deprecated, not accepted as proof (add --accept md5 to count it); it matches"}, Unverified},
		{"deprecated not accepted, not matching, wrong length", field("md5=:" + sha256Hello + ":"), DefaultPolicy(),
			[]Result{Mismatch}, []string{"value is 32 bytes, want 16 for md5; deprecated, not accepted as proof (add --accept md5 to count it); a mismatch fails all the same"}, Mismatched},
		{"deprecated mismatch is not hidden by an accepted match", field("md5=:AAAAAAAAAAAAAAAAAAAAAA==:, sha-256=:" + sha256Hello + ":"), DefaultPolicy(),
			[]Result{Mismatch, Match}, []string{"a mismatch fails all the same", ""}, Mismatched},
		{"deprecated accepted via policy counts", field("md5=:" + md5Hello + ":"), Policy{Accept: []string{"md5"}},
			[]Result{Match}, []string{""}, Verified},
		{"deprecated accepted via policy fails", field("md5=:AAAAAAAAAAAAAAAAAAAAAA==:, sha-256=:" + sha256Hello + ":"), Policy{Accept: []string{"md5", "sha-256"}},
			[]Result{Mismatch, Match}, []string{"", ""}, Mismatched},
		{"active not accepted", field("sha-512=:" + sha512Hello + ":"), Policy{Accept: []string{"sha-256"}},
			[]Result{Ignored}, []string{"not accepted as proof; it matches"}, Unverified},
		{"active not accepted, not matching", field("sha-512=:" + sha512Brotli + ":"), Policy{Accept: []string{"sha-256"}},
			[]Result{Mismatch}, []string{"not accepted as proof; a mismatch fails all the same"}, Mismatched},
		{"wrong length is a mismatch", field("sha-256=:AAAA:"), DefaultPolicy(),
			[]Result{Mismatch}, []string{"value is 3 bytes, want 32 for sha-256"}, Mismatched},
		{"empty value is a mismatch", field("sha-256=::"), DefaultPolicy(),
			[]Result{Mismatch}, []string{"value is 0 bytes, want 32"}, Mismatched},
		{"unknown algorithm ignored", field("sha-3=:AAAA:"), DefaultPolicy(),
			[]Result{Ignored}, []string{"unsupported algorithm"}, Unverified},
		{"unknown algorithm even if accepted", field("sha-3=:AAAA:"), Policy{Accept: []string{"sha-3"}},
			[]Result{Ignored}, []string{"unsupported algorithm"}, Unverified},
		{"ignored field gives no checks", field("sha-256=abc"), DefaultPolicy(), nil, nil, Unverified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, checks := outcomeOf(t, tt.field, body, tt.policy)
			if got != tt.want {
				t.Errorf("outcome = %s, want %s", got, tt.want)
			}
			if len(checks) != len(tt.results) {
				t.Fatalf("checks = %v, want %d", checks, len(tt.results))
			}
			for i, c := range checks {
				if c.Result != tt.results[i] {
					t.Errorf("check %d = %v, want %s", i, c, tt.results[i])
				}
				if r := tt.reasons[i]; (r == "") != (c.Reason == "") || !strings.Contains(c.Reason, r) {
					t.Errorf("check %d reason = %q, want %q", i, c.Reason, r)
				}
				if c.Field != ReprDigest || string(c.Expected) != string(tt.field.Digests[i].Value) {
					t.Errorf("check %d = %+v, want field and expected value filled in", i, c)
				}
			}
		})
	}
}

func TestCompareNotComputed(t *testing.T) {
	f := ParseDigestField(ReprDigest, []string{"sha-512=:" + sha512Hello + ":"})
	cs := Compare(f, []Digest{{"sha-256", mustB64(t, sha256Hello)}}, DefaultPolicy())
	if len(cs) != 1 || cs[0].Result != Ignored || cs[0].Reason != "not computed" || cs[0].Actual != nil {
		t.Errorf("Compare = %+v, want sha-512 ignored as not computed", cs)
	}
}

func TestVerdict(t *testing.T) {
	var v Verdict
	if v.Outcome() != Unverified || v.Verified("") {
		t.Fatal("empty verdict is not unverified")
	}
	v.Add(Check{Field: ContentDigest, Algorithm: "sha-256", Result: Match})
	v.Add(Check{Field: ReprDigest, Algorithm: "md5", Result: Ignored})
	if v.Outcome() != Verified || !v.Verified(ContentDigest) || !v.Verified("") || v.Verified(ReprDigest) {
		t.Errorf("verdict %+v: outcome %s", v, v.Outcome())
	}
	bad := Check{Field: ReprDigest, Algorithm: "sha-512", Expected: []byte{1}, Actual: []byte{2}, Result: Mismatch}
	v.Add(bad)
	v.Warn("w1", "w2")
	if v.Outcome() != Mismatched || len(v.Mismatches()) != 1 || v.Mismatches()[0].Algorithm != "sha-512" || len(v.Warnings) != 2 {
		t.Errorf("verdict %+v: outcome %s", v, v.Outcome())
	}
}

func TestCheckString(t *testing.T) {
	tests := []struct {
		c    Check
		want string
	}{
		{Check{Field: ReprDigest, Algorithm: "sha-256", Result: Match}, "Repr-Digest sha-256 match"},
		{Check{Field: ReprDigest, Algorithm: "sha-256", Expected: []byte{1}, Actual: []byte{2}, Result: Mismatch},
			"Repr-Digest sha-256 mismatch: want AQ==, got Ag=="},
		{Check{Field: LegacyDigest, Algorithm: "md5", Result: Ignored, Reason: "not computed"}, "Digest md5 ignored (not computed)"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestSortedKeysAndBase64(t *testing.T) {
	m := map[string]int{"zz": 1, "md5": 1, "aa": 1, "sha-256": 1, "sha-512": 1}
	if got, want := SortedKeys(m), []string{"sha-512", "sha-256", "md5", "aa", "zz"}; !slices.Equal(got, want) {
		t.Errorf("SortedKeys = %q, want %q", got, want)
	}
	if Base64(nil) != "" || Base64([]byte{}) != "" || Base64([]byte{0xff}) != "/w==" {
		t.Errorf("Base64 = %q, %q, %q", Base64(nil), Base64([]byte{}), Base64([]byte{0xff}))
	}
}
