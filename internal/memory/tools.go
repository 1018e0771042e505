package memory

// tools.go: remember and memory_search, the model's side of memory.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/secrets"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// The tools' names.
const (
	RememberName = "remember"
	SearchName   = "memory_search"
)

// maxTextBytes bounds one memory: a fact, not a document.
const maxTextBytes = 2000

// searchLimit is how many memories a search returns.
const searchLimit = 10

// Tools are the memory tools of a session in dir: remember unless the
// config turns it off (an "ask" remember asks through the permission
// dialog: tools.Gated), and memory_search when there are memories to
// search (as the session opens: every request of a session offers the
// same tools; a session without memories pays for no search schema).
func Tools(ctx context.Context, st *storage.Store, sessionID, dir string, cfg config.Memory) []tools.Tool {
	var out []tools.Tool
	if n, err := st.Memories().Count(ctx, Scopes(dir)...); err == nil && n > 0 {
		out = append(out, &searchTool{q: st.Memories()})
	}
	r := rememberTool{q: st.Memories(), session: sessionID, cfg: cfg}
	switch cfg.RememberMode() {
	case config.RememberOff:
	case config.RememberAsk:
		out = append(out, &askedRemember{r})
	default:
		out = append(out, &r)
	}
	return out
}

// rememberTool stores a memory (remember{text}).
type rememberTool struct {
	q       storage.Memories
	session string
	cfg     config.Memory
}

func (*rememberTool) Name() string   { return RememberName }
func (*rememberTool) ReadOnly() bool { return false }
func (*rememberTool) Description() string {
	return `Keep a lasting project fact (how to test, a convention, a decision) for later sessions: one short sentence, never a secret.`
}
func (*rememberTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The fact."}},"required":["text"],"additionalProperties":false}`)
}

func (t *rememberTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return failed("invalid arguments for remember: %v", err), nil
	}
	text := strings.TrimSpace(in.Text)
	if msg := Refusal(text, env.Secrets...); msg != "" {
		return failed("%s", msg), nil
	}
	m := storage.Memory{Scope: Project(env.Dir), Text: text, SessionID: t.session, MessageID: t.q.MessageOfCall(ctx, t.session, call.ID)}
	if t.cfg.UserScope() {
		m.Scope = storage.ScopeUser
	}
	if t.cfg.RememberMode() == config.RememberPropose {
		m.Status = storage.MemoryProposed
	}
	if err := t.q.Add(ctx, &m); err != nil {
		return tools.Result{}, err
	}
	out := fmt.Sprintf("Remembered (memory %s). Later sessions find it with memory_search.", m.ID)
	if m.Status == storage.MemoryProposed {
		out = fmt.Sprintf("Proposed as memory %s: the user reviews it in /memory; it is kept for later sessions once accepted.", m.ID)
	}
	return tools.Result{Output: out, Title: "remember: " + oneLine(text)}, nil
}

// Refusal is why text may not be kept as a memory, "" when it may: it is
// empty, too long, or holds a credential (the agent's key among values,
// or a known token shape).
func Refusal(text string, values ...string) string {
	switch {
	case strings.TrimSpace(text) == "":
		return "remember: the text is empty; give the fact to keep"
	case len(text) > maxTextBytes:
		return fmt.Sprintf("remember: the text is %d bytes, more than %d; keep one short fact", len(text), maxTextBytes)
	}
	if kind := secrets.Shaped(text, values...); kind != "" {
		return fmt.Sprintf("remember refused: the text holds %s; secrets are never stored as memories. Nothing was kept. Remember where the secret lives (an environment variable, a file) instead, without its value.", kind)
	}
	return ""
}

// askedRemember is remember when the config says "ask": a gated tool,
// whose dialog shows the text to keep.
type askedRemember struct{ rememberTool }

var (
	_ tools.Gated    = (*askedRemember)(nil)
	_ tools.GateText = (*askedRemember)(nil)
)

// PermissionKeys implements tools.Gated.
func (*askedRemember) PermissionKeys() []string { return []string{RememberName} }

// GateText implements tools.GateText: the text the model wants kept.
func (*askedRemember) GateText(call tools.Call) (string, string) {
	var in struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(call.Input, &in) // a bad input is refused when it runs
	return "remember: " + oneLine(in.Text), "the model wants to keep this fact for later sessions (memory.remember = \"ask\")"
}

// searchTool searches the memories (memory_search{query}).
type searchTool struct{ q storage.Memories }

func (*searchTool) Name() string   { return SearchName }
func (*searchTool) ReadOnly() bool { return true }
func (*searchTool) Description() string {
	return `Search the facts remembered for this project and this user by earlier sessions (the system prompt says how many there are). Plain words; any may match; best first. Use it before reading files to find out something an earlier session may already know.`
}
func (*searchTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to look for."}},"required":["query"],"additionalProperties":false}`)
}

func (t *searchTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	var in struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return failed("invalid arguments for memory_search: %v", err), nil
	}
	title := "memory_search: " + oneLine(in.Query)
	if len(storage.QueryTerms(in.Query)) == 0 {
		return failed("memory_search: the query has no words to search for"), nil
	}
	hits, err := t.q.Search(ctx, in.Query, searchLimit, Scopes(env.Dir)...)
	if err != nil {
		return tools.Result{}, err
	}
	if len(hits) == 0 {
		return tools.Result{Output: fmt.Sprintf("No memory matches %q.", in.Query), Title: title}, nil
	}
	var b strings.Builder
	for _, m := range hits {
		scope := "project"
		if m.Scope == storage.ScopeUser {
			scope = "user"
		}
		fmt.Fprintf(&b, "- [%s, %s, %s] %s\n", m.ID, scope, m.CreatedAt.Format("2006-01-02"), oneLine(m.Text))
	}
	return tools.Result{Output: b.String(), Title: title, Metadata: map[string]any{"matches": len(hits)}}, nil
}

func failed(format string, args ...any) tools.Result {
	msg := fmt.Sprintf(format, args...)
	return tools.Result{Output: msg, Title: "memory", IsError: true}
}
