package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// TestCheckStrictTableAgrees: under --strict a warning fails the gate, and
// the table says so, in text as in each group of --format github.
func TestCheckStrictTableAgrees(t *testing.T) {
	u := servertest.New(t, checkSite, server.WithIgnoreRange()).URL + "/hello.json"
	for _, format := range []string{"text", "github"} {
		code, out, _ := runHdig(t, "check", "--strict", "--format", format, u)
		if code != ExitIntegrity || strings.Contains(out, "⚠") || !strings.Contains(out, "✖ range.partial") {
			t.Errorf("--format %s: exit %d, want 1 with range.partial marked ✖, not ⚠:\n%s", format, code, out)
		}
	}
}

// TestCheckStrictJSONGateFail: --json keeps each check's own status, so a
// warned run under --strict summarised "fail": 0 while it exited 1. The
// summary's gate_fail counts what failed the gate, the warnings too.
func TestCheckStrictJSONGateFail(t *testing.T) {
	u := servertest.New(t, checkSite, server.WithIgnoreRange()).URL + "/hello.json"
	for _, strict := range []bool{false, true} {
		args := []string{"check", "--json", u}
		if strict {
			args = append(args, "--strict")
		}
		code, out, _ := runHdig(t, args...)
		var doc struct {
			Summary map[string]any `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		s := doc.Summary
		gate, warned := s["gate_fail"], s["warn"].(float64)
		want := s["fail"].(float64)
		if strict {
			want += warned
		}
		if warned == 0 || gate != want || (code == ExitIntegrity) != (want > 0) {
			t.Errorf("%v: exit %d, summary %v; want gate_fail %v", args, code, s, want)
		}
	}
}

// TestCheckJSONGateFailUnreachable: an unreachable URL (exit 4) is no
// integrity failure: its http.status failed, but gate_fail counts the
// URLs reached, as the exit status does, so a script reading gate_fail
// sees 0 here, not a failure the exit status does not report.
func TestCheckJSONGateFailUnreachable(t *testing.T) {
	u := servertest.New(t, checkSite).URL + "/hello.json"
	code, out, _ := runHdig(t, "check", "--json", u, "http://127.0.0.1:1/x")
	var doc struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if s := doc.Summary; code != ExitNetwork || s["unreachable"] != 1.0 || s["gate_fail"] != 0.0 {
		t.Errorf("exit %d, summary %v; want 4, unreachable 1, gate_fail 0", code, s)
	}
}
