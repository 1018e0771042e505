package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// TestOpenCommand: openCommand opens the store as asked, resolves a
// session prefix to its id, opens a runner only when asked, and reports an
// unknown session with what to do.
func TestOpenCommand(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	// A driving opening starts the upkeep of the data directory in the
	// background: let it end before the directory is removed.
	t.Cleanup(background.wg.Wait)
	cfgFile := filepath.Join(tmp, "config.json")
	if err := os.WriteFile(cfgFile, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &globalFlags{dataDir: filepath.Join(tmp, "data"), configFile: cfgFile}

	st, err := storage.Open(ctx, g.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	sess := &message.Session{Title: "t", Model: "gpt-4.1", Dir: tmp}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	st.Close()
	prefix := &sessionFlags{session: sess.ID[:8]}

	tests := []struct {
		name     string
		how      sessionOpening
		readOnly bool
	}{
		{"read-only", sessionOpening{access: readOnly}, true},
		{"writing", sessionOpening{access: writing}, false},
		{"writing with a runner", sessionOpening{access: writing, runner: true}, false},
		{"driving with a runner", sessionOpening{access: driving, warn: true, runner: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := openCommand(ctx, g, prefix, tt.how)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.id != sess.ID {
				t.Errorf("id = %q, want %q (from the prefix)", c.id, sess.ID)
			}
			if c.st.ReadOnly() != tt.readOnly {
				t.Errorf("store read-only = %v, want %v", c.st.ReadOnly(), tt.readOnly)
			}
			if (c.r != nil) != tt.how.runner {
				t.Fatalf("runner = %v, want one: %v", c.r, tt.how.runner)
			}
			if c.r != nil && c.r.Session().ID != sess.ID {
				t.Errorf("runner's session = %q", c.r.Session().ID)
			}
			if c.a == nil || c.a.cfg.DataDir != g.dataDir {
				t.Errorf("app = %+v", c.a)
			}
		})
	}

	_, err = openCommand(ctx, g, &sessionFlags{session: "nosuchsession"}, sessionOpening{access: writing, runner: true})
	if err == nil || !strings.Contains(err.Error(), "no session nosuchsession") {
		t.Errorf("unknown session: err = %v", err)
	}
	_, err = openCommand(ctx, g, &sessionFlags{session: sess.ID, cont: true}, sessionOpening{})
	if err == nil || !strings.Contains(err.Error(), "mutually exclusive") {
		t.Errorf("--session with -c: err = %v", err)
	}
	// A failed opening closed what it opened: the session can be driven.
	c, err := openCommand(ctx, g, prefix, sessionOpening{access: driving, runner: true})
	if err != nil {
		t.Fatalf("after failed openings: %v", err)
	}
	c.Close()
}
