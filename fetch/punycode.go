package fetch

// punycode is RFC 3492's encoding of one label (§6.3), as
// net/http/cookiejar's; ok false on overflow.
func punycode(s string) (string, bool) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	adapt := func(delta, n int32, first bool) int32 {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / n
		k := int32(0)
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	digit := func(d int32) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	var out []byte
	b, remaining := int32(0), int32(0)
	for _, r := range s {
		if r < 0x80 {
			b++
			out = append(out, byte(r))
		} else {
			remaining++
		}
	}
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	n, delta, bias := int32(initialN), int32(0), int32(initialBias)
	for remaining != 0 {
		m := int32(0x7fffffff)
		for _, r := range s {
			if m > r && r >= n {
				m = r
			}
		}
		delta += (m - n) * (h + 1)
		if delta < 0 {
			return "", false
		}
		n = m
		for _, r := range s {
			if r < n {
				delta++
				if delta < 0 {
					return "", false
				}
				continue
			}
			if r > n {
				continue
			}
			q := delta
			for k := int32(base); ; k += base {
				t := k - bias
				if t < tmin {
					t = tmin
				} else if t > tmax {
					t = tmax
				}
				if q < t {
					break
				}
				out = append(out, digit(t+(q-t)%(base-t)))
				q = (q - t) / (base - t)
			}
			out = append(out, digit(q))
			bias = adapt(delta, h+1, h == b)
			delta = 0
			h++
			remaining--
		}
		delta++
		n++
	}
	return string(out), true
}
