package browsertest_test

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hdig/hdig/server"
)

// hdigSignedOrigin is hdig serve --sign-key priv over a directory holding
// signedScriptPath.
func hdigSignedOrigin(t *testing.T, priv ed25519.PrivateKey) *server.Server {
	t.Helper()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(signedScriptPath)), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, signedScriptPath), signedScript, 0o644))
	s, err := server.New(dir, server.WithSigningKey(priv, "", "origin", time.Hour))
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestHdigServeSignedScriptRunsInBrowser: a <script integrity="ed25519-KEY">
// served by hdig serve --sign-key runs in Chromium: the sri signature over
// Unencoded-Digest is the profile Chromium verifies.
func TestHdigServeSignedScriptRunsInBrowser(t *testing.T) {
	pub, priv := keyPair(t, 3)
	proveSignedScript(t, sriBrowser(t), hdigSignedOrigin(t, priv).Handler(), pub, true)
}

// TestHdigServeWrongKeyBlockedInBrowser: signed by hdig serve with another
// key than the one the page names, the script is blocked.
func TestHdigServeWrongKeyBlockedInBrowser(t *testing.T) {
	pub, _ := keyPair(t, 3)
	_, other := keyPair(t, 4)
	proveSignedScript(t, sriBrowser(t), hdigSignedOrigin(t, other).Handler(), pub, false)
}
