package servertest

import (
	"io"
	"net/http"
	"testing"

	"github.com/hdig/hdig/server"
)

func TestNewFiles(t *testing.T) {
	ts := NewFiles(t, map[string]string{"items/123.json": Hello}, server.WithIgnoreRange())
	req, _ := http.NewRequest("GET", ts.URL+"/items/123.json", nil)
	req.Header.Set("Range", "bytes=0-1")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != Hello || resp.Header.Get("Repr-Digest") != HelloSHA256 {
		t.Errorf("got %d %q %q", resp.StatusCode, body, resp.Header.Get("Repr-Digest"))
	}
}
