package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxMessage bounds one DevTools message read from the browser.
const maxMessage = 64 << 20

// conn speaks the Chrome DevTools protocol over --remote-debugging-pipe:
// JSON messages, each ended by a NUL byte, written to the browser's fd 3
// and read from its fd 4. Commands to a page carry its session id
// (Target.attachToTarget with flatten); events are routed by it.
type conn struct {
	w io.WriteCloser

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]chan reply
	sessions map[string]func(method string, params json.RawMessage)
	err      error         // why the connection ended, once done is closed
	done     chan struct{} // closed when the reader stops
}

type reply struct {
	result json.RawMessage
	err    error
}

// message is any message from the browser: a reply (ID set) or an event.
type message struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *cdpError       `json:"error"`
	SessionID string          `json:"sessionId"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data"`
}

func (e *cdpError) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("%s (%d): %s", e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

func newConn(w io.WriteCloser, r io.Reader) *conn {
	c := &conn{w: w, pending: map[int64]chan reply{},
		sessions: map[string]func(string, json.RawMessage){}, done: make(chan struct{})}
	go c.read(r)
	return c
}

// read dispatches messages until the pipe ends.
func (c *conn) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<16)
	var err error
	for {
		var b []byte
		if b, err = readMessage(br, maxMessage); err != nil {
			break
		}
		var m message
		if err = json.Unmarshal(b, &m); err != nil {
			err = fmt.Errorf("devtools message: %v", err)
			break
		}
		c.dispatch(m)
	}
	c.mu.Lock()
	c.err = fmt.Errorf("devtools pipe closed: %w", err)
	for id, ch := range c.pending {
		ch <- reply{err: c.err}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

// readMessage reads up to the next NUL, at most limit bytes.
func readMessage(br *bufio.Reader, limit int) ([]byte, error) {
	var buf bytes.Buffer
	for {
		chunk, err := br.ReadSlice(0)
		if buf.Len()+len(chunk) > limit {
			return nil, fmt.Errorf("devtools message over %d bytes", limit)
		}
		buf.Write(chunk)
		if err == nil {
			return buf.Bytes()[:buf.Len()-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

func (c *conn) dispatch(m message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.ID != 0 {
		ch, ok := c.pending[m.ID]
		if !ok {
			return
		}
		delete(c.pending, m.ID)
		if m.Error != nil {
			ch <- reply{err: m.Error}
		} else {
			ch <- reply{result: m.Result}
		}
		return
	}
	if h := c.sessions[m.SessionID]; h != nil && m.Method != "" {
		h(m.Method, m.Params)
	}
}

// call sends method with params (to session, "" for the browser) and
// decodes the result into out (nil: discarded).
func (c *conn) call(ctx context.Context, session, method string, params, out any) error {
	req := map[string]any{"method": method}
	if params != nil {
		req["params"] = params
	}
	if session != "" {
		req["sessionId"] = session
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.nextID++
	id := c.nextID
	req["id"] = id
	c.pending[id] = ch
	b, err := json.Marshal(req)
	if err == nil {
		// Written under mu: one message at a time on the pipe.
		_, err = c.w.Write(append(b, 0))
	}
	if err != nil {
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %v", method, err)
	}
	c.mu.Unlock()
	select {
	case r := <-ch:
		if r.err != nil {
			return fmt.Errorf("%s: %w", method, r.err)
		}
		if out != nil {
			if err := json.Unmarshal(r.result, out); err != nil {
				return fmt.Errorf("%s: result: %v", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// handle routes the events of session to h (nil removes the route). h
// runs on the reader goroutine: it must not block or call back.
func (c *conn) handle(session string, h func(method string, params json.RawMessage)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		delete(c.sessions, session)
	} else {
		c.sessions[session] = h
	}
}
