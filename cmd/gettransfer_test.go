package cmd

import (
	"io"
	"testing"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/spf13/pflag"
)

// TestExpect100TimeoutFlag: --expect100-timeout SECONDS is how long a
// request with Expect: 100-continue waits for the 100, as curl's (default
// 1 s); 0 sends the content at once (curl's 0), a negative one is refused.
func TestExpect100TimeoutFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
		bad  bool
	}{
		{nil, time.Second, false},
		{[]string{"--expect100-timeout", "2.5"}, 2500 * time.Millisecond, false},
		{[]string{"--expect100-timeout", "0"}, -1, false},
		{[]string{"--expect100-timeout", "-1"}, 0, true},
		{[]string{"--expect100-timeout", "NaN"}, 0, true}, // was "at once"
		{[]string{"--expect100-timeout", "inf"}, 0, true},
	} {
		var tf transferFlags
		f := pflag.NewFlagSet("get", pflag.ContinueOnError)
		f.SetOutput(io.Discard)
		tf.add(f)
		err := f.Parse(c.args)
		if (err != nil) != c.bad {
			t.Errorf("%q: error %v, want one %v", c.args, err, c.bad)
			continue
		}
		if c.bad {
			continue
		}
		var o fetch.Options
		if err := tf.options(&o); err != nil || o.Connection.Expect100Timeout != c.want {
			t.Errorf("%q: %v (%v), want %v", c.args, o.Connection.Expect100Timeout, err, c.want)
		}
	}
}

// TestProxyInsecureFlag: --proxy-insecure and --proxy-cacert reach the
// connection options.
func TestProxyInsecureFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--proxy-insecure", "--proxy-cacert", "p.pem"}, true}} {
		var tf transferFlags
		f := pflag.NewFlagSet("get", pflag.ContinueOnError)
		f.SetOutput(io.Discard)
		tf.add(f)
		var o fetch.Options
		if err := f.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := tf.options(&o); err != nil || o.Connection.ProxyInsecure != c.want || (o.Connection.ProxyCACert == "p.pem") != c.want {
			t.Errorf("%q: ProxyInsecure %v (%v), want %v", c.args, o.Connection.ProxyInsecure, err, c.want)
		}
	}
}
