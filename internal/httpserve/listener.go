package httpserve

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Lingering bounds: what a client may still send, and for how long, after the server answered
// and closed.
const (
	lingerBytes   = 16 << 20
	lingerTimeout = 2 * time.Second
)

// listener fixes two ways fasthttp treats connections at their ends.
//
// Lingering close: fasthttp closes a connection at once after answering a request it did not
// read whole (a body over the limit). Closing with unread data makes the kernel reset the
// connection, and a client still sending its body loses the answer, the 413. A conn here shuts
// its write side instead, reads and discards what the client still sends for a moment, then
// closes, as web servers do.
//
// Shutdown: fasthttp counts a connection busy from the moment it is accepted, so a connection
// that never sends a request (a browser's or an HTTP client's spare) holds a graceful shutdown
// until its read timeout. dropFresh ends those.
type listener struct {
	net.Listener
	mu       sync.Mutex
	fresh    map[*conn]struct{} // accepted connections that have not sent a byte
	draining bool               // shutting down: new connections are dropped as they come
}

func newListener(ln net.Listener) *listener {
	return &listener{Listener: ln, fresh: make(map[*conn]struct{})}
}

func (l *listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc, nil
	}
	c := &conn{Conn: tc, tcp: tc, l: l}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.draining {
		c.SetReadDeadline(time.Now())
	} else {
		l.fresh[c] = struct{}{}
	}
	return c, nil
}

// dropFresh makes the connections that have not sent a byte fail their pending read, so that
// fasthttp closes them, and does the same to any accepted from now on.
func (l *listener) dropFresh() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.draining = true
	for c := range l.fresh {
		c.SetReadDeadline(time.Now())
	}
}

func (l *listener) forget(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fresh, c)
}

// conn embeds net.Conn rather than *net.TCPConn so that every read goes through Read.
type conn struct {
	net.Conn
	tcp    *net.TCPConn
	l      *listener
	used   atomic.Bool
	closed sync.Once
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.used.Swap(true) {
		c.l.forget(c)
	}
	return n, err
}

// Close returns at once; the draining happens in the background, bounded by lingerBytes and
// lingerTimeout. A client with nothing more to send sees the end of the stream and closes,
// which ends the drain early.
func (c *conn) Close() error {
	c.closed.Do(func() {
		c.l.forget(c)
		if err := c.tcp.CloseWrite(); err != nil {
			c.tcp.Close()
			return
		}
		go func() {
			c.tcp.SetReadDeadline(time.Now().Add(lingerTimeout))
			io.CopyN(io.Discard, c.tcp, lingerBytes)
			c.tcp.Close()
		}()
	})
	return nil
}
