// Package httpfield parses the HTTP fields that hdig's client, origin and
// audit all read (RFC 9110): Content-Range, Range (and the -r argument that
// builds it), entity-tag lists and qvalues (for A-IM, Accept-Encoding and
// Want-Digest), and how a URL is named in output (Redact). Each rule is written once, here, so that
// the three agree; every parser bounds the sizes it accepts.
package httpfield
