package httpsig

import (
	"fmt"
	"net/http"

	"github.com/dunglas/httpsfv"
)

// Signature is one labelled signature found in a message.
type Signature struct {
	Label  string
	Params Params
	Value  []byte
}

// ParseSignatures reads the Signature-Input and Signature fields of h:
// every label must be in both, at most MaxSignatures, each field at most
// MaxFieldLength bytes. No field at all is (nil, nil).
func ParseSignatures(h http.Header) ([]Signature, error) {
	out, bad, err := ParseEach(h)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, bad[0]
	}
	return out, nil
}

// LabelError is a label whose signature is malformed (in one field only,
// its parameters or its value); the others stand on their own.
type LabelError struct {
	Label string
	Err   error
	// Params, when not nil, are the label's parameters, read from
	// Signature-Input: its value is what cannot be read (not a Byte
	// Sequence, missing, or the Signature field not a Dictionary), so the
	// keyid and alg say whose signature failed.
	Params *Params
}

func (e *LabelError) Error() string { return e.Err.Error() }
func (e *LabelError) Unwrap() error { return e.Err }

// ParseEach is ParseSignatures for a verifier: a malformed label is
// returned apart, in bad, and does not hide the well-formed ones (RFC 9421
// §3.2 lets a verifier pick the signatures it verifies). err is for fields
// that cannot be read at all (not Dictionaries, too long, too many labels):
// Signature-Input, or Signature beside a Signature-Input with no label. A
// Signature that cannot be read makes each label of Signature-Input bad,
// with its Params.
func ParseEach(h http.Header) (sigs []Signature, bad []*LabelError, err error) {
	in, hasIn := h["Signature-Input"]
	sig, hasSig := h["Signature"]
	if !hasIn && !hasSig {
		return nil, nil, nil
	}
	inputs, err := parseDict("Signature-Input", in)
	if err != nil {
		return nil, nil, err
	}
	values, verr := parseDict("Signature", sig)
	if verr != nil && len(inputs.Names()) == 0 {
		return nil, nil, verr
	}
	if verr == nil {
		for _, l := range values.Names() {
			if _, ok := inputs.Get(l); !ok {
				bad = append(bad, &LabelError{Label: l, Err: fmt.Errorf("httpsig: label %q is in Signature but not in Signature-Input", l)})
			}
		}
	}
	for _, l := range inputs.Names() {
		m, _ := inputs.Get(l)
		p, err := paramsFromMember(l, m)
		if err != nil {
			bad = append(bad, &LabelError{Label: l, Err: err})
			continue
		}
		if verr != nil {
			bad = append(bad, &LabelError{Label: l, Err: verr, Params: &p})
			continue
		}
		v, err := valueOf(l, values)
		if err != nil {
			bad = append(bad, &LabelError{Label: l, Err: err, Params: &p})
			continue
		}
		sigs = append(sigs, Signature{Label: l, Params: p, Value: v})
	}
	return sigs, bad, nil
}

// ParseSignatureInput parses one Signature-Input value into its labelled
// parameters, in order.
func ParseSignatureInput(v string) ([]string, []Params, error) {
	d, err := parseDict("Signature-Input", []string{v})
	if err != nil {
		return nil, nil, err
	}
	var out []Params
	for _, l := range d.Names() {
		m, _ := d.Get(l)
		p, err := paramsFromMember(l, m)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, p)
	}
	return d.Names(), out, nil
}

func parseDict(field string, vs []string) (*httpsfv.Dictionary, error) {
	n := 0
	for _, v := range vs {
		n += len(v) + 2
	}
	if n > MaxFieldLength {
		return nil, fmt.Errorf("httpsig: %s of %d bytes, want at most %d", field, n, MaxFieldLength)
	}
	d, err := httpsfv.UnmarshalDictionary(vs)
	if err != nil {
		return nil, fmt.Errorf("httpsig: %s is not a valid Dictionary: %v", field, err)
	}
	if len(vs) > 1 {
		if err := uniqueLabels(field, vs); err != nil {
			return nil, err
		}
	}
	if len(d.Names()) > MaxSignatures {
		return nil, fmt.Errorf("httpsig: %s has %d labels, want at most %d", field, len(d.Names()), MaxSignatures)
	}
	return d, nil
}

// valueOf is label's member of Signature, a Byte Sequence.
func valueOf(label string, values *httpsfv.Dictionary) ([]byte, error) {
	v, ok := values.Get(label)
	if !ok {
		return nil, fmt.Errorf("httpsig: label %q is in Signature-Input but not in Signature", label)
	}
	it, ok := v.(httpsfv.Item)
	b, isBytes := it.Value.([]byte)
	if !ok || !isBytes {
		return nil, fmt.Errorf("httpsig: Signature %q is not a Byte Sequence", label)
	}
	return b, nil
}

// setSignature adds label's Signature-Input and Signature members to h,
// keeping the members already there; a label already present is an error.
func setSignature(h http.Header, label string, p Params, sig []byte) error {
	inputs, err := parseDict("Signature-Input", h["Signature-Input"])
	if err != nil {
		return err
	}
	values, err := parseDict("Signature", h["Signature"])
	if err != nil {
		return err
	}
	_, a := inputs.Get(label)
	_, b := values.Get(label)
	if a || b {
		return fmt.Errorf("httpsig: label %q is already in the message", label)
	}
	inputs.Add(label, p.innerList())
	values.Add(label, httpsfv.NewItem(sig))
	si, err := httpsfv.Marshal(inputs)
	if err != nil {
		return fmt.Errorf("httpsig: Signature-Input: %v", err)
	}
	sv, err := httpsfv.Marshal(values)
	if err != nil {
		return fmt.Errorf("httpsig: Signature: %v", err)
	}
	h.Set("Signature-Input", si)
	h.Set("Signature", sv)
	return nil
}

// uniqueLabels rejects a label repeated across field lines (§4.1, §4.2),
// which combining the lines into one Dictionary would hide.
func uniqueLabels(field string, vs []string) error {
	seen := map[string]bool{}
	for _, v := range vs {
		d, err := httpsfv.UnmarshalDictionary([]string{v})
		if err != nil {
			return fmt.Errorf("httpsig: %s is not a valid Dictionary: %v", field, err)
		}
		for _, l := range d.Names() {
			if seen[l] {
				return fmt.Errorf("httpsig: label %q occurs in more than one %s field", l, field)
			}
			seen[l] = true
		}
	}
	return nil
}
