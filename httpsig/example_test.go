package httpsig_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/hdig/hdig/httpsig"
)

// Sign a response's Repr-Digest with an HMAC key and verify it, requiring
// that the digest is covered.
func Example() {
	secret, _ := base64.StdEncoding.DecodeString("uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==")
	resp := &http.Response{StatusCode: 200, Header: http.Header{}}
	resp.Header.Set("Repr-Digest", "sha-256=:LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=:")
	m := httpsig.ResponseMessage(resp, nil)

	signer, _ := httpsig.NewSigner(httpsig.HMACSHA256, secret)
	cs, _ := httpsig.ParseComponents([]string{"@status", "repr-digest"})
	created := time.Unix(1618884473, 0)
	if _, err := httpsig.Sign(m, "sig1", httpsig.Params{Components: cs, Created: created, KeyID: "k"}, signer); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Signature-Input:", resp.Header.Get("Signature-Input"))

	verifier, _ := httpsig.NewVerifier(httpsig.HMACSHA256, secret)
	r, err := httpsig.Verify(m, httpsig.Policy{
		Keys:    []httpsig.Key{{ID: "k", Verifier: verifier}},
		Require: []string{"repr-digest|content-digest"},
		MaxAge:  time.Hour,
		Now:     func() time.Time { return created.Add(time.Minute) },
	})
	fmt.Println(r.Label, r.Alg, err)
	// Output:
	// Signature-Input: sig1=("@status" "repr-digest");created=1618884473;keyid="k"
	// sig1 hmac-sha256 <nil>
}
