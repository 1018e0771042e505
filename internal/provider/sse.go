package provider

// A server-sent-events reader for chat-completions streams. Each data line is
// delivered on its own (servers do not split a chunk over several data
// lines, and some omit the blank line between events). Comment lines
// (": OPENROUTER PROCESSING") and id/retry fields are skipped. "data: [DONE]"
// ends the stream. An "event: error" field, or llama.cpp's non-standard
// "error: {...}" line, marks the payload as an error.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLineBytes bounds one SSE line. A chunk is usually well under 1 KiB; a
// whole tool call in one delta can approach the tool-argument cap.
const maxLineBytes = maxToolArgumentBytes + 1<<20

var (
	errDone        = errors.New("stream done")
	errLineTooLong = errors.New("SSE line longer than the limit")
)

type sseReader struct {
	r     *bufio.Reader
	event string // the event field of the current event
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// next returns the next data payload and whether it is an error payload. It
// returns errDone after [DONE], io.EOF when the body ends without it, and any
// read error as is.
func (s *sseReader) next() (payload []byte, isError bool, err error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				// A last line without its newline: use it, report EOF next.
				err = nil
			} else {
				return nil, false, err
			}
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			s.event = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "data":
			value = bytes.TrimSpace(value)
			if len(value) == 0 {
				continue
			}
			if bytes.Equal(value, []byte("[DONE]")) {
				return nil, false, errDone
			}
			return value, s.event == "error", nil
		case "event":
			s.event = string(bytes.TrimSpace(value))
		case "error":
			if value = bytes.TrimSpace(value); len(value) > 0 {
				return value, true, nil
			}
		}
	}
}

// readLine reads one line including its newline, refusing lines longer than
// maxLineBytes. The returned slice is valid until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	buf := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(buf) > maxLineBytes {
			return nil, errLineTooLong
		}
		line, err = s.r.ReadSlice('\n')
		buf = append(buf, line...)
	}
	if len(bytes.TrimRight(buf, "\r\n")) > maxLineBytes {
		return nil, errLineTooLong
	}
	return buf, err
}
