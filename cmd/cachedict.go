package cmd

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hdig/hdig/cache"
)

// listDicts prints the stored compression dictionaries (hdig cache ls
// --dictionaries): one tab-separated line each, URL, match, id, size,
// expiry (or "expired"), sha-256 prefix; with URL, those from that URL.
func listDicts(ios *IOStreams, o *cacheOptions, c *cache.Cache) error {
	ds := []cache.Dict{}
	var total int64
	for _, d := range c.Dicts() {
		if o.URL == "" || d.URL == o.URL {
			ds = append(ds, d)
			total += d.Size
		}
	}
	if o.JSON {
		enc := json.NewEncoder(ios.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			Dir          string       `json:"dir"`
			Dictionaries []cache.Dict `json:"dictionaries"`
		}{c.Dir, ds})
	}
	now := time.Now()
	for _, d := range ds {
		expires := d.Expires.UTC().Format(time.RFC3339)
		if !d.Fresh(now) {
			expires = "expired"
		}
		listLine(ios.Out, []string{d.URL, d.Match, d.ID, fmt.Sprint(d.Size), expires, d.SHA256[:12]})
	}
	word := "dictionaries"
	if len(ds) == 1 {
		word = "dictionary"
	}
	fmt.Fprintf(ios.ErrOut, "%d %s, %s, in %s\n", len(ds), word, humanBytes(total), c.Dir)
	return nil
}
