package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// boundedArray decodes the JSON array b (or null) one element at a time
// and fails at element limit+1, before the rest are built: a few bytes of
// JSON ("{}") make an element of hundreds, so a bound checked after
// json.Unmarshal comes after the allocation it is meant to prevent.
// what names the elements in errors.
func boundedArray[T any](b []byte, limit int, what string) ([]T, error) {
	if string(b) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("%s: want an array, got %s", what, oneLine(string(b[:min(len(b), 20)])))
	}
	var out []T
	for dec.More() {
		if len(out) == limit {
			return nil, fmt.Errorf("more than %d %s", limit, what)
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %v", what, len(out), err)
		}
		out = append(out, v)
	}
	return out, nil
}
