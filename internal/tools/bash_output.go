package tools

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/secrets"
)

// outputCapture collects a command's output with bounded memory and a
// bounded file. While the output is small it is kept whole (up to
// headSize+tailSize bytes); beyond that it spills: the output is streamed
// to a file (the full output) and only the first headSize bytes and a ring
// of the last tailSize bytes stay in memory.
//
// The file is capped at fileMax bytes: once its head reaches fileMax-
// tailSize bytes, writing stops and capped is closed (the caller stops the
// command); closeFile then appends a note and the last bytes, so the file
// keeps head and tail like the model's view.
type outputCapture struct {
	mu sync.Mutex // Write against progress reports

	headSize, tailSize int
	create             func() (*os.File, error) // opens the spill file

	all  []byte // the whole output, until it spills
	head []byte // after spilling: the first headSize bytes
	tail ring   // after spilling: the last tailSize bytes

	total    int64
	newlines int64
	lastByte byte

	spilled bool
	file    *os.File // nil if the spill file could not be created or written
	fileErr error

	fileMax   int64         // the cap on the saved file; 0: none
	fileBytes int64         // output bytes written to the file
	afterCap  int64         // output bytes seen since the cap was reached
	capped    chan struct{} // closed when the cap is reached
}

func newOutputCapture(headSize, tailSize int, create func() (*os.File, error)) *outputCapture {
	return &outputCapture{headSize: headSize, tailSize: tailSize, create: create, capped: make(chan struct{})}
}

// withFileMax caps the saved file at maxBytes of output (plus the note).
func (c *outputCapture) withFileMax(maxBytes int64) *outputCapture {
	c.fileMax = maxBytes
	return c
}

// Write records p. It never fails: a spill file error is kept in fileErr
// and the capture carries on in memory.
func (c *outputCapture) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	c.lastByte = p[len(p)-1]
	if !c.spilled {
		if len(c.all)+len(p) <= c.headSize+c.tailSize {
			c.all = append(c.all, p...)
			return len(p), nil
		}
		c.spill(p)
		return len(p), nil
	}
	c.writeFile(p)
	c.tail.write(p)
	return len(p), nil
}

func (c *outputCapture) spill(p []byte) {
	c.spilled = true
	all := append(c.all, p...)
	c.all = nil
	if f, err := c.create(); err != nil {
		c.fileErr = err
	} else {
		c.file = f
		c.writeFile(all)
	}
	c.head = append([]byte(nil), all[:c.headSize]...)
	c.tail = ring{buf: make([]byte, c.tailSize)}
	c.tail.write(all[c.headSize:])
}

// fileHeadMax is how much of the output goes to the file before the cap:
// the rest of the cap is the tail's.
func (c *outputCapture) fileHeadMax() int64 {
	if c.fileMax > 2*int64(c.tailSize) {
		return c.fileMax - int64(c.tailSize)
	}
	return c.fileMax / 2
}

// isCapped reports whether the file cap was reached.
func (c *outputCapture) isCapped() bool {
	select {
	case <-c.capped:
		return true
	default:
		return false
	}
}

// writeFile writes p to the file, up to the cap.
func (c *outputCapture) writeFile(p []byte) {
	if c.file == nil {
		return // nothing is saved, so nothing to cap
	}
	if c.isCapped() {
		c.afterCap += int64(len(p))
		return
	}
	if c.fileMax > 0 {
		if room := c.fileHeadMax() - c.fileBytes; int64(len(p)) > room {
			c.writeFileRaw(p[:room])
			c.afterCap = int64(len(p)) - room
			close(c.capped)
			return
		}
	}
	c.writeFileRaw(p)
}

func (c *outputCapture) writeFileRaw(p []byte) {
	if c.file == nil {
		return
	}
	c.fileBytes += int64(len(p))
	if _, err := c.file.Write(p); err != nil {
		c.fileErr = err
		name := c.file.Name()
		c.file.Close()
		os.Remove(name)
		c.file = nil
	}
}

// closeFile closes the spill file and returns its path, or "" when the
// output did not spill or could not be saved whole.
func (c *outputCapture) closeFile() string {
	if c.file == nil {
		return ""
	}
	name := c.file.Name()
	if c.isCapped() {
		c.writeCappedEnd()
	}
	if err := c.file.Close(); err != nil {
		c.fileErr = err
		os.Remove(name)
		c.file = nil
		return ""
	}
	c.file = nil
	return name
}

// writeCappedEnd closes a capped file with a note and the output's last
// bytes (whole lines).
func (c *outputCapture) writeCappedEnd() {
	tail := c.tail.bytes()
	if int64(len(tail)) > c.afterCap {
		tail = tail[len(tail)-int(c.afterCap):]
	}
	tail = wholeLinesTail(tail)
	cut := c.total - c.fileBytes - int64(len(tail))
	note := fmt.Sprintf("\n... [%s cut: %s] ...\n", truncate.FormatBytes(cut), cappedNote(c.fileMax))
	c.writeFileRaw([]byte(note))
	c.writeFileRaw(tail)
}

