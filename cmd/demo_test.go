package cmd

import (
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	code, out, errOut := runHdig(t, "demo")
	if code != 0 || !strings.Contains(out, "Every step turned out as expected.") {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"✔ verified Repr-Digest sha-256", "✖ mismatch", "226, IM: vcdiff", "304: 0 B received", "✔ delta.226"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
}
