package lsp

// framing.go: JSON-RPC 2.0 over a byte stream as the Language Server
// Protocol frames it: a header block of "Name: value" lines ended by an
// empty line ("\r\n"; a bare "\n" is accepted), of which Content-Length is
// required and Content-Type ignored, then exactly Content-Length bytes of
// JSON. A reader never allocates more than its limit for one message, so a
// server that announces a huge body or sends endless header lines gets an
// error, not the agent's memory.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Framing limits: the largest message body read, the longest header line
// and the most header lines before a body.
const (
	maxMessageBytes = 16 << 20
	maxHeaderLine   = 1 << 10
	maxHeaderLines  = 32
)

// errFraming is wrapped by every error about a malformed frame (as
// opposed to the stream ending).
var errFraming = errors.New("lsp framing")

// readMessage reads one framed message body from r. io.EOF means the
// stream ended cleanly between messages.
func readMessage(r *bufio.Reader, maxBytes int) ([]byte, error) {
	length := -1
	for lines := 0; ; lines++ {
		if lines >= maxHeaderLines {
			return nil, fmt.Errorf("%w: more than %d header lines", errFraming, maxHeaderLines)
		}
		line, err := readLine(r)
		if err != nil {
			if err == io.EOF && lines == 0 && line == "" {
				return nil, io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if line == "" {
			if lines == 0 {
				// Blank lines between messages are tolerated.
				lines--
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q has no colon", errFraming, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: bad Content-Length %q", errFraming, strings.TrimSpace(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", errFraming)
	}
	if length > maxBytes {
		return nil, fmt.Errorf("%w: message of %d bytes is over the %d-byte limit", errFraming, length, maxBytes)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// readLine reads one header line without its ending, at most
// maxHeaderLine bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		frag, err := r.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxHeaderLine {
			return "", fmt.Errorf("%w: header line longer than %d bytes", errFraming, maxHeaderLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return string(b), err
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		return string(b), nil
	}
}

// writeMessage frames body onto w in one write.
func writeMessage(w io.Writer, body []byte) error {
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	_, err := w.Write(frame)
	return err
}
