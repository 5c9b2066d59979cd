package fetch

import "time"

// testStall is the stall timeout of test clients: far beyond what a loaded
// 2-core machine under -race needs for a response to start. A test that
// hangs is reported by go test -timeout, never by a tight deadline here.
const testStall = 5 * time.Minute
