package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hdig/hdig/server/servertest"
)

// --json -I: stdout carries only the JSON; the headers are in it.
func TestGetHeadJSON(t *testing.T) {
	srv := servertest.NewFiles(t, map[string]string{"h.json": servertest.Hello})
	code, out, errOut := runHdig(t, "get", "--json", "-I", srv.URL+"/h.json")
	var v struct {
		jsonVerdict
		Headers map[string][]string `json:"headers"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("stdout is not one JSON object (%v): %q; stderr: %s", err, out, errOut)
	}
	if code != 0 || v.Transfer.Strategy != "head" || v.Status != 200 || len(v.Headers["Repr-Digest"]) != 1 {
		t.Errorf("exit %d, %+v", code, v)
	}
	// A HEAD that fails is still a HEAD.
	code, v2, errOut := getJSON(t, "-I", srv.URL+"/missing")
	if code != 4 || v2.Transfer.Strategy != "head" || v2.Verdict != "error" {
		t.Errorf("HEAD 404: exit %d, %+v: %s", code, v2, errOut)
	}
	// Without --json, -I prints the headers on stdout as before.
	if code, out, _ := runHdig(t, "get", "-I", srv.URL+"/h.json"); code != 0 || !strings.Contains(out, "Repr-Digest: ") {
		t.Errorf("-I: exit %d, stdout %q", code, out)
	}
}

// Negative --retry and non-positive --timeout are usage errors with one
// line naming the flag.
func TestGetBadNumbers(t *testing.T) {
	for _, args := range [][]string{
		{"--retry", "-1"},
		{"--timeout", "-5s"},
		{"--timeout", "0"},
	} {
		code, out, errOut := runHdig(t, append(append([]string{"get"}, args...), "http://127.0.0.1:1/")...)
		if code != 2 || out != "" || !strings.Contains(errOut, args[0]) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line naming the flag; stderr %q", args, code, errOut)
		}
	}
}

// hdig --version prints what hdig version prints.
func TestVersionFlag(t *testing.T) {
	code, want, _ := runHdig(t, "version")
	if code != 0 || !strings.HasPrefix(want, "hdig ") {
		t.Fatalf("hdig version: exit %d, %q", code, want)
	}
	code, got, errOut := runHdig(t, "--version")
	if code != 0 || got != want {
		t.Errorf("hdig --version: exit %d, %q, want %q: %s", code, got, want, errOut)
	}
}
