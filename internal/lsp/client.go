package lsp

// client.go: one running language server. A client owns its process and
// three goroutines: the reader (decodes every message the server sends,
// answers its requests, records publishDiagnostics), the writer (the only
// one writing to the server's stdin, from a bounded queue, so a server
// that stops reading blocks nobody but it) and the waiter (reaps the
// process). A client never blocks its caller beyond the caller's context:
// every wait selects on it and on the client's death. Diagnostics are kept
// per document, the latest publish only, so a server that floods costs
// CPU, never memory.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/childproc"
)

// writeQueue is how many messages may wait for the server to read them.
const writeQueue = 64

// stderrTail is how much of a server's stderr is kept for its last error.
const stderrTail = 2 << 10

type client struct {
	name string
	cmd  *exec.Cmd
	out  chan []byte // the writer's queue

	dead    chan struct{} // closed once the process is gone or the protocol broke
	dieOnce sync.Once
	stopped chan struct{} // closed once the reader, the writer and the waiter are done
	wg      sync.WaitGroup
	stderr  *tail

	mu      sync.Mutex
	err     error // why the client died
	nextID  int
	pending map[string]chan wireMessage
	docs    map[string]*docState // by URI
	changed chan struct{}        // closed and replaced at each publish
}

// docState is one document: what was sent and what was last published.
type docState struct {
	version int    // the last version sent
	text    string // the last text sent
	seq     uint64 // publishes so far
	pubVer  *int   // the last publish's version, when the server gives one
	diags   []Diagnostic
	pubAt   time.Time // when the last publish arrived
}

// startClient starts the server process; the caller initializes it.
func startClient(children *childproc.Registry, name, command string, args []string, dir string, env []string) (*client, error) {
	cmd := exec.Command(resolveCommand(command), args...)
	cmd.Dir = dir
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &client{name: name, cmd: cmd, out: make(chan []byte, writeQueue), dead: make(chan struct{}), stopped: make(chan struct{}),
		stderr: &tail{max: stderrTail}, pending: map[string]chan wireMessage{}, docs: map[string]*docState{}, changed: make(chan struct{})}
	cmd.Stderr = c.stderr
	cmd.WaitDelay = time.Second
	// A group of its own with the agent's death as its end (childproc),
	// so that die ends what the server started too.
	release, err := children.Start(cmd)
	if err != nil {
		return nil, err
	}
	c.wg.Add(3)
	go c.read(bufio.NewReaderSize(stdout, 64<<10))
	go c.write(stdin)
	go func() {
		defer c.wg.Done()
		err := cmd.Wait()
		if err == nil {
			err = errors.New("exited")
		}
		c.die(fmt.Errorf("%s %w", name, exitError(err, c.stderr.String())))
		killGroup(cmd) // what the server started and left behind
		release()
	}()
	go func() { c.wg.Wait(); close(c.stopped) }()
	return c, nil
}

// resolveCommand is command as found on PATH or, for a bare name that is
// not, in Go's install directory ($GOBIN, $GOPATH/bin, ~/go/bin), where
// go install puts gopls.
func resolveCommand(command string) string {
	if strings.ContainsRune(command, os.PathSeparator) {
		return command
	}
	if p, err := exec.LookPath(command); err == nil {
		return p
	}
	dirs := []string{os.Getenv("GOBIN")}
	if gp := os.Getenv("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, command)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return command
}

// exitError words a process's end with the last line of its stderr.
func exitError(err error, stderr string) error {
	var ee *exec.ExitError
	msg := err.Error()
	if errors.As(err, &ee) {
		msg = "exited: " + ee.Error()
	} else if msg != "exited" {
		msg = "exited: " + msg
	}
	if last := lastLine(stderr); last != "" {
		msg += ": " + last
	}
	return errors.New(msg)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// killGroup kills cmd's process group: the server and what it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// die records why the client is gone (the first reason wins), kills the
// process and fails every pending call.
func (c *client) die(err error) {
	c.dieOnce.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.dead)
		killGroup(c.cmd)
	})
}

// Err is why the client died; nil while it runs.
func (c *client) Err() error {
	select {
	case <-c.dead:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	default:
		return nil
	}
}

func (c *client) write(w io.WriteCloser) {
	defer c.wg.Done()
	defer w.Close()
	for {
		select {
		case <-c.dead:
			return
		case body := <-c.out:
			if err := writeMessage(w, body); err != nil {
				c.die(fmt.Errorf("%s: write: %w", c.name, err))
				return
			}
		}
	}
}

func (c *client) read(r *bufio.Reader) {
	defer c.wg.Done()
	for {
		body, err := readMessage(r, maxMessageBytes)
		if err != nil {
			if errors.Is(err, errFraming) {
				c.die(fmt.Errorf("%s broke the protocol: %w", c.name, err))
			}
			// Otherwise the process ended: the waiter says how.
			select {
			case <-c.dead:
			case <-time.After(2 * time.Second):
				c.die(fmt.Errorf("%s closed its output", c.name))
			}
			return
		}
		var m wireMessage
		if json.Unmarshal(body, &m) != nil {
			continue // one bad message is skipped, not fatal
		}
		c.handle(m)
	}
}

