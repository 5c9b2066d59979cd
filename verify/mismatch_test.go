package verify

import (
	"slices"
	"strings"
	"testing"
)

// md5Hello is the md5 of bodyHello, without its "==" padding.
const md5HelloBare = "UFIauregE76D7gDe0/n0JA"

// Issue 9, item 1: one member must never hide another member's mismatch.
func TestOneMemberHidesNoMismatch(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		members []string // algorithms kept, in order
		skipped string   // substring of a Skipped reason, "" for none
		want    Outcome
	}{
		{"unpadded member before a padded wrong one", "md5=:" + md5HelloBare + ":, sha-256=:" + sha256Empty + ":",
			[]string{"md5", "sha-256"}, "", Mismatched},
		{"padded wrong member before an unpadded one", "sha-256=:" + sha256Empty + ":, md5=:" + md5HelloBare + ":",
			[]string{"sha-256", "md5"}, "", Mismatched},
		{"padded byte sequence in a parameter", "sha-256=:" + sha256Empty + ":;p=:AA==:, md5=:" + md5HelloBare + ":",
			[]string{"sha-256", "md5"}, "", Mismatched},
		{"unknown boolean member", "sha-256=:" + sha256Empty + ":, foo=?1",
			[]string{"sha-256"}, `member "foo" is a boolean`, Mismatched},
		{"unknown member first", "foo=?1, sha-256=:" + sha256Empty + ":",
			[]string{"sha-256"}, `member "foo" is a boolean`, Mismatched},
		{"unknown inner list member", "sha-256=:" + sha256Empty + ":, foo=(1 2)",
			[]string{"sha-256"}, `member "foo" is an inner list`, Mismatched},
		{"known member with a token", "sha-256=:" + sha256Empty + ":, md5=abc",
			[]string{"sha-256"}, `member "md5" is a token`, Mismatched},
		{"unknown member beside a match", "sha-256=:" + sha256Hello + ":, foo=?1",
			[]string{"sha-256"}, `member "foo" is a boolean`, Verified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseDigestField(ReprDigest, []string{tt.line})
			if !f.Usable() {
				t.Fatalf("field %q ignored (%s), want its byte sequences kept", tt.line, f.Ignored)
			}
			var got []string
			for _, d := range f.Digests {
				got = append(got, d.Algorithm)
			}
			if !slices.Equal(got, tt.members) {
				t.Errorf("members = %q, want %q", got, tt.members)
			}
			joined := strings.Join(f.Skipped, "; ")
			if (tt.skipped == "") != (joined == "") || !strings.Contains(joined, tt.skipped) {
				t.Errorf("Skipped = %q, want %q", f.Skipped, tt.skipped)
			}
			if tt.skipped != "" && !slices.ContainsFunc(f.Warnings(), func(w string) bool { return strings.Contains(w, tt.skipped) }) {
				t.Errorf("Warnings = %q, want one naming the skipped member", f.Warnings())
			}
			if out, cs := outcomeOf(t, f, bodyHello, DefaultPolicy()); out != tt.want {
				t.Errorf("outcome = %s, want %s: %v", out, tt.want, cs)
			}
		})
	}
}

// Issue 9, item 2: a deprecated algorithm cannot prove, but its mismatch is
// corruption and fails whatever the policy.
func TestDeprecatedMismatchFails(t *testing.T) {
	for _, line := range []string{
		"md5=:" + sha256Hello[:22] + "==:",
		"md5=:AAAAAAAAAAAAAAAAAAAAAA==:, sha-256=:" + sha256Hello + ":",
		"unixsum=:AAA=:",
		"crc32c=:AAAAAA==:",
	} {
		f := ParseDigestField(ReprDigest, []string{line})
		out, cs := outcomeOf(t, f, bodyHello, DefaultPolicy())
		if out != Mismatched {
			t.Errorf("%q: outcome = %s, want mismatch: %v", line, out, cs)
		}
		if cs[0].Result != Mismatch || !strings.Contains(cs[0].Reason, "not accepted as proof") {
			t.Errorf("%q: check = %v, want a mismatch saying it is not accepted as proof", line, cs[0])
		}
	}
	// A deprecated value of the wrong length is a mismatch too.
	f := ParseDigestField(ReprDigest, []string{"md5=:AAAA:"})
	if out, cs := outcomeOf(t, f, bodyHello, DefaultPolicy()); out != Mismatched || !strings.Contains(cs[0].Reason, "3 bytes, want 16") {
		t.Errorf("md5 of 3 bytes: outcome %s, %v; want a mismatch naming the length", out, cs)
	}
}
