package payoutd

import (
	"io"
	"net"
	"sync"
	"time"
)

// Lingering bounds: what a client may still send, and for how long, after the server answered
// and closed.
const (
	lingerBytes   = 16 << 20
	lingerTimeout = 2 * time.Second
)

// lingerListener closes connections the way a web server must when it answers before reading
// the whole request, which fasthttp does not: shut the write side, read and discard what the
// client is still sending for a moment, then close. Closing at once with unread data makes the
// kernel reset the connection, and a client still sending its body loses the answer, such as
// the 413 to a body over the limit.
type lingerListener struct{ net.Listener }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &lingerConn{TCPConn: tc}, nil
	}
	return c, nil
}

type lingerConn struct {
	*net.TCPConn
	once sync.Once
}

// Close returns at once; the draining happens in the background, bounded by lingerBytes and
// lingerTimeout. A client that has nothing more to send sees the end of the stream and closes,
// which ends the drain early.
func (c *lingerConn) Close() error {
	c.once.Do(func() {
		if err := c.TCPConn.CloseWrite(); err != nil {
			c.TCPConn.Close()
			return
		}
		go func() {
			c.TCPConn.SetReadDeadline(time.Now().Add(lingerTimeout))
			io.CopyN(io.Discard, c.TCPConn, lingerBytes)
			c.TCPConn.Close()
		}()
	})
	return nil
}
