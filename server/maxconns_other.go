//go:build !unix

package server

// DefaultMaxConns is the default connection cap where the descriptor
// limit is not known.
func DefaultMaxConns() int { return 1024 }
