package main

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EACPListSessions: initialize offers session/list; it lists the
// stored sessions of the cwd asked (most recent first), with their
// directory and update time, and none of another directory.
func TestE2EACPListSessions(t *testing.T) {
	e := newEnv(t, pt.Text("One."), pt.Text("Two."))
	c := newACPClient()
	p := e.startACP(c)
	init := p.initialize(t, sdk.FileSystemCapabilities{})
	if init.AgentCapabilities.SessionCapabilities.List == nil {
		t.Errorf("session/list not offered: %+v", init.AgentCapabilities.SessionCapabilities)
	}
	first := p.newSession(t, e.work)
	p.prompt(t, first, "one")
	second := p.newSession(t, e.work)
	p.prompt(t, second, "two")

	resp, err := p.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(e.work)})
	if err != nil {
		t.Fatalf("session/list: %v; stderr %s", err, p.stderr.String())
	}
	if len(resp.Sessions) != 2 || resp.Sessions[0].SessionId != second || resp.Sessions[1].SessionId != first {
		t.Fatalf("sessions %+v, want %s then %s", resp.Sessions, second, first)
	}
	for _, s := range resp.Sessions {
		if s.Cwd != e.work || s.UpdatedAt == nil || *s.UpdatedAt == "" {
			t.Errorf("session %+v", s)
		}
	}
	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if resp, err := p.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(other)}); err != nil || len(resp.Sessions) != 0 {
		t.Errorf("another directory: %+v %v", resp.Sessions, err)
	}
	p.exit(t)
}
