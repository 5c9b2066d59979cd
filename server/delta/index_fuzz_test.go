package delta

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzHistoryIndex reads any bytes as a file's history index: either it
// is refused, or it gives at most history versions, each with an origin
// ETag listed once and a size from 0 to the bound, which written back read
// back the same.
func FuzzHistoryIndex(f *testing.F) {
	const file, history, maxSize = "a.txt", 3, 1 << 20
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, vs := range [][]*version{
		{{ETag: originTag("v2"), Size: 2, Stored: t0}, {ETag: originTag("v1"), Size: 1, Stored: t0.Add(-time.Hour)}},
		{{ETag: originTag("x"), Size: -1, Stored: t0}, {ETag: `"plain"`, Size: 1, Stored: t0}, nil},
	} {
		b, _ := json.Marshal(fileIndex{V: 1, File: file, Versions: vs})
		f.Add(b)
	}
	f.Add([]byte(`{"v":2,"file":"a.txt"}`))
	f.Add([]byte(`{"v":1,"file":"b.txt","versions":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		idx, ok := parseIndex(b, fileKey(file)+".json", history, maxSize)
		if !ok {
			return
		}
		if idx.File != file || len(idx.Versions) > history {
			t.Fatalf("file %q with %d versions, want %q and at most %d", idx.File, len(idx.Versions), file, history)
		}
		seen := map[string]bool{}
		for _, v := range idx.Versions {
			if _, ok := tagSum(v.ETag); !ok || seen[v.ETag] || v.Size < 0 || v.Size > maxSize || v.file != file {
				t.Fatalf("version %+v kept", *v)
			}
			seen[v.ETag] = true
		}
		again, err := json.Marshal(idx)
		if err != nil {
			t.Fatal(err)
		}
		idx2, ok := parseIndex(again, fileKey(file)+".json", history, maxSize)
		if b2, _ := json.Marshal(idx2); !ok || string(b2) != string(again) {
			t.Fatalf("written back %s, read back %s", again, b2)
		}
	})
}
