package mcp

import (
	"testing"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
)

func TestApproveCoversTheEntryAsItIs(t *testing.T) {
	st := approval.Open(t.TempDir())
	approved := ApprovedIn(st)
	spec := config.MCPServer{Command: "srv", Args: []string{"--x"}, Project: "/repo/.agent/config.json"}
	if approved("p", spec) || Declined(st, "p", spec) {
		t.Fatal("approved or declined before anything was recorded")
	}
	if err := Approve(st, "p", spec); err != nil {
		t.Fatal(err)
	}
	if !approved("p", spec) {
		t.Fatal("not approved after Approve")
	}
	changed := spec
	changed.Args = []string{"--y"}
	if approved("p", changed) || approved("q", spec) {
		t.Fatal("the approval covers a changed entry or another name")
	}
	other := spec
	other.Project = "/other/.agent/config.json"
	if approved("p", other) {
		t.Fatal("the approval covers another project")
	}
	if err := Decline(st, "p", changed); err != nil {
		t.Fatal(err)
	}
	if !Declined(st, "p", changed) || Declined(st, "p", spec) || approved("p", changed) {
		t.Fatal("a decline covers exactly its entry and approves nothing")
	}
	if !approved("p", spec) {
		t.Fatal("a decline of another entry removed the approval")
	}
	user := config.MCPServer{Command: "srv"}
	if err := Approve(st, "u", user); err != nil || Declined(st, "u", user) {
		t.Fatalf("a user's server: %v", err)
	}
}

func TestCommandLineIsSafeToShow(t *testing.T) {
	for _, tc := range []struct {
		spec config.MCPServer
		want string
	}{
		{config.MCPServer{Command: "npx", Args: []string{"-y", "@acme/server", "--dir=/tmp"}}, "npx -y @acme/server --dir=/tmp"},
		{config.MCPServer{Command: "sh", Args: []string{"-c", "echo hi", ""}}, `sh -c "echo hi" ""`},
		{config.MCPServer{Command: "srv\x1b]0;pwned\x07", Args: []string{"\x1b[2J"}}, `"srv\x1b]0;pwned\a" "\x1b[2J"`},
		{config.MCPServer{Command: "srv", Args: []string{"a\u202eb"}}, `srv "a\u202eb"`},
		{config.MCPServer{URL: "https://mcp.example.com/v1"}, "https://mcp.example.com/v1"},
		{config.MCPServer{URL: "https://x\x1b[31m"}, `"https://x\x1b[31m"`},
		{config.MCPServer{Command: "café"}, "café"},
	} {
		if got := CommandLine(tc.spec); got != tc.want {
			t.Errorf("CommandLine(%+v) = %s, want %s", tc.spec, got, tc.want)
		}
	}
}
