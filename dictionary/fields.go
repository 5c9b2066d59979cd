package dictionary

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/dunglas/httpsfv"
)

// Field-size bounds. RFC 9842 caps "id" and Dictionary-ID at 1024
// characters; the other bounds keep a hostile field from costing more than a
// few kilobytes to parse.
const (
	MaxIDLen       = 1024 // RFC 9842 §2.1.3 and §2.3
	MaxMatchLen    = 2048 // a URL pattern longer than this is refused
	MaxMatchDests  = 32   // entries in match-dest
	MaxDestLen     = 64   // one request destination ("document", "script", ...)
	MaxFieldLength = 8192 // a whole field value
)

// TypeRaw is the only dictionary type RFC 9842 defines.
const TypeRaw = "raw"

// Hash is the SHA-256 of a dictionary's bytes: the value of
// Available-Dictionary and the hash in the dcb and dcz headers.
type Hash [sha256.Size]byte

// HashOf returns the SHA-256 of dict.
func HashOf(dict []byte) Hash { return sha256.Sum256(dict) }

// Use is a parsed Use-As-Dictionary field (RFC 9842 §2.1).
type Use struct {
	Match     string   // URL pattern, required
	MatchDest []string // request destinations; empty matches all
	ID        string   // server identifier, echoed as Dictionary-ID
	Type      string   // dictionary format; "raw" unless the field says otherwise
}

// Usable reports whether a client may use the dictionary: RFC 9842 §2.1.4
// says a client MUST NOT use a dictionary whose type it does not understand.
func (u Use) Usable() bool { return u.Type == TypeRaw }

var errTooLong = errors.New("field value too long")

func checkFieldLen(name string, values []string) error {
	n := 0
	for _, v := range values {
		n += len(v) + 1
	}
	if n > MaxFieldLength {
		return fmt.Errorf("%s: %w: want at most %d bytes, got %d", name, errTooLong, MaxFieldLength, n)
	}
	return nil
}

// ParseUseAsDictionary parses the field lines of Use-As-Dictionary. It
// checks the types and bounds of the members it knows and ignores unknown
// members (RFC 9651 extensibility). It does not check the match pattern's
// syntax: compile it with CompilePattern against the response's URL.
func ParseUseAsDictionary(values []string) (Use, error) {
	if err := checkFieldLen("Use-As-Dictionary", values); err != nil {
		return Use{}, err
	}
	d, err := httpsfv.UnmarshalDictionary(values)
	if err != nil {
		return Use{}, fmt.Errorf("Use-As-Dictionary: not a structured-field dictionary: %v", err)
	}
	u := Use{Type: TypeRaw}
	m, ok := d.Get("match")
	if !ok {
		return Use{}, errors.New("Use-As-Dictionary: match is required, got none")
	}
	if u.Match, err = stringItem("match", m, MaxMatchLen); err != nil {
		return Use{}, err
	}
	if m, ok := d.Get("match-dest"); ok {
		if u.MatchDest, err = destList(m); err != nil {
			return Use{}, err
		}
	}
	if m, ok := d.Get("id"); ok {
		if u.ID, err = stringItem("id", m, MaxIDLen); err != nil {
			return Use{}, err
		}
	}
	if m, ok := d.Get("type"); ok {
		it, isItem := m.(httpsfv.Item)
		tok, isTok := it.Value.(httpsfv.Token)
		if !isItem || !isTok {
			return Use{}, fmt.Errorf("Use-As-Dictionary: type: want a token, got %T", valueOf(m))
		}
		u.Type = string(tok)
	}
	return u, nil
}

func valueOf(m httpsfv.Member) any {
	if it, ok := m.(httpsfv.Item); ok {
		return it.Value
	}
	return m
}

func stringItem(name string, m httpsfv.Member, max int) (string, error) {
	it, ok := m.(httpsfv.Item)
	if !ok {
		return "", fmt.Errorf("Use-As-Dictionary: %s: want a string, got an inner list", name)
	}
	s, ok := it.Value.(string)
	if !ok {
		return "", fmt.Errorf("Use-As-Dictionary: %s: want a string, got %T", name, it.Value)
	}
	if len(s) > max {
		return "", fmt.Errorf("Use-As-Dictionary: %s: want at most %d characters, got %d", name, max, len(s))
	}
	return s, nil
}