// cappedNote says why a command's output stops.
func cappedNote(capBytes int64) string {
	return fmt.Sprintf("output passed the %s cap; the command was stopped", sizeName(capBytes))
}

// sizeName is a size for people: "64 MB", "1.5 MB".
func sizeName(n int64) string {
	return strings.Replace(truncate.FormatBytes(n), ".0 ", " ", 1)
}

// lines is the number of lines seen (a last line without a newline counts).
func (c *outputCapture) lines() int64 {
	n := c.newlines
	if c.total > 0 && c.lastByte != '\n' {
		n++
	}
	return n
}

// lastLines returns up to n sanitised last lines of what was captured so
// far, for progress reports. The caller holds c.mu.
func (c *outputCapture) lastLines(n, maxBytes int) string {
	var b []byte
	if c.spilled {
		b = c.tail.bytes()
	} else {
		b = c.all
	}
	if len(b) > 4*maxBytes {
		b = b[len(b)-4*maxBytes:]
	}
	s := strings.TrimRight(Sanitize(string(b)), "\n")
	if lines := strings.Split(s, "\n"); len(lines) > n {
		s = strings.Join(lines[len(lines)-n:], "\n")
	}
	if len(s) > maxBytes {
		s = s[len(s)-maxBytes:]
		for len(s) > 0 && s[0]&0xc0 == 0x80 {
			s = s[1:]
		}
	}
	return s
}

// ring keeps the last len(buf) bytes written.
type ring struct {
	buf  []byte
	pos  int // next write position
	full bool
}

func (r *ring) write(p []byte) {
	n := len(r.buf)
	if n == 0 {
		return
	}
	if len(p) >= n {
		copy(r.buf, p[len(p)-n:])
		r.pos, r.full = 0, true
		return
	}
	k := copy(r.buf[r.pos:], p)
	if k < len(p) {
		copy(r.buf, p[k:])
		r.full = true
	}
	r.pos = (r.pos + len(p)) % n
	if r.pos == 0 {
		r.full = true
	}
}

// bytes returns the kept bytes in order.
func (r *ring) bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.buf[:r.pos]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}

// readOutput copies the command's output pipe into c until EOF (or until
// the pipe is closed under it), redacting secretValues on the way.
func readOutput(r io.Reader, c io.Writer, secretValues []string) {
	w := newRedactor(c, secretValues)
	defer w.flush()
	buf := make([]byte, 64*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// redactor replaces secret values in a stream before passing it on. A
// value may straddle two reads, so it holds back the last bytes that may
// begin one (at most longest-1) until more arrives or flush; with no
// secrets it passes everything through at once.
type redactor struct {
	c       io.Writer
	values  []string
	hold    int    // bytes held back: the longest value's length - 1
	pending []byte // held back, not yet passed on
}

func newRedactor(c io.Writer, values []string) *redactor {
	r := &redactor{c: c}
	for _, v := range values {
		if len(v) >= secrets.MinSecretLen {
			r.values = append(r.values, v)
			r.hold = max(r.hold, len(v)-1)
		}
	}
	return r
}

func (r *redactor) write(p []byte) {
	if len(r.values) == 0 {
		r.c.Write(p)
		return
	}
	data := append(r.pending, p...)
	if secrets.Contains(string(data), r.values...) {
		data = []byte(secrets.Redact(string(data), r.values...))
	}
	keep := r.heldBack(data)
	r.c.Write(data[:len(data)-keep])
	r.pending = append(r.pending[:0:0], data[len(data)-keep:]...)
}

// heldBack is how many of data's last bytes may begin a secret value: only
// those wait for more output (a background process's last line must not
// wait for a next one that never comes).
func (r *redactor) heldBack(data []byte) int {
	for k := min(r.hold, len(data)); k > 0; k-- {
		tail := string(data[len(data)-k:])
		for _, v := range r.values {
			if strings.HasPrefix(v, tail) {
				return k
			}
		}
	}
	return 0
}

func (r *redactor) flush() {
	if len(r.pending) > 0 {
		r.c.Write(r.pending)
		r.pending = nil
	}
}

// reportProgress calls progress with the last lines of c at most every
// progressInterval while new output arrives, until readDone; it closes done
// when it has returned for good, so no report follows the result.
func reportProgress(c *outputCapture, progress func(string), readDone <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(progressInterval)
	defer tick.Stop()
	var reported int64
	for {
		select {
		case <-readDone:
			return
		case <-tick.C:
		}
		if lines, total, ok := c.progressSince(reported); ok {
			reported = total
			progress(lines)
		}
	}
}

// progressSince returns the last lines and the byte count when output
// arrived since the count seen.
func (c *outputCapture) progressSince(seen int64) (string, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total == seen {
		return "", seen, false
	}
	return c.lastLines(progressLines, progressBytes), c.total, true
}

const (
	progressLines    = 5
	progressBytes    = 1000
	progressInterval = 100 * time.Millisecond
)
