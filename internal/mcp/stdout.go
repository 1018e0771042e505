package mcp

// What a stdio server writes on stdout that is not the protocol. MCP's
// stdio transport is one JSON-RPC message a line, but real servers print
// banners and log lines there too; the SDK's decoder would end the
// connection on the first such line. stdoutFilter passes on the lines
// that open as JSON (after blanks, '{' or '[') and skips the others,
// keeping the start of each (skippedLineBytes) in the server's stderr
// tail, where `agent mcp list` and error messages show it. A skipped line
// is never held whole: memory stays bounded whatever its length.
//
// It also reads (as taskNoter does for HTTP) the tools/list results going by for the tools MCP's
// 2025-11-25 revision marks execution.taskSupport "required": those can
// only be called as tasks, which this client does not do (a plain call
// fails with -32601), so they are not offered (taskOnly).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// skippedLineBytes is how much of a skipped stdout line is kept.
const skippedLineBytes = 200

// taskOnly is the set of a connection's tools that require task
// augmentation; safe for concurrent use, nil-safe.
type taskOnly struct {
	mu    sync.Mutex
	names map[string]bool
}

func (t *taskOnly) has(name string) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names[name]
}

// note records the task-only tools of a tools/list result line; a line
// that is not one changes nothing.
func (t *taskOnly) note(line []byte) {
	if t == nil || !bytes.Contains(line, []byte(`"taskSupport"`)) {
		return
	}
	var msg struct {
		Result struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tl := range msg.Result.Tools {
		if t.names == nil {
			t.names = map[string]bool{}
		}
		t.names[tl.Name] = tl.Execution.TaskSupport == "required"
	}
}

// stdoutFilter reads a server's stdout and gives the protocol's lines
// only: those that open as JSON and are (a line that opens so and is not
// is skipped too).
type stdoutFilter struct {
	r     *bufio.Reader
	log   io.Writer // where skipped lines are noted
	tasks *taskOnly
	out   []byte // a protocol line not yet read
}

func newStdoutFilter(r io.Reader, log io.Writer, tasks *taskOnly) *stdoutFilter {
	return &stdoutFilter{r: bufio.NewReaderSize(r, 64<<10), log: log, tasks: tasks}
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if err := f.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// next reads the next line: a protocol line into out, any other skipped.
func (f *stdoutFilter) next() error {
	// Look at the line's first byte that is not a blank.
	for {
		b, err := f.r.ReadByte()
		if err != nil {
			return err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			line, _ := f.r.ReadBytes('\n') // an error comes again on the next read
			f.out = append(append(f.out[:0], b), line...)
			if !json.Valid(f.out) {
				// "{progress: 50%}" opens as JSON and is not.
				f.note(f.out)
				f.out = f.out[:0]
				return nil
			}
			f.tasks.note(f.out)
			return nil
		}
		return f.skip(b)
	}
}

// skip discards the rest of a line that began with b, noting its start.
func (f *stdoutFilter) skip(b byte) error {
	kept := []byte{b}
	for {
		chunk, err := f.r.ReadSlice('\n')
		if room := skippedLineBytes - len(kept); room > 0 {
			kept = append(kept, chunk[:min(room, len(chunk))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		f.note(kept)
		return err
	}
}

// note keeps the start of a skipped line in the log.
func (f *stdoutFilter) note(line []byte) {
	text := string(bytes.TrimSpace(line[:min(len(line), skippedLineBytes)]))
	if len(line) >= skippedLineBytes {
		text += "…"
	}
	_, _ = io.WriteString(f.log, "stdout (not MCP, skipped): "+text+"\n")
}

// taskOnlyOf is the task-only set of a transport.
func taskOnlyOf(t sdk.Transport) *taskOnly {
	switch t := t.(type) {
	case *stdioTransport:
		return t.tasks
	case *sdk.StreamableClientTransport:
		if t.HTTPClient != nil {
			if h, ok := t.HTTPClient.Transport.(headerTransport); ok {
				return h.tasks
			}
		}
	}
	return nil
}

// maxNotedLineBytes bounds a response line taskNoter holds to read it: a
// longer one is passed on unread.
const maxNotedLineBytes = 8 << 20

// taskNoter passes an HTTP response's body on and notes the task-only
// tools of the tools/list results in it, a JSON body or an SSE stream's
// "data:" lines.
type taskNoter struct {
	io.ReadCloser
	tasks *taskOnly
	line  []byte
	over  bool // the current line passed maxNotedLineBytes
}

func (n *taskNoter) Read(p []byte) (int, error) {
	k, err := n.ReadCloser.Read(p)
	for rest := p[:k]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			n.add(rest)
			break
		}
		n.add(rest[:i])
		n.flush()
		rest = rest[i+1:]
	}
	if err != nil {
		n.flush()
	}
	return k, err
}

func (n *taskNoter) add(b []byte) {
	if n.over || len(n.line)+len(b) > maxNotedLineBytes {
		n.over, n.line = true, n.line[:0]
		return
	}
	n.line = append(n.line, b...)
}

func (n *taskNoter) flush() {
	if !n.over {
		n.tasks.note(bytes.TrimPrefix(bytes.TrimSpace(n.line), []byte("data:")))
	}
	n.line, n.over = n.line[:0], false
}

// sessionRoot is the root advertised to servers: the session's directory
// (servers such as server-filesystem, started without a directory,
// allow only the client's roots). Nil without a directory.
func sessionRoot(dir string) *sdk.Root {
	if dir == "" {
		return nil
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
	return &sdk.Root{URI: u.String(), Name: filepath.Base(dir)}
}
