package httpsig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Component is a component identifier (RFC 9421 §2): a lowercase field
// name or a derived component name starting with "@", and its parameters
// (sf, key, bs, req, tr for fields; name and req for derived components).
type Component struct {
	Name   string
	Params *httpsfv.Params
}

// ParseComponent parses one identifier, either a bare name (`@method`,
// `content-digest`) or its structured form with parameters
// (`"@query-param";name="Pet"`, `"content-digest";req`).
func ParseComponent(s string) (Component, error) {
	if s == "" {
		return Component{}, fmt.Errorf("httpsig: empty component identifier")
	}
	if s[0] != '"' {
		s = `"` + s + `"`
	}
	it, err := httpsfv.UnmarshalItem([]string{s})
	if err != nil {
		return Component{}, fmt.Errorf("httpsig: component identifier %q: %v", s, err)
	}
	return componentFromItem(it)
}

// ParseComponents parses each of ids with ParseComponent.
func ParseComponents(ids []string) ([]Component, error) {
	if len(ids) > MaxComponents {
		return nil, fmt.Errorf("httpsig: %d covered components, want at most %d", len(ids), MaxComponents)
	}
	out := make([]Component, 0, len(ids))
	for _, id := range ids {
		c, err := ParseComponent(id)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func componentFromItem(it httpsfv.Item) (Component, error) {
	name, ok := it.Value.(string)
	if !ok {
		return Component{}, fmt.Errorf("httpsig: component identifier is a %T, want a string", it.Value)
	}
	if name == "" || len(name) > maxIdentifier {
		return Component{}, fmt.Errorf("httpsig: component name of %d bytes, want 1 to %d", len(name), maxIdentifier)
	}
	if name != strings.ToLower(name) {
		return Component{}, fmt.Errorf("httpsig: component name %q is not lowercase", name)
	}
	p := it.Params
	if p == nil {
		p = httpsfv.NewParams()
	}
	return Component{Name: name, Params: p}, nil
}

func (c Component) item() httpsfv.Item {
	p := c.Params
	if p == nil {
		p = httpsfv.NewParams()
	}
	return httpsfv.Item{Value: c.Name, Params: p}
}

// String is the identifier as it appears in a signature base:
// `"@query-param";name="Pet"`.
func (c Component) String() string {
	s, err := httpsfv.Marshal(c.item())
	if err != nil {
		return fmt.Sprintf("%q", c.Name)
	}
	return s
}

// Derived reports whether c names a derived component (starts with "@").
func (c Component) Derived() bool { return strings.HasPrefix(c.Name, "@") }

func (c Component) has(flag string) bool {
	if c.Params == nil {
		return false
	}
	v, ok := c.Params.Get(flag)
	return ok && v == true
}

func (c Component) str(name string) (string, bool) {
	if c.Params == nil {
		return "", false
	}
	v, ok := c.Params.Get(name)
	s, isStr := v.(string)
	return s, ok && isStr
}

// Equal reports whether c and d are the same identifier: same name and the
// same parameters, in any order (§2).
func (c Component) Equal(d Component) bool {
	return c.key() == d.key()
}

// key is a canonical form of c with its parameters sorted.
func (c Component) key() string {
	var b strings.Builder
	b.WriteString(c.Name)
	if c.Params == nil {
		return b.String()
	}
	names := append([]string(nil), c.Params.Names()...)
	sort.Strings(names)
	for _, n := range names {
		v, _ := c.Params.Get(n)
		p := httpsfv.NewParams()
		p.Add(n, v)
		s, _ := httpsfv.Marshal(httpsfv.Item{Value: true, Params: p})
		b.WriteString(s)
	}
	return b.String()
}

// check rejects parameters that are unknown, malformed or incompatible
// (§2.5 step 2.4), and `req` when the target message is a request.
func (c Component) check(response bool) error {
	allowed := map[string]bool{"req": true}
	if c.Derived() {
		if c.Name == "@query-param" {
			allowed["name"] = true
		}
	} else {
		for _, k := range []string{"sf", "key", "bs", "tr"} {
			allowed[k] = true
		}
	}
	if c.Params != nil {
		for _, n := range c.Params.Names() {
			if !allowed[n] {
				return fmt.Errorf("httpsig: component %s: parameter %q does not apply", c, n)
			}
			v, _ := c.Params.Get(n)
			if n == "key" || n == "name" {
				if s, ok := v.(string); !ok || len(s) > maxIdentifier {
					return fmt.Errorf("httpsig: component %s: parameter %q must be a string", c, n)
				}
			} else if v != true {
				return fmt.Errorf("httpsig: component %s: parameter %q must be true", c, n)
			}
		}
	}
	if c.has("bs") && (c.has("sf") || c.str2("key")) {
		return fmt.Errorf("httpsig: component %s: bs cannot be combined with sf or key", c)
	}
	if c.has("req") && !response {
		return fmt.Errorf("httpsig: component %s: req in a signature over a request", c)
	}
	if c.Name == "@query-param" && !c.str2("name") {
		return fmt.Errorf("httpsig: component %s: @query-param needs a name parameter", c)
	}
	return nil
}

func (c Component) str2(name string) bool {
	_, ok := c.str(name)
	return ok
}
