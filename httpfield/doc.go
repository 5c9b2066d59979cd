// Package httpfield parses the HTTP fields that hdig's client, origin and
// audit all read (RFC 9110): Content-Range, Range (and the -r argument that
// builds it) and entity-tag lists. Each rule is written once, here, so that
// the three agree; every parser bounds the sizes it accepts.
package httpfield
