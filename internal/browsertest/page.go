package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// maxLog bounds the console lines a Page keeps.
const maxLog = 200

// Page is a tab in its own browser context (a fresh, in-memory profile:
// its own HTTP cache, cookies and compression dictionaries).
type Page struct {
	b       *Browser
	context string // browser context id
	target  string
	session string

	mu    sync.Mutex
	log   []string
	loads chan string // the loader id of each document's load event
}

// NewPage opens about:blank in a new browser context.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var bc struct {
		ID string `json:"browserContextId"`
	}
	if err := b.conn.call(ctx, "", "Target.createBrowserContext", map[string]any{"disposeOnDetach": true}, &bc); err != nil {
		return nil, err
	}
	p := &Page{b: b, context: bc.ID, loads: make(chan string, 64)}
	var tg struct {
		ID string `json:"targetId"`
	}
	err := b.conn.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank", "browserContextId": bc.ID}, &tg)
	if err != nil {
		p.dispose()
		return nil, err
	}
	p.target = tg.ID
	var at struct {
		ID string `json:"sessionId"`
	}
	if err := b.conn.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": tg.ID, "flatten": true}, &at); err != nil {
		p.Close()
		return nil, err
	}
	p.session = at.ID
	b.conn.handle(p.session, p.event)
	for _, m := range []string{"Page.enable", "Page.setLifecycleEventsEnabled", "Runtime.enable", "Log.enable"} {
		var params any
		if m == "Page.setLifecycleEventsEnabled" {
			params = map[string]any{"enabled": true}
		}
		if err := b.conn.call(ctx, p.session, m, params, nil); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// event records console output, exceptions and log entries (where
// Chromium explains a blocked subresource) and signals loads.
func (p *Page) event(method string, params json.RawMessage) {
	switch method {
	case "Page.lifecycleEvent":
		var e struct {
			LoaderID string `json:"loaderId"`
			Name     string `json:"name"`
		}
		if json.Unmarshal(params, &e) == nil && e.Name == "load" {
			select {
			case p.loads <- e.LoaderID:
			default: // nobody waits for this many loads
			}
		}
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(params, &e) == nil {
			var parts []string
			for _, a := range e.Args {
				if a.Value != nil {
					parts = append(parts, fmt.Sprint(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			p.addLog("console." + e.Type + ": " + strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details exceptionDetails `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &e) == nil {
			p.addLog("exception: " + e.Details.String())
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Source string `json:"source"`
				Level  string `json:"level"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		if json.Unmarshal(params, &e) == nil {
			p.addLog(fmt.Sprintf("log %s/%s: %s %s", e.Entry.Source, e.Entry.Level, e.Entry.Text, e.Entry.URL))
		}
	}
}

func (p *Page) addLog(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.log) < maxLog {
		p.log = append(p.log, s)
	}
}

// Log returns what the page printed and what Chromium logged for it
// (console messages, uncaught exceptions, blocked loads), one per line.
func (p *Page) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "\n")
}

// Navigate loads url and waits for the load event of the document it
// created (by its loader id: a late event of the previous document does
// not count).
func (p *Page) Navigate(ctx context.Context, url string) error {
	var nav struct {
		LoaderID  string `json:"loaderId"`
		ErrorText string `json:"errorText"`
	}
	if err := p.b.conn.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	for {
		select {
		case id := <-p.loads:
			if id == nav.LoaderID {
				return nil
			}
		case <-p.b.conn.done:
			return p.b.conn.err
		case <-ctx.Done():
			return fmt.Errorf("navigate to %s: no load event: %w", url, ctx.Err())
		}
	}
}

type exceptionDetails struct {
	Text      string `json:"text"`
	Exception *struct {
		Description string `json:"description"`
	} `json:"exception"`
}

func (e exceptionDetails) String() string {
	if e.Exception != nil && e.Exception.Description != "" {
		return e.Exception.Description
	}
	return e.Text
}

// Eval evaluates the JavaScript expression in the page, awaits it if it
// is a promise, and decodes its JSON value into out (nil: discarded). A
// thrown exception or rejected promise is an error carrying its message.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *exceptionDetails `json:"exceptionDetails"`
	}
	err := p.b.conn.call(ctx, p.session, "Runtime.evaluate",
		map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res)
	if err != nil {
		return err
	}
	if res.Exception != nil {
		return fmt.Errorf("script: %s", res.Exception)
	}
	if out == nil {
		return nil
	}
	if len(res.Result.Value) == 0 {
		return fmt.Errorf("script returned no value (undefined)")
	}
	return json.Unmarshal(res.Result.Value, out)
}

// Close closes the tab and disposes of its browser context.
func (p *Page) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), defaultCloseWait)
	defer cancel()
	if p.session != "" {
		p.b.conn.handle(p.session, nil)
	}
	if p.target != "" {
		_ = p.b.conn.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
	}
	p.dispose()
}

func (p *Page) dispose() {
	ctx, cancel := context.WithTimeout(context.Background(), defaultCloseWait)
	defer cancel()
	_ = p.b.conn.call(ctx, "", "Target.disposeBrowserContext", map[string]any{"browserContextId": p.context}, nil)
}