func destList(m httpsfv.Member) ([]string, error) {
	il, ok := m.(httpsfv.InnerList)
	if !ok {
		return nil, fmt.Errorf("Use-As-Dictionary: match-dest: want an inner list, got %T", valueOf(m))
	}
	if len(il.Items) > MaxMatchDests {
		return nil, fmt.Errorf("Use-As-Dictionary: match-dest: want at most %d entries, got %d", MaxMatchDests, len(il.Items))
	}
	out := make([]string, 0, len(il.Items))
	for _, it := range il.Items {
		s, ok := it.Value.(string)
		if !ok {
			return nil, fmt.Errorf("Use-As-Dictionary: match-dest: want strings, got %T", it.Value)
		}
		if len(s) > MaxDestLen {
			return nil, fmt.Errorf("Use-As-Dictionary: match-dest: want at most %d characters, got %d", MaxDestLen, len(s))
		}
		out = append(out, s)
	}
	return out, nil
}

// String produces the Use-As-Dictionary field value. Members at their
// defaults (empty match-dest, empty id, type raw) are left out.
func (u Use) String() (string, error) { return u.format(false) }

// Explicit produces the Use-As-Dictionary field value with every member,
// defaults included: match, match-dest (possibly "()"), id and type.
func (u Use) Explicit() (string, error) { return u.format(true) }

func (u Use) format(all bool) (string, error) {
	if u.Match == "" {
		return "", errors.New("Use-As-Dictionary: match is required, got empty")
	}
	if len(u.ID) > MaxIDLen {
		return "", fmt.Errorf("Use-As-Dictionary: id: want at most %d characters, got %d", MaxIDLen, len(u.ID))
	}
	d := httpsfv.NewDictionary()
	d.Add("match", httpsfv.NewItem(u.Match))
	if all || len(u.MatchDest) > 0 {
		items := make([]httpsfv.Item, len(u.MatchDest))
		for i, s := range u.MatchDest {
			items[i] = httpsfv.NewItem(s)
		}
		d.Add("match-dest", httpsfv.InnerList{Items: items, Params: httpsfv.NewParams()})
	}
	if all || u.ID != "" {
		d.Add("id", httpsfv.NewItem(u.ID))
	}
	typ := u.Type
	if typ == "" {
		typ = TypeRaw
	}
	if all || typ != TypeRaw {
		d.Add("type", httpsfv.NewItem(httpsfv.Token(typ)))
	}
	s, err := httpsfv.Marshal(d)
	if err != nil {
		return "", fmt.Errorf("Use-As-Dictionary: %v", err)
	}
	return s, nil
}

// ParseAvailableDictionary parses Available-Dictionary: one byte sequence
// holding a 32-byte SHA-256 (RFC 9842 §2.2). Parameters are ignored.
func ParseAvailableDictionary(values []string) (Hash, error) {
	if err := checkFieldLen("Available-Dictionary", values); err != nil {
		return Hash{}, err
	}
	it, err := httpsfv.UnmarshalItem(values)
	if err != nil {
		return Hash{}, fmt.Errorf("Available-Dictionary: not a structured-field item: %v", err)
	}
	b, ok := it.Value.([]byte)
	if !ok {
		return Hash{}, fmt.Errorf("Available-Dictionary: want a byte sequence, got %T", it.Value)
	}
	var h Hash
	if len(b) != len(h) {
		return Hash{}, fmt.Errorf("Available-Dictionary: want a %d-byte SHA-256, got %d bytes", len(h), len(b))
	}
	copy(h[:], b)
	return h, nil
}

// FormatAvailableDictionary produces the Available-Dictionary value for h.
func FormatAvailableDictionary(h Hash) string {
	s, _ := httpsfv.Marshal(httpsfv.NewItem(h[:])) // a byte sequence always marshals
	return s
}

// ParseDictionaryID parses Dictionary-ID: one string of at most 1024
// characters (RFC 9842 §2.3).
func ParseDictionaryID(values []string) (string, error) {
	if err := checkFieldLen("Dictionary-ID", values); err != nil {
		return "", err
	}
	it, err := httpsfv.UnmarshalItem(values)
	if err != nil {
		return "", fmt.Errorf("Dictionary-ID: not a structured-field item: %v", err)
	}
	s, ok := it.Value.(string)
	if !ok {
		return "", fmt.Errorf("Dictionary-ID: want a string, got %T", it.Value)
	}
	if len(s) > MaxIDLen {
		return "", fmt.Errorf("Dictionary-ID: want at most %d characters, got %d", MaxIDLen, len(s))
	}
	return s, nil
}

// FormatDictionaryID produces the Dictionary-ID value for id.
func FormatDictionaryID(id string) (string, error) {
	if len(id) > MaxIDLen {
		return "", fmt.Errorf("Dictionary-ID: want at most %d characters, got %d", MaxIDLen, len(id))
	}
	s, err := httpsfv.Marshal(httpsfv.NewItem(id))
	if err != nil {
		return "", fmt.Errorf("Dictionary-ID: %v", err)
	}
	return s, nil
}
