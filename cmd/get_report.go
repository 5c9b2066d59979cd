package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
)

// jsonVerdict is the contract's `hdig get --json` object.
type jsonVerdict struct {
	URL      string       `json:"url"`
	Status   int          `json:"status"`
	Verdict  string       `json:"verdict"`
	Bytes    int64        `json:"bytes"`
	ETag     string       `json:"etag"`
	Digests  []jsonDigest `json:"digests"`
	Transfer jsonTransfer `json:"transfer"`
	Warnings []string     `json:"warnings"`
	Error    string       `json:"error,omitempty"`
	// Signatures are the checks of --trust-key (get_report_sign.go).
	Signatures []jsonSignature `json:"signatures,omitempty"`
	// Headers are the response headers of -I (stdout carries only JSON).
	Headers http.Header `json:"headers,omitempty"`
}

type jsonDigest struct {
	Field     string `json:"field"`
	Algorithm string `json:"algorithm"`
	Result    string `json:"result"`
	Expected  string `json:"expected"`
	Actual    string `json:"actual"`
	Reason    string `json:"reason,omitempty"`
}

type jsonTransfer struct {
	Strategy  string   `json:"strategy"`
	Received  int64    `json:"received"`
	IM        []string `json:"im"`
	DeltaBase string   `json:"delta_base"`
	Pieces    int      `json:"pieces"`
	Retries   int      `json:"retries,omitempty"`
	Reused    int64    `json:"reused,omitempty"`
	Sent      int64    `json:"sent,omitempty"`
	// Dictionary: the RFC 9842 dictionary a dcb or dcz body was decoded
	// with (strategy dictionary).
	Dictionary *jsonDictionary `json:"dictionary,omitempty"`
	// Mirrors: what each mirror did (--mirror, Link rel=duplicate).
	Mirrors []fetch.MirrorReport `json:"mirrors,omitempty"`
}

