package httpsig

import (
	"errors"
	"fmt"
	"strings"
)

// Base builds the signature base of RFC 9421 §2.5 for the covered
// components and parameters in p over m.
func Base(m Message, p Params) ([]byte, error) {
	if len(p.Components) > MaxComponents {
		return nil, fmt.Errorf("httpsig: %d covered components, want at most %d", len(p.Components), MaxComponents)
	}
	var b strings.Builder
	seen := make(map[string]bool, len(p.Components))
	read := 0 // field bytes read: a key or sf component parses its whole field for a short value
	// A trailer field that never came (ErrNoTrailer) leaves the signature
	// unjudged only when nothing else fails it: the other components are
	// still checked, and their failure is the one returned.
	var noTrailer error
	for _, c := range p.Components {
		if c.Name == "@signature-params" {
			return nil, fmt.Errorf("httpsig: @signature-params cannot be a covered component")
		}
		if seen[c.key()] {
			return nil, fmt.Errorf("httpsig: component %s is covered twice", c)
		}
		seen[c.key()] = true
		if read += m.fieldBytes(c); read > MaxBaseLength {
			return nil, fmt.Errorf("httpsig: component %s: the fields covered are over %d bytes read for the signature base", c, MaxBaseLength)
		}
		v, err := m.value(c)
		if err != nil && errors.Is(err, ErrNoTrailer) {
			if noTrailer == nil {
				noTrailer = err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("httpsig: component %s: value contains a newline", c)
		}
		b.WriteString(c.String())
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
		if b.Len() > MaxBaseLength {
			return nil, fmt.Errorf("httpsig: signature base over %d bytes", MaxBaseLength)
		}
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(p.String())
	s := b.String()
	if len(s) > MaxBaseLength {
		return nil, fmt.Errorf("httpsig: signature base over %d bytes", MaxBaseLength)
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || (s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f {
			return nil, fmt.Errorf("httpsig: signature base has a non-ASCII or control byte 0x%02x at %d", s[i], i)
		}
	}
	if noTrailer != nil {
		return nil, noTrailer
	}
	return []byte(s), nil
}

// value is the canonical value of one covered component.
func (m Message) value(c Component) (string, error) {
	if err := c.check(m.isResponse()); err != nil {
		return "", err
	}
	if c.Derived() {
		return m.derivedValue(c)
	}
	return m.fieldValue(c)
}
