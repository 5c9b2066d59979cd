package smallfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if err := os.WriteFile(name, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		max     int64
		want    string
		tooLong bool
	}{
		{name, 5, "12345", false},
		{name, 4, "", true},
		{"/dev/zero", 1 << 10, "", true}, // never ends: read to the bound only
	} {
		b, err := Read(tc.name, tc.max)
		if string(b) != tc.want || errors.Is(err, ErrTooLarge) != tc.tooLong || (err == nil) == tc.tooLong {
			t.Errorf("Read(%s, %d) = %q, %v; want %q, too large %v", tc.name, tc.max, b, err, tc.want, tc.tooLong)
		}
	}
	if _, err := Read(filepath.Join(dir, "absent"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an absent file: %v, want ErrNotExist", err)
	}
}