type jsonDictionary struct {
	Coding string `json:"coding"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	ID     string `json:"id,omitempty"`
	Size   int64  `json:"size"`
}

// verdictName is the contract's verdict word for a result and error.
func verdictName(res *fetch.Result, err error) string {
	switch {
	case errors.Is(err, fetch.ErrMismatch):
		return "mismatch"
	case errors.Is(err, fetch.ErrUnverified):
		return "unverified"
	case err != nil || res == nil:
		return "error"
	case res.Authenticated():
		return "authentic"
	}
	return string(res.Outcome())
}

// reportGet prints the verdict (line on stderr, JSON on stdout) and turns
// the outcome into the command's error.
func reportGet(ios *IOStreams, o *getOptions, res *fetch.Result, err error) error {
	if o.JSON {
		writeJSONVerdict(ios.Out, o, res, err)
	}
	if res != nil {
		for _, w := range res.Verdict.Warnings {
			if !o.Silent {
				linef(ios.ErrOut, "warning: %s", w)
			}
		}
		if res.Part != "" && !o.Silent {
			linef(ios.ErrOut, "hdig: %s kept: run the same command with -C to resume", res.Part)
		}
		failed := errors.Is(err, fetch.ErrMismatch) || errors.Is(err, fetch.ErrUnverified)
		if (!o.Silent && (err == nil || failed)) || (o.Silent && o.Out.ShowError && failed) {
			fmt.Fprintln(ios.ErrOut, o.label+verdictLine(palette{on: ios.ColorEnabled()}, o, res, err))
		}
		if res.Status >= 300 && res.Status < 400 && !o.Location {
			if loc := res.Header.Get("Location"); loc != "" && !o.Silent {
				linef(ios.ErrOut, "note: %d redirect to %s (use -L to follow)", res.Status, loc)
			}
		}
	}
	if err != nil && (errors.Is(err, fetch.ErrMismatch) || errors.Is(err, fetch.ErrUnverified)) {
		switch {
		case o.Silent || o.Output == "":
		case o.Out.RemoteHeaderName: // o.Output is -J's scratch name, never the user's
			fmt.Fprintln(ios.ErrOut, "hdig: nothing was written")
		default:
			linef(ios.ErrOut, "hdig: %s was not written", o.Output)
		}
		if res != nil {
			return exitSilently(ExitCode(err)) // the verdict line said why
		}
	}
	return err
}

// verdictLine is the one-line verdict, e.g.
// `✔ verified Repr-Digest sha-256 (4.0 MiB)`.
func verdictLine(p palette, o *getOptions, res *fetch.Result, err error) string {
	size := humanBytes(res.Bytes)
	switch {
	case res.Strategy == fetch.StrategyHead:
		size = "HEAD"
	case res.Sent > 0 && res.Bytes > 0:
		size = fmt.Sprintf("%s sent, %s received", humanBytes(res.Sent), size)
	case res.Sent > 0:
		size = fmt.Sprintf("%s sent, %d %s", humanBytes(res.Sent), res.Status, http.StatusText(res.Status))
	}
	detail := size + transferNote(res)
	if bad := res.Verdict.Mismatches(); len(bad) > 0 {
		c := bad[0]
		if c.Reason != "" { // where: in trailer, multipart part 2, of the dcb response, …
			detail = c.Reason + "; " + detail
		}
		if len(bad) > 1 {
			detail += fmt.Sprintf("; %d more mismatches", len(bad)-1)
		}
		return p.bad("✖ mismatch") + textf(" %s %s: want %s, got %s (%s)", c.Field, c.Algorithm,
			verify.Base64(c.Expected), verify.Base64(c.Actual), detail)
	}
	if res.Unchanged && err == nil {
		kept := "nothing written"
		if o.Output != "" {
			kept = o.Output + " left as it was"
			var own verify.Verdict // the user's digests, compared with FILE
			for _, c := range res.Verdict.Checks {
				if c.Field == expectField || c.Field == checksumFileField {
					own.Add(c)
				}
			}
			if m := matched(own); m != "" {
				kept += "; it matches " + m
			}
		}
		return p.ok("✔ not modified") + textf(": %d %s, the copy the conditions name is current (%s)", res.Status, http.StatusText(res.Status), kept)
	}
	if line, ok := signatureLine(p, res, err, detail); ok {
		return line
	}
	if errors.Is(err, fetch.ErrUnverified) {
		return p.bad("✖ unverified") + textf(": no accepted digest verified (%s; accepted: %s)", detail, o.Accept)
	}
	m := matched(res.Verdict)
	if m != "" && res.Outcome() == verify.Verified {
		return p.ok("✔ verified") + textf(" %s (%s)", m, detail)
	}
	why := "no digest the policy accepts could be checked"
	if m != "" { // of this message's content only: HEAD's or 304's empty content, a 206's part
		why = m + " matched this message's content, which is not the whole representation: nothing proves the representation"
	} else if len(res.Verdict.Checks) == 0 {
		why = "the origin sent no digest hdig could check"
	}
	return p.warn("⚠ unverified") + textf(": %s (%s)", why, detail)
}

// matched names the matching fields and algorithms, Repr-Digest first,
// then the others (--expect, x-amz-checksum-sha256, …) as they came.
func matched(v verify.Verdict) string {
	byField := map[string][]string{}
	order := []string{verify.ReprDigest, verify.ContentDigest, verify.LegacyDigest}
	for _, c := range v.Checks {
		if c.Result == verify.Match {
			byField[c.Field] = appendUnique(byField[c.Field], c.Algorithm)
			order = appendUnique(order, c.Field) // --expect, x-goog-hash, …
		}
	}
	var parts []string
	for _, f := range order {
		if algs := byField[f]; len(algs) > 0 {
			parts = append(parts, f+" "+strings.Join(algs, ", "))
		}
	}
	return strings.Join(parts, " and ")
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// transferNote describes how the bytes came, when it was not one plain GET.
func transferNote(res *fetch.Result) string {
	switch res.Strategy {
	case fetch.StrategyDelta:
		saved := 0.0
		if res.Bytes > 0 {
			saved = 100 * (1 - float64(res.Received)/float64(res.Bytes))
		}
		return fmt.Sprintf("; 226 %s from %s: %s received, %.1f%% saved", strings.Join(res.IM, ", "), res.DeltaBase, humanBytes(res.Received), saved)
	case fetch.StrategyNotModified:
		if res.Unchanged {
			return "; 304 not modified, nothing written"
		}
		if res.Status == http.StatusOK {
			return "; already complete, nothing fetched"
		}
		return "; 304 not modified, cached copy"
	case fetch.StrategyDictionary:
		saved := 0.0
		if res.Bytes > 0 {
			saved = 100 * (1 - float64(res.Received)/float64(res.Bytes))
		}
		d := res.Dictionary
		return fmt.Sprintf("; %s with dictionary %s (sha-256 %s…): %s received, %.1f%% saved", d.Coding, d.URL, d.SHA256[:12], humanBytes(res.Received), saved)
	case fetch.StrategyZsync:
		return fmt.Sprintf("; zsync: %s received in %s, %s reused from seeds", humanBytes(res.Received), count(res.Pieces, "range request"), humanBytes(res.Reused))
	case fetch.StrategyRanges:
		note := fmt.Sprintf("; %d pieces", res.Pieces)
		if res.Pieces == 1 {
			note = "; 1 piece"
		}
		note += mirrorNote(res)
		if res.Received < res.Bytes {
			note += fmt.Sprintf(", %s received", humanBytes(res.Received))
		}
		return note
	}
	if res.Retries > 0 {
		return fmt.Sprintf("; after %d retries", res.Retries)
	}
	return ""
}

func writeJSONVerdict(w io.Writer, o *getOptions, res *fetch.Result, err error) {
	j := jsonVerdict{URL: o.URL, Verdict: verdictName(res, err), Digests: []jsonDigest{}, Warnings: []string{}}
	j.Transfer.IM = []string{}
	if res != nil {
		j.URL, j.Status, j.Bytes, j.ETag = res.URL, res.Status, res.Bytes, res.ETag
		for _, c := range res.Verdict.Checks {
			j.Digests = append(j.Digests, jsonDigest{Field: c.Field, Algorithm: c.Algorithm, Result: string(c.Result),
				Expected: verify.Base64(c.Expected), Actual: verify.Base64(c.Actual), Reason: c.Reason})
		}
		j.Warnings = append(j.Warnings, res.Verdict.Warnings...)
		j.Transfer = jsonTransfer{Strategy: res.Strategy, Received: res.Received, IM: res.IM,
			DeltaBase: res.DeltaBase, Pieces: res.Pieces, Retries: res.Retries, Sent: res.Sent, Reused: res.Reused, Mirrors: res.Mirrors}
		if d := res.Dictionary; d != nil {
			j.Transfer.Dictionary = &jsonDictionary{Coding: d.Coding, URL: d.URL, SHA256: d.SHA256, ID: d.ID, Size: d.Size}
		}
		if o.Head {
			j.Headers = res.Header
		}
		j.Signatures = jsonSignatures(res)
		if j.Transfer.IM == nil {
			j.Transfer.IM = []string{}
		}
	}
	if err != nil { // why the run failed, whatever its verdict: a mismatch may have no digest entry to show it
		j.Error = err.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(j)
}

// dumpRequest prints a request's headers on stderr, curl -v style. The
// Host is the one net/http writes: r.Host (-H 'Host: NAME'), else the
// URL's; it ignores a Host entry of the header map, and writes no empty
// User-Agent (-H 'User-Agent:', fetch.OmitFields).
func dumpRequest(ios *IOStreams, r *http.Request) {
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	fmt.Fprintf(ios.ErrOut, "> %s %s %s\n> Host: %s\n", r.Method, r.URL.RequestURI(), "HTTP/1.1", host)
	h := r.Header.Clone()
	h.Del("Host")
	if h.Get("User-Agent") == "" {
		h.Del("User-Agent")
	}
	writeHeader(ios.ErrOut, h, "> ")
	fmt.Fprintln(ios.ErrOut, ">")
}

// dumpResponse prints a response's status line and headers.
func dumpResponse(w io.Writer, r *http.Response, prefix string) {
	fmt.Fprintf(w, "%s%s %s\n", prefix, r.Proto, r.Status)
	writeHeader(w, r.Header, prefix)
	fmt.Fprintln(w, strings.TrimRight(prefix, " "))
}

func writeHeader(w io.Writer, h http.Header, prefix string) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(w, "%s%s: %s\n", prefix, k, v)
		}
	}
}
