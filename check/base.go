package check

import (
	"errors"
	"fmt"
	"os"

	"github.com/hdig/hdig/cache"
)

// FileBase returns a BaseFunc that reads the base version from the file at
// path, whatever the URL (hdig check --base FILE).
func FileBase(path string) BaseFunc {
	return func(string, string) (Base, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s is not a regular file", path)
		}
		return fileBase{File: f, size: fi.Size()}, nil
	}
}

type fileBase struct {
	*os.File
	size int64
}

func (b fileBase) Size() int64 { return b.size }

// CacheBase returns a BaseFunc that finds the base version in the hdig
// cache in dir (as hdig get stores them), and a function that closes the
// cache. A cache directory that does not exist is not created: the
// BaseFunc then finds nothing. A version whose bytes fail their sha-256 is
// dropped by the cache and not used.
func CacheBase(dir string) (BaseFunc, func(), error) {
	none := func(string, string) (Base, error) { return nil, nil }
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return none, func() {}, nil
	}
	c, err := cache.Open(dir)
	if err != nil {
		return none, func() {}, err
	}
	return func(url, etag string) (Base, error) {
		e, found, err := c.Lookup(url, etag)
		if err != nil || !found {
			return nil, err
		}
		b, err := c.Open(e)
		if errors.Is(err, cache.ErrCorrupt) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return b, nil
	}, func() { c.Close() }, nil
}
