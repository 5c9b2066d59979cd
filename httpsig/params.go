package httpsig

import (
	"fmt"
	"time"

	"github.com/dunglas/httpsfv"
)

// Params are the signature parameters (§2.3) with the covered components:
// one member of Signature-Input, the value of "@signature-params".
type Params struct {
	Components []Component
	Created    time.Time // zero: absent
	Expires    time.Time // zero: absent
	Nonce      string
	KeyID      string
	Alg        string
	Tag        string

	// list, when parsed from a message, is the member as received; it is
	// re-serialized for the signature base so that parameter order and
	// parameters this package does not know are kept.
	list *httpsfv.InnerList
}

// innerList is p as an Inner List: the parsed one, else components then
// created, expires, keyid, alg, nonce, tag.
func (p Params) innerList() httpsfv.InnerList {
	if p.list != nil {
		return *p.list
	}
	items := make([]httpsfv.Item, len(p.Components))
	for i, c := range p.Components {
		items[i] = c.item()
	}
	ps := httpsfv.NewParams()
	if !p.Created.IsZero() {
		ps.Add("created", p.Created.Unix())
	}
	if !p.Expires.IsZero() {
		ps.Add("expires", p.Expires.Unix())
	}
	for _, kv := range [][2]string{{"keyid", p.KeyID}, {"alg", p.Alg}, {"nonce", p.Nonce}, {"tag", p.Tag}} {
		if kv[1] != "" {
			ps.Add(kv[0], kv[1])
		}
	}
	return httpsfv.InnerList{Items: items, Params: ps}
}

// String is the "@signature-params" value: `("@method" …);created=…`.
func (p Params) String() string {
	s, err := httpsfv.Marshal(p.innerList())
	if err != nil {
		return "()"
	}
	return s
}

// paramsFromMember reads one Signature-Input member.
func paramsFromMember(label string, m httpsfv.Member) (Params, error) {
	il, ok := m.(httpsfv.InnerList)
	if !ok {
		return Params{}, fmt.Errorf("httpsig: Signature-Input %q is not an Inner List", label)
	}
	if len(il.Items) > MaxComponents {
		return Params{}, fmt.Errorf("httpsig: Signature-Input %q covers %d components, want at most %d", label, len(il.Items), MaxComponents)
	}
	if il.Params == nil {
		il.Params = httpsfv.NewParams()
	}
	p := Params{list: &il}
	for _, it := range il.Items {
		c, err := componentFromItem(it)
		if err != nil {
			return Params{}, fmt.Errorf("httpsig: Signature-Input %q: %v", label, err)
		}
		p.Components = append(p.Components, c)
	}
	for _, n := range il.Params.Names() {
		v, _ := il.Params.Get(n)
		if err := p.setParam(n, v); err != nil {
			return Params{}, fmt.Errorf("httpsig: Signature-Input %q: %v", label, err)
		}
	}
	return p, nil
}

func (p *Params) setParam(n string, v any) error {
	switch n {
	case "created", "expires":
		i, ok := v.(int64)
		if !ok || i < 0 {
			return fmt.Errorf("parameter %s is %v, want a non-negative integer", n, v)
		}
		if n == "created" {
			p.Created = time.Unix(i, 0)
		} else {
			p.Expires = time.Unix(i, 0)
		}
		return nil
	case "nonce", "keyid", "alg", "tag":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("parameter %s is %v, want a string", n, v)
		}
		switch n {
		case "nonce":
			p.Nonce = s
		case "keyid":
			p.KeyID = s
		case "alg":
			p.Alg = s
		default:
			p.Tag = s
		}
	}
	return nil
}
