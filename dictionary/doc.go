// Package dictionary implements the wire pieces of Compression Dictionary
// Transport (RFC 9842): the Use-As-Dictionary, Available-Dictionary and
// Dictionary-ID fields, the URL-pattern subset that "match" needs, and the
// dcz (Zstandard with a raw dictionary) and dcb (Brotli with a prefix
// dictionary) content codings with their 40- and 36-byte headers.
//
// Every parser and decoder bounds what it accepts: field values are limited
// in length, and decoders stop at a caller-given output cap and refuse a
// header whose SHA-256 does not name the dictionary they were given.
//
// The package stands alone: it imports no other hdig package.
package dictionary
