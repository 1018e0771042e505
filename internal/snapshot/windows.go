package snapshot

// windows.go: when each session ran tools in the work tree. BeginTool
// writes the start into the session's running marker; its end appends the
// whole window to <store>/agent-windows ("session start-ns end-ns" a
// line, one write(2) under O_APPEND, so processes never interleave a
// line). A step's attribution (attribute.go) reads them to tell its own
// changes from another session's. Windows older than windowKeep are
// dropped when the log outgrows windowLogMaxBytes.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Window is a span in which a session ran tools in the work tree; End is
// zero while they still run.
type Window struct {
	Session    string
	Start, End time.Time
}

const (
	// windowKeep is how long a window may matter: a step's "after"
	// snapshot follows its tools within seconds; a day is generous.
	windowKeep        = 24 * time.Hour
	windowLogMaxBytes = 256 << 10
)

func (s *Store) windowLog() string { return filepath.Join(s.git.GitDir, "agent-windows") }

// recordWindow appends a finished window to the log.
func (s *Store) recordWindow(w Window) {
	line := fmt.Sprintf("%s %d %d\n", w.Session, w.Start.UnixNano(), w.End.UnixNano())
	f, err := os.OpenFile(s.windowLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return // attribution then knows less; the tools ran all the same
	}
	f.WriteString(line)
	fi, err := f.Stat()
	f.Close()
	if err == nil && fi.Size() > windowLogMaxBytes {
		s.trimWindows()
	}
}

// trimWindows rewrites the log without the windows older than windowKeep
// (under the store's lock, renamed into place whole).
func (s *Store) trimWindows() {
	unlock, err := s.lock(context.Background())
	if err != nil {
		return
	}
	defer unlock()
	ws := s.readWindows(time.Now().Add(-windowKeep))
	var b bytes.Buffer
	for _, w := range ws {
		if !w.End.IsZero() {
			fmt.Fprintf(&b, "%s %d %d\n", w.Session, w.Start.UnixNano(), w.End.UnixNano())
		}
	}
	tmp := s.windowLog() + ".tmp"
	if os.WriteFile(tmp, b.Bytes(), 0o600) == nil {
		os.Rename(tmp, s.windowLog())
	}
}

// ToolWindows returns the windows of every session that ended after since,
// and those running now (End zero).
func (s *Store) ToolWindows(since time.Time) []Window {
	ws := s.readWindows(since)
	entries, _ := os.ReadDir(s.runningDir())
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !s.running(name) {
			continue
		}
		body, err := os.ReadFile(filepath.Join(s.runningDir(), name))
		if err != nil {
			continue
		}
		if ns, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64); err == nil {
			ws = append(ws, Window{Session: name, Start: time.Unix(0, ns)})
		}
	}
	return ws
}

func (s *Store) readWindows(since time.Time) []Window {
	f, err := os.Open(s.windowLog())
	if err != nil {
		return nil
	}
	defer f.Close()
	var ws []Window
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		start, err1 := strconv.ParseInt(fields[1], 10, 64)
		end, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || end < since.UnixNano() {
			continue
		}
		ws = append(ws, Window{Session: fields[0], Start: time.Unix(0, start), End: time.Unix(0, end)})
	}
	return ws
}
