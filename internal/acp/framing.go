package acp

// framing.go: JSON-RPC's parse error, which the SDK does not send (it logs
// a line that is not JSON and reads on). Lines pass through parseGuard on
// their way in: a line that is not JSON is answered with error -32700 and
// id null, as JSON-RPC 2.0 says, and not passed on. Writes to the client,
// the SDK's and these, go through one lock so that messages never
// interleave.

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
)

// maxLineBytes bounds one message, as the SDK does.
const maxLineBytes = 10 << 20

// lockedWriter serialises whole writes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var parseError = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n")

// parseGuard returns what the SDK reads: in's lines that are JSON. It
// answers the others on out. The returned reader ends when in does.
func parseGuard(in io.Reader, out io.Writer) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 {
				continue
			}
			if !json.Valid(line) {
				_, _ = out.Write(parseError)
				continue
			}
			msg := make([]byte, len(line)+1) // the scanner's buffer holds what follows
			copy(msg, line)
			msg[len(line)] = '\n'
			if _, err := pw.Write(msg); err != nil {
				return
			}
		}
		if sc.Err() != nil {
			_, _ = out.Write(parseError) // a line beyond maxLineBytes: the stream cannot go on
		}
		_ = pw.Close()
	}()
	return pr
}