func (c *client) handle(m wireMessage) {
	switch {
	case m.Method != "" && len(m.ID) > 0:
		c.answer(m)
	case m.Method == "textDocument/publishDiagnostics":
		var p publishParams
		if json.Unmarshal(m.Params, &p) == nil {
			c.publish(p)
		}
	case m.Method == "" && len(m.ID) > 0:
		c.mu.Lock()
		ch := c.pending[string(m.ID)]
		delete(c.pending, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// answer replies to a request of the server: the configuration asked for
// is none (the server's defaults), everything else is accepted with a
// null result. A reply that finds the queue full is dropped.
func (c *client) answer(m wireMessage) {
	result := json.RawMessage("null")
	if m.Method == "workspace/configuration" {
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(m.Params, &p)
		result, _ = json.Marshal(make([]any, len(p.Items)))
	}
	body, _ := json.Marshal(wireMessage{JSONRPC: "2.0", ID: m.ID, Result: result})
	select {
	case c.out <- body:
	default:
	}
}

func (c *client) publish(p publishParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[p.URI]
	if d == nil {
		// The server may escape the path otherwise than fileURI (vscode-uri
		// writes @ as %40): the same path is the same document.
		if path := uriPath(p.URI); path != "" {
			d = c.docs[fileURI(path)]
		}
	}
	if d == nil {
		return // a file the agent did not open: not kept
	}
	d.seq++
	d.pubVer = p.Version
	d.diags = p.Diagnostics
	d.pubAt = time.Now()
	close(c.changed)
	c.changed = make(chan struct{})
}

// send queues one message, waiting at most until ctx is done.
func (c *client) send(ctx context.Context, m wireMessage) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	select {
	case c.out <- body:
		return nil
	case <-c.dead:
		return c.Err()
	case <-ctx.Done():
		return fmt.Errorf("%s is not reading its input: %w", c.name, ctx.Err())
	}
}

// notify sends a notification.
func (c *client) notify(ctx context.Context, method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.send(ctx, wireMessage{Method: method, Params: p})
}

// call sends a request and waits for its response until ctx is done.
func (c *client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.nextID++
	id := json.RawMessage(fmt.Sprint(c.nextID))
	ch := make(chan wireMessage, 1)
	c.pending[string(id)] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, string(id))
		c.mu.Unlock()
	}()
	if err := c.send(ctx, wireMessage{ID: id, Method: method, Params: p}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s: %s", c.name, method, m.Error.Message)
		}
		return m.Result, nil
	case <-c.dead:
		return nil, c.Err()
	case <-ctx.Done():
		return nil, fmt.Errorf("%s did not answer %s: %w", c.name, method, ctx.Err())
	}
}

// initialize performs the handshake for the workspace root.
func (c *client) initialize(ctx context.Context, root string) error {
	params := map[string]any{
		"processId": os.Getpid(),
		"rootUri":   fileURI(root),
		"rootPath":  root,
		"workspaceFolders": []map[string]string{
			{"uri": fileURI(root), "name": "workspace"},
		},
		"clientInfo": map[string]string{"name": "agent"},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
		},
	}
	if _, err := c.call(ctx, "initialize", params); err != nil {
		return err
	}
	return c.notify(ctx, "initialized", struct{}{})
}

// sync makes the server's copy of the document at path hold text: opened
// the first time, changed (the whole text, then saved) after. It returns
// the publish count and version to wait past; unchanged text sends
// nothing and returns zeros.
func (c *client) sync(ctx context.Context, path, server, text string) (seq uint64, version int, err error) {
	uri := fileURI(path)
	c.mu.Lock()
	d := c.docs[uri]
	opened := d != nil
	if opened && d.text == text {
		c.mu.Unlock()
		return 0, 0, nil
	}
	if !opened {
		d = &docState{}
		c.docs[uri] = d
	}
	d.version++
	d.text = text
	seq, version = d.seq, d.version
	c.mu.Unlock()
	if !opened {
		err = c.notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": textDocumentItem{URI: uri, LanguageID: languageID(path, server), Version: version, Text: text}})
		return seq, version, err
	}
	err = c.notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   versionedDoc{URI: uri, Version: version},
		"contentChanges": []map[string]string{{"text": text}},
	})
	if err == nil {
		err = c.notify(ctx, "textDocument/didSave", map[string]any{"textDocument": docID{URI: uri}})
	}
	return seq, version, err
}

// await waits until the server published diagnostics for path past the
// publish count seq and at or past version (a publish without a version
// counts), or until ctx is done.
func (c *client) await(ctx context.Context, path string, seq uint64, version int) ([]Diagnostic, error) {
	uri := fileURI(path)
	for {
		c.mu.Lock()
		d := c.docs[uri]
		if d != nil && d.seq > seq && (d.pubVer == nil || *d.pubVer >= version) {
			out := append([]Diagnostic(nil), d.diags...)
			c.mu.Unlock()
			return out, nil
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-c.dead:
			return nil, c.Err()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// current is the last publish for path and the text it was sent; ok is
// false when the document was never opened or nothing was published yet.
func (c *client) current(path string) (diags []Diagnostic, text string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[fileURI(path)]
	if d == nil || d.seq == 0 {
		return nil, "", false
	}
	return append([]Diagnostic(nil), d.diags...), d.text, true
}

// all is the last publish of every open document, by path.
func (c *client) all() map[string][]Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]Diagnostic{}
	for uri, d := range c.docs {
		if d.seq > 0 {
			out[uriPath(uri)] = append([]Diagnostic(nil), d.diags...)
		}
	}
	return out
}

// shutdown asks the server to stop (bounded by ctx), then ends the
// process and waits for the client's goroutines.
func (c *client) shutdown(ctx context.Context) {
	if c.Err() == nil {
		if _, err := c.call(ctx, "shutdown", nil); err == nil {
			_ = c.notify(ctx, "exit", nil)
			select {
			case <-c.dead:
			case <-ctx.Done():
			}
		}
	}
	c.die(fmt.Errorf("%s was shut down", c.name))
	<-c.stopped
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
