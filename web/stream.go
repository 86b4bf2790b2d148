package web

import (
	"bufio"
	"io"
	"mime"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Stream answers with a download that write produces as it goes, for files too large to build
// in memory (exports). write runs after the handler has returned, on its own goroutine: it must
// not touch c. The connection's write deadline moves on while write makes progress, so a long
// download is not cut at WriteTimeout, yet a stalled one is. When write fails, the connection is
// closed before the body's end: the browser reports a failed download rather than keeping a file
// cut short.
func (s *Server) Stream(c *fiber.Ctx, contentType, filename string, write func(io.Writer) error) error {
	conn := c.Context().Conn()
	log, path, timeout := s.cfg.Logger, c.Path(), s.cfg.WriteTimeout
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	c.Status(fiber.StatusOK)
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		w := &deadlineWriter{w: bw, conn: conn, timeout: timeout}
		err := write(w)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			log.Warn("download stopped before its end", "path", path, "err", err)
			conn.Close()
		}
	})
	return nil
}

// deadlineWriter pushes the connection's write deadline forward as the body is written, every
// quarter of the timeout at most.
type deadlineWriter struct {
	w        io.Writer
	conn     net.Conn
	timeout  time.Duration
	extended time.Time
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if now := time.Now(); now.Sub(d.extended) >= d.timeout/4 {
		d.extended = now
		if err := d.conn.SetWriteDeadline(now.Add(d.timeout)); err != nil {
			return 0, err
		}
	}
	return d.w.Write(p)
}
