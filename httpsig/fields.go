package httpsig

import (
	"fmt"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"

	"github.com/dunglas/httpsfv"
)

// FieldType is the structured type of a field (RFC 9651), needed for the
// `sf` and `key` parameters.
type FieldType int

// Structured field types.
const (
	TypeItem FieldType = iota + 1
	TypeList
	TypeDictionary
)

// DefaultFieldTypes are the structured fields known without being told.
var DefaultFieldTypes = map[string]FieldType{
	"content-digest":      TypeDictionary,
	"repr-digest":         TypeDictionary,
	"unencoded-digest":    TypeDictionary,
	"want-content-digest": TypeDictionary,
	"want-repr-digest":    TypeDictionary,
	"signature":           TypeDictionary,
	"signature-input":     TypeDictionary,
	"accept-signature":    TypeDictionary,
	"integrity-policy":    TypeDictionary,
	"priority":            TypeDictionary,
	"cache-status":        TypeList,
	"proxy-status":        TypeList,
	"client-cert":         TypeItem,
	"client-cert-chain":   TypeList,
}

var obsFold = regexp.MustCompile(`\r?\n[ \t]+`)

// rawValues are the field lines of name in h, in order, each trimmed and
// with obsolete line folding replaced by one space (§2.1). A name with no
// lines is not a field of h: net/http puts each field a response's
// Trailer announces in its Trailer map with no lines until the trailer
// comes, and one that never came (a body not read to its end) is absent,
// not a field with an empty value.
func rawValues(h http.Header, name string) ([]string, bool) {
	vs := fieldLines(h, name)
	if len(vs) == 0 {
		return nil, false
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.Trim(obsFold.ReplaceAllString(v, " "), " \t")
	}
	return out, true
}

// fieldLines are the lines of the field name in h as they came: those of
// its canonical name, or of another spelling when that has none. The one
// look-up of rawValues and fieldBytes.
func fieldLines(h http.Header, name string) []string {
	if vs := h[textproto.CanonicalMIMEHeaderKey(name)]; len(vs) > 0 {
		return vs
	}
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, name) {
			return v
		}
	}
	return nil
}

// fieldBytes is the size of the field lines a field component reads (0
// for a derived one, or when its field is not there), counted before any
// work on them: Base bounds the total, as it bounds its own length.
func (m Message) fieldBytes(c Component) int {
	if c.Derived() {
		return 0
	}
	h, err := m.fields(c)
	if err != nil || h == nil {
		return 0
	}
	n := 0
	for _, v := range fieldLines(h, c.Name) {
		n += len(v) + 2
	}
	return n
}

// fieldValue is the component value of an HTTP field (§2.1).
func (m Message) fieldValue(c Component) (string, error) {
	h, err := m.fields(c)
	if err != nil {
		return "", err
	}
	vs, ok := rawValues(h, c.Name)
	if !ok {
		where := "header"
		if c.has("tr") {
			where = "trailer"
		}
		err := fmt.Errorf("httpsig: component %s: no %s field %q in the message", c, where, c.Name)
		if c.has("tr") && (!c.has("req") || m.Response == nil) { // the target's own trailer
			err = noTrailer{err}
		}
		return "", err
	}
	if c.has("bs") {
		l := make(httpsfv.List, len(vs))
		for i, v := range vs {
			l[i] = httpsfv.NewItem([]byte(v))
		}
		return httpsfv.Marshal(l)
	}
	if key, ok := c.str("key"); ok {
		return m.dictMember(c, vs, key)
	}
	if c.has("sf") {
		return m.strict(c, vs)
	}
	return strings.Join(vs, ", "), nil
}

func (m Message) fieldType(name string) FieldType {
	if t, ok := m.FieldTypes[name]; ok {
		return t
	}
	return DefaultFieldTypes[name]
}

// strict re-serializes the field strictly as its structured type (§2.1.1).
func (m Message) strict(c Component, vs []string) (string, error) {
	var v httpsfv.StructuredFieldValue
	var err error
	switch m.fieldType(c.Name) {
	case TypeDictionary:
		v, err = httpsfv.UnmarshalDictionary(vs)
	case TypeList:
		v, err = httpsfv.UnmarshalList(vs)
	case TypeItem:
		v, err = httpsfv.UnmarshalItem(vs)
	default:
		return "", fmt.Errorf("httpsig: component %s: the structured type of %q is not known", c, c.Name)
	}
	if err != nil {
		return "", fmt.Errorf("httpsig: component %s: field is not a valid structured field: %v", c, err)
	}
	return httpsfv.Marshal(v)
}

// dictMember is one Dictionary member, serialized strictly (§2.1.2).
func (m Message) dictMember(c Component, vs []string, key string) (string, error) {
	if t := m.fieldType(c.Name); t != TypeDictionary && t != 0 {
		return "", fmt.Errorf("httpsig: component %s: %q is not a Dictionary field", c, c.Name)
	}
	d, err := httpsfv.UnmarshalDictionary(vs)
	if err != nil {
		return "", fmt.Errorf("httpsig: component %s: field is not a valid Dictionary: %v", c, err)
	}
	mem, ok := d.Get(key)
	if !ok {
		return "", fmt.Errorf("httpsig: component %s: the Dictionary has no member %q", c, key)
	}
	switch v := mem.(type) {
	case httpsfv.Item:
		return httpsfv.Marshal(v)
	case httpsfv.InnerList:
		return httpsfv.Marshal(v)
	}
	return "", fmt.Errorf("httpsig: component %s: member %q has an unknown type", c, key)
}

// noTrailer is the error of a field missing from the target message's
// trailer: errors.Is(err, ErrNoTrailer) holds, its text is err's.
type noTrailer struct{ error }

func (e noTrailer) Unwrap() error { return e.error }

func (noTrailer) Is(target error) bool { return target == ErrNoTrailer }
