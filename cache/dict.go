package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"
)

// Compression dictionaries (RFC 9842) live beside the base versions:
//
//	dicts/index.json      every stored dictionary: its rules, origin, expiry
//	dicts/<sha256>        the dictionary's bytes, named by their hex sha-256
//
// One index for all of them, because a request is matched against every
// dictionary of its origin (a dictionary stored for /app-v1.js serves
// /app-v2.js), and the index stays small: DictMaxCount entries of a few
// hundred bytes. The bytes are read whole (the decoders take the
// dictionary as a slice), so each is bounded by DictMaxSize.

// Defaults of the dictionary store.
const (
	DefaultDictMaxBytes  = 256 << 20 // all dictionaries together
	DefaultDictMaxSize   = 64 << 20  // one dictionary
	DefaultDictMaxCount  = 64        // dictionaries kept
	DefaultDictPerOrigin = 16        // dictionaries kept per origin
)

const dictDir = "dicts"

// Dict is one stored dictionary: the decoded bytes of a response that
// carried Use-As-Dictionary, with that field's rules.
type Dict struct {
	URL       string    `json:"url"`                  // the request URL it came from (the pattern's base)
	Origin    string    `json:"origin"`               // scheme://host[:port] of URL
	Match     string    `json:"match"`                // URL pattern
	MatchDest []string  `json:"match_dest,omitempty"` // request destinations
	ID        string    `json:"id,omitempty"`         // echoed in Dictionary-ID
	Type      string    `json:"type"`                 // "raw"
	SHA256    string    `json:"sha256"`               // hex sha-256 of the bytes
	Size      int64     `json:"size"`
	Stored    time.Time `json:"stored"`  // when it was fetched
	Expires   time.Time `json:"expires"` // end of its freshness (RFC 9111 §4.2)
	Used      time.Time `json:"used"`    // last stored or read
}

// Fresh reports whether d may still be used at now.
func (d Dict) Fresh(now time.Time) bool { return now.Before(d.Expires) }

// PutDict stores the bytes read from r as dictionary d (d.URL, Origin,
// Match, MatchDest, ID, Type and Expires set by the caller; if d.SHA256 is
// set the bytes must hash to it). A dictionary from the same URL is
// replaced; expired ones are dropped; then the oldest-used go until
// DictPerOrigin, DictMaxCount and DictMaxBytes hold. Bytes over
// DictMaxSize are refused with ErrTooLarge.
func (c *Cache) PutDict(d Dict, r io.Reader) (Dict, error) {
	if d.URL == "" || d.Origin == "" || d.Match == "" {
		return Dict{}, errors.New("cache put dictionary: want URL, origin and match, got an empty one")
	}
	d.URL = keyURL(d.URL)
	if err := dictFieldsFit(d); err != nil {
		return Dict{}, fmt.Errorf("cache put dictionary: %w", err)
	}
	if err := c.root.MkdirAll(dictDir, 0o700); err != nil {
		return Dict{}, fmt.Errorf("cache put dictionary: %w", err)
	}
	f, tmp, err := c.createTemp(dictDir)
	if err != nil {
		return Dict{}, fmt.Errorf("cache put dictionary: %w", err)
	}
	lim := c.dictMaxSize()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, lim+1))
	if err == nil && n > lim {
		err = fmt.Errorf("%w: want at most %d bytes for a dictionary, got more", ErrTooLarge, lim)
	}
	// Not synced, as blobs are not (putBlob): ReadDict checks the bytes
	// against their sha-256 on every read, so a torn file is dropped.
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err == nil && d.SHA256 != "" && d.SHA256 != sum {
		err = fmt.Errorf("sha-256 mismatch: want %s, got %s", d.SHA256, sum)
	}
	if err != nil {
		c.root.Remove(tmp)
		return Dict{}, fmt.Errorf("cache put dictionary %s: %w", d.URL, err)
	}
	d.SHA256, d.Size, d.Stored, d.Used = sum, n, c.now(), c.now()
	err = c.locked(func() error {
		if err := c.rename(tmp, dictBlob(sum)); err != nil {
			return err
		}
		idx := c.readDictIndex()
		kept := idx.Dicts[:0]
		for _, old := range idx.Dicts {
			if old.URL != d.URL {
				kept = append(kept, old)
			}
		}
		idx.Dicts = append(kept, d)
		c.trimDicts(idx, d)
		return c.writeDictIndex(idx)
	})
	if err != nil {
		c.root.Remove(tmp)
		return Dict{}, fmt.Errorf("cache put dictionary %s: %w", d.URL, err)
	}
	return d, nil
}

// Dicts returns the stored dictionaries, fresh or not, newest first.
func (c *Cache) Dicts() []Dict {
	idx := c.readDictIndex()
	return idx.Dicts
}

// ReadDict returns the bytes of d after checking them against its
// sha-256. A dictionary whose bytes are gone or changed is dropped and
// the error wraps ErrCorrupt.
func (c *Cache) ReadDict(d Dict) ([]byte, error) {
	if !validSum(d.SHA256) || d.Size < 0 || d.Size > c.dictMaxSize() {
		return nil, fmt.Errorf("dictionary %s: bad index entry: %w", d.URL, ErrCorrupt)
	}
	b, err := c.readSmall(dictBlob(d.SHA256), d.Size)
	if err == nil && int64(len(b)) != d.Size {
		err = fmt.Errorf("%d bytes, want %d", len(b), d.Size)
	}
	if err == nil {
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != d.SHA256 {
			err = fmt.Errorf("sha-256 mismatch: want %s, got %x", d.SHA256, got)
		}
	}
	if err != nil {
		c.dropDict(d, err.Error())
		return nil, fmt.Errorf("dictionary %s: %v: %w", d.URL, err, ErrCorrupt)
	}
	return b, nil
}

// dropDict removes d from the index, and its bytes when no other entry
// names them.
func (c *Cache) dropDict(d Dict, why string) {
	err := c.locked(func() error {
		c.warnf("dropping dictionary %s: %s", d.URL, why)
		idx := c.readDictIndex()
		kept := idx.Dicts[:0]
		for _, old := range idx.Dicts {
			if old.URL != d.URL || old.SHA256 != d.SHA256 {
				kept = append(kept, old)
			}
		}
		idx.Dicts = kept
		return c.writeDictIndex(idx)
	})
	if err != nil {
		c.warnf("cannot drop dictionary %s: %v", d.URL, err)
	}
}

// GCDicts drops expired dictionaries and bytes no entry names. It returns
// how many entries and files it removed.
func (c *Cache) GCDicts() (int, error) {
	var n int
	if _, err := c.root.Stat(dictDir); errors.Is(err, fs.ErrNotExist) {
		return 0, nil // no dictionary was ever stored
	}
	err := c.locked(func() error {
		idx := c.readDictIndex()
		before := len(idx.Dicts)
		c.trimDicts(idx, Dict{})
		n = before - len(idx.Dicts)
		if err := c.writeDictIndex(idx); err != nil {
			return err
		}
		n += c.sweepDicts(idx)
		return nil
	})
	return n, err
}

// ClearDicts deletes every dictionary.
func (c *Cache) ClearDicts() error {
	return c.locked(func() error {
		if err := c.root.RemoveAll(dictDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cache clear dictionaries: %w", err)
		}
		return nil
	})
}

func dictBlob(sum string) string { return path.Join(dictDir, sum) }

func (c *Cache) dictMaxSize() int64 {
	if c.DictMaxSize > 0 {
		return c.DictMaxSize
	}
	return DefaultDictMaxSize
}
