// Command hdig is an HTTP client, verifier and reference origin for RFC 9530
// digest fields and RFC 3229 delta encoding.
package main

import (
	"os"

	"github.com/hdig/hdig/cmd"
)

func main() { os.Exit(cmd.Main()) }
