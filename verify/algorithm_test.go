package verify

import (
	"encoding/base64"
	"testing"
)

// Appendix D of RFC 9530 over `{"hello": "world"}` (no LF), and the computed
// vectors of rfc-notes §1.5 for the body with LF and for empty input.
var algorithmVectors = []struct {
	key, noLF, withLF, empty string
}{
	{"sha-512", "WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==",
		"YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==",
		"z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="},
	{"sha-256", "X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", "RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
	{"md5", "Sd/dVLAcvNLSq16eXua5uQ==", "UFIauregE76D7gDe0/n0JA==", "1B2M2Y8AsgTpgAmY7PhCfg=="},
	{"sha", "07CavjDP4u3/TungoUHJO/Wzr4c=", "yyTATouGJ50S3R4iWotz3qq6P9Y=", "2jmj7l5rSw0yVb/vlWAYkK/YBwk="},
	{"unixsum", "GQU=", "jIw=", "AAA="},
	{"unixcksum", "7zsHAA==", "rF3+Zw==", "/////w=="},
	{"adler", "OZkGFw==", "P7oGIQ==", "AAAAAQ=="},
	{"crc32c", "Q3lHIA==", "GWGM8A==", "AAAAAA=="},
}

func TestAlgorithmVectors(t *testing.T) {
	inputs := []struct{ name, data string }{
		{"appendix-d", `{"hello": "world"}`},
		{"with-lf", "{\"hello\": \"world\"}\n"},
		{"empty", ""},
	}
	for _, v := range algorithmVectors {
		a, ok := Lookup(v.key)
		if !ok {
			t.Fatalf("Lookup(%q) failed", v.key)
		}
		want := []string{v.noLF, v.withLF, v.empty}
		for i, in := range inputs {
			h := a.New()
			// Write in two parts to exercise streaming state.
			h.Write([]byte(in.data[:len(in.data)/2]))
			h.Write([]byte(in.data[len(in.data)/2:]))
			sum := h.Sum(nil)
			if got := base64.StdEncoding.EncodeToString(sum); got != want[i] {
				t.Errorf("%s(%s) = %s, want %s", v.key, in.name, got, want[i])
			}
			if len(sum) != a.Size {
				t.Errorf("%s: Size = %d, sum has %d bytes", v.key, a.Size, len(sum))
			}
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList("sha-256, SHA-512,sha-256")
	if err != nil || len(got) != 2 || got[0].Key != "sha-256" || got[1].Key != "sha-512" {
		t.Fatalf("ParseList = %v, %v", got, err)
	}
	if _, err := ParseList("sha-3"); err == nil {
		t.Fatal("ParseList(sha-3) succeeded, want error")
	}
	if _, err := ParseList(" , "); err == nil {
		t.Fatal("ParseList(empty) succeeded, want error")
	}
}
