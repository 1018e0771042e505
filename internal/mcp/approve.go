package mcp

// Approving the servers a project file declares. Such a server starts only
// once the user approved that very entry (Options.Approved); the approval
// is recorded in the data dir's approvals (internal/approval, kind
// approval.KindMCP, keyed by the project file, the server's name and the
// digest of the entry), so an entry that changes waits again. The chat's
// dialog and `agent mcp approve` record it through Approve, and every
// command that starts servers checks it through ApprovedIn. The chat also
// records an entry the user declined for good (Decline): it does not ask
// about that entry again until it changes; `agent mcp approve` still
// starts it.

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
)

// KindDeclined is the approvals' kind of an entry the user declined: the
// chat does not ask about it again.
const KindDeclined = "mcp-declined"

// Approve records the user's approval of the server name as spec, declared
// by the project file spec.Project, is now. A user's own server needs no
// approval: nothing is recorded.
func Approve(st *approval.Store, name string, spec config.MCPServer) error {
	if spec.Project == "" {
		return nil
	}
	return st.Approve(spec.Project, approval.KindMCP, name, approval.Digest(spec))
}

// ApprovedIn is an Options.Approved that reads st.
func ApprovedIn(st *approval.Store) func(name string, spec config.MCPServer) bool {
	return func(name string, spec config.MCPServer) bool {
		return st.Approved(spec.Project, approval.KindMCP, name, approval.Digest(spec))
	}
}

// Decline records that the user does not want to be asked again about the
// server name as spec is now.
func Decline(st *approval.Store, name string, spec config.MCPServer) error {
	if spec.Project == "" {
		return nil
	}
	return st.Approve(spec.Project, KindDeclined, name, approval.Digest(spec))
}

// Declined reports whether the user declined the server name as spec is
// now.
func Declined(st *approval.Store, name string, spec config.MCPServer) bool {
	return spec.Project != "" && st.Approved(spec.Project, KindDeclined, name, approval.Digest(spec))
}

// CommandLine is what the entry runs, safe to show on a terminal: the
// command and its arguments (each quoted when it is empty or holds a
// space, a quote or a character that is not printable), or the URL.
func CommandLine(spec config.MCPServer) string {
	if spec.URL != "" {
		return Printable(spec.URL)
	}
	parts := make([]string, 0, 1+len(spec.Args))
	parts = append(parts, Printable(spec.Command))
	for _, a := range spec.Args {
		parts = append(parts, Printable(a))
	}
	return strings.Join(parts, " ")
}

// Printable is s as it can be shown on a terminal: unchanged when it is
// not empty and made of printable characters other than spaces, quotes
// and backslashes; otherwise Go-quoted, so a control character or an
// escape sequence shows as \x1b and is never interpreted, and a bidi
// override shows as \u202e.
func Printable(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !unicode.IsPrint(r) || r == ' ' || r == '"' || r == '\'' || r == '\\' || r == unicode.ReplacementChar
	}) {
		return s
	}
	return strconv.Quote(s)
}
