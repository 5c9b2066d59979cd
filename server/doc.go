// Package server is hdig's reference origin: it serves a directory with
// every behaviour RFC 9530 describes, and with deliberate faults for testing
// clients.
//
// Files are opened through os.Root, so neither "..", percent-encoded or
// not, nor a symlink can reach outside the directory; dotfiles (and
// symlinks to them) are never served or written.
//
// GET and HEAD go through http.ServeContent, which owns the semantics of
// Range (206, multipart/byteranges, 416 with "bytes */N"), If-Range,
// If-Match, If-None-Match (304) and If-Modified-Since. Around it the server
// sets:
//
//   - ETag: strong, "sha256-" and the unpadded base64url sha-256 of the
//     representation's bytes; each encoded variant has its own.
//   - Repr-Digest on 200, 206, 304 and HEAD, over the whole selected
//     representation (the encoded bytes for a variant), with the
//     algorithms of Want-Repr-Digest (sha-256 by default; any registered
//     algorithm, deprecated ones included, when it weighs most; ties give
//     several members; weight 0 excludes; a malformed or unusable field is
//     only a hint and changes nothing).
//   - Content-Digest when Want-Content-Digest is present, over exactly the
//     content of the message; see bodyWriter for where each case comes from.
//     Partial content up to WithHeaderDigestLimit (64 MiB) gets it as a
//     header; larger partial content as a trailer.
//
// Digests are computed once per file version (path, size, mtime, device,
// inode) and algorithm, lazily: sha-256 on the first request (for the
// ETag), any other algorithm on the first request that asks for it. A
// request for an uncached digest of a large file waits for that one pass.
//
// Text-like types (text/*, JSON, XML, JavaScript, SVG, …) up to
// WithCompressLimit are offered as gzip, br and zstd by Accept-Encoding,
// with Vary: Accept-Encoding. Variants are compressed once and kept in
// memory under a byte budget (WithVariantMemory) or on disk
// (WithStateDir), content-addressed by the identity's sha-256. Ranges
// apply to the encoded bytes; a multi-range request on a variant gets the
// whole variant (200), since multipart/byteranges has no place for a
// coding that applies to its parts.
//
// With WithWritable, PUT stores and POST to a directory creates; both are
// verified against the request's Content-Digest and Repr-Digest before an
// atomic rename (see serveWrite). Failures are RFC 9457 problem details.
//
// The hook for the RFC 3229 delta step is WithDelta (DeltaHandler, and
// ReplaceObserver for history); the fault options (With… in faults.go) are
// for tests of clients and are not reachable from the command line.
package server
