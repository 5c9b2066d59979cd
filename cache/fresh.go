package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Freshness is how long a response may be used without revalidation: the
// freshness lifetime of RFC 9111 §4.2.1 for a private cache (max-age, else
// Expires minus Date, else the heuristic of §4.2.2: a tenth of the time
// since Last-Modified) less the response's current age at responseTime
// (§4.2.3: Age, or responseTime minus Date if larger). RFC 9842 §2.2.1
// lets a client use a dictionary only while it is fresh. It returns the
// instant the response goes stale, and ok false when it is not fresh now
// or must not be kept (no-store, unless im says it is for caches that do
// not know RFC 3229, as Storable; no-cache, which demands revalidation
// before every use). s-maxage is for shared caches and is ignored; so is
// stale-while-revalidate, as hdig never revalidates a dictionary.
func Freshness(h http.Header, responseTime time.Time) (expires time.Time, ok bool) {
	if !Storable(h) {
		return time.Time{}, false
	}
	date, hasDate := httpTime(h.Get("Date"))
	if !hasDate {
		date = responseTime
	}
	lifetime, explicit := time.Duration(0), false
	for _, line := range h.Values("Cache-Control") {
		for name, arg := range directiveArgs(line) {
			switch name {
			case "no-cache":
				return time.Time{}, false
			case "max-age":
				if explicit {
					continue // the first one counts
				}
				explicit = true
				if n, err := strconv.ParseInt(arg, 10, 64); err == nil && n >= 0 {
					lifetime = seconds(n)
				}
			}
		}
	}
	if !explicit {
		if ex := h.Values("Expires"); len(ex) > 0 {
			explicit = true
			if t, ok := httpTime(ex[0]); ok {
				lifetime = t.Sub(date)
			}
		}
	}
	if !explicit {
		if lm, ok := httpTime(h.Get("Last-Modified")); ok && date.After(lm) {
			lifetime = date.Sub(lm) / 10
		}
	}
	age := max(responseTime.Sub(date), 0)
	if a, err := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64); err == nil && a >= 0 && seconds(a) > age {
		age = seconds(a)
	}
	if lifetime <= age {
		return time.Time{}, false
	}
	return responseTime.Add(lifetime - age), true
}

// seconds converts delta-seconds, saturating (RFC 9111 §1.2.2: a value
// too large is taken as 2^31 seconds).
func seconds(n int64) time.Duration {
	const most = 1 << 31
	return time.Duration(min(n, most)) * time.Second
}

func httpTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := http.ParseTime(strings.TrimSpace(s))
	return t, err == nil
}
