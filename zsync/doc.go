// Package zsync reads and writes zsync 0.6.2 control files (.zsync) and
// finds, in seed files, the blocks of a target that are already present, so
// that only the missing byte ranges need fetching from any static HTTP host.
//
// A control file is a few "Key: value" header lines, a blank line, then per
// block of the target a truncated rolling checksum (rsum) and a truncated
// MD4. The whole target is checked with SHA-1 at the end.
//
// The package stands alone: it imports nothing from hdig's commands.
package zsync
