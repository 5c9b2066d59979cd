package httpsig

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseSignatureInput: any Signature-Input and Signature values parse
// or fail without panicking; what parses is within bounds, and its
// "@signature-params" value parses back to itself.
func FuzzParseSignatureInput(f *testing.F) {
	f.Add(`sig1=("@method" "@authority" "@path");created=1618884473;keyid="k"`, `sig1=:AAAA:`)
	f.Add(`a=();nonce="n";tag="t", b=("x";sf "y";key="k" "@query-param";name="Pet");expires=5`, `a=:AA==:, b=:AA==:`)
	f.Fuzz(func(t *testing.T, in, sig string) {
		h := http.Header{"Signature-Input": {in}, "Signature": {sig}}
		sigs, err := ParseSignatures(h)
		if err != nil {
			return
		}
		if len(sigs) > MaxSignatures {
			t.Fatalf("%d signatures", len(sigs))
		}
		for _, s := range sigs {
			if len(s.Params.Components) > MaxComponents {
				t.Fatalf("%d components", len(s.Params.Components))
			}
			v := s.Params.String()
			labels, ps, err := ParseSignatureInput("l=" + v)
			if err != nil || len(labels) != 1 || ps[0].String() != v {
				t.Fatalf("%q re-parsed as %v, %v", v, ps, err)
			}
		}
	})
}

// FuzzSignatureBase: a message with fuzzed fields, query and covered
// components; any base built is bounded, ASCII, one line per component
// plus the "@signature-params" line, which carries the parameters.
func FuzzSignatureBase(f *testing.F) {
	f.Add(`("@method" "@path" "@query" "x-a" "@authority")`, "GET", "a=1&b=2", "v1", "v2")
	f.Add(`("x-a";bs "x-a";sf "x-a";key="d" "@query-param";name="b" "@target-uri")`, "POST", "b=%41+c", "d=1, e", "f=(a b)")
	f.Add(`("@status" "x-a";req "@request-target";req "x-b";tr)`, "GET", "", "a\r\n b", "")
	f.Fuzz(func(t *testing.T, components, method, query, a, b string) {
		_, ps, err := ParseSignatureInput("s=" + components)
		if err != nil || len(ps) != 1 {
			return
		}
		h := http.Header{"X-A": {a}, "X-B": {a, b}}
		req := &http.Request{Method: method, Host: "Example.COM:80", Header: h, Trailer: h,
			URL: &url.URL{Scheme: "http", Host: "example.com", Path: "/p", RawQuery: query}}
		for _, m := range []Message{RequestMessage(req), ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: h}, req)} {
			m.FieldTypes = map[string]FieldType{"x-a": TypeDictionary}
			base, err := Base(m, ps[0])
			if err != nil {
				continue
			}
			if len(base) > MaxBaseLength {
				t.Fatalf("base of %d bytes", len(base))
			}
			lines := strings.Split(string(base), "\n")
			if len(lines) != len(ps[0].Components)+1 {
				t.Fatalf("%d lines for %d components:\n%s", len(lines), len(ps[0].Components), base)
			}
			if last := lines[len(lines)-1]; last != `"@signature-params": `+ps[0].String() {
				t.Fatalf("last line %q", last)
			}
			for i := 0; i < len(base); i++ {
				if base[i] >= 0x80 || base[i] == '\r' {
					t.Fatalf("byte 0x%02x in base", base[i])
				}
			}
		}
	})
}
