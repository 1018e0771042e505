package acp

// updates.go: the loop's events as session/update notifications. The
// observer is called synchronously and in order by the loop, so the
// updates of a turn are all sent before its prompt answers. Text and
// reasoning stream as chunks from their deltas (the parts' final states
// repeat them, and are not sent again); a user message's own parts are
// not echoed. A tool part is announced (tool_call) the first time it is
// seen and updated (tool_call_update) as its input, status and output
// change; write and edit carry their diff, worked out from the file as the
// tool will read it before the call runs: the editor's buffer when the
// client offers fs/read_text_file (as tools.Env.Editor), else the disk.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/safefile"
	"github.com/ctxloop/agent/internal/todo"
	"github.com/ctxloop/agent/internal/tools"
)

// maxDiffFileBytes bounds a file read to show a diff.
const maxDiffFileBytes = 1 << 20

// observe is the loop's observer.
func (s *session) observe(ev message.Event) {
	ctx := context.Background()
	switch ev.Type {
	case message.EventMessageUpdated:
		if ev.Message != nil {
			s.calls.role(ev.Message.ID, ev.Message.Role)
		}
	case message.EventPartDelta:
		if ev.Part == nil || ev.Delta == "" || s.calls.isUser(ev.Part.MessageID) {
			return
		}
		switch ev.Part.Type {
		case message.PartText:
			s.notify(ctx, sdk.UpdateAgentMessageText(ev.Delta))
		case message.PartReasoning:
			s.notify(ctx, sdk.UpdateAgentThoughtText(ev.Delta))
		}
	case message.EventPartUpdated:
		p := ev.Part
		if p == nil || p.Type != message.PartTool || p.Tool == nil {
			return
		}
		for _, u := range s.calls.update(p) {
			s.notify(ctx, u)
		}
		if l, ok := todo.FromPart(p); ok {
			s.notify(ctx, planUpdate(l))
		}
	case message.EventError:
		if ev.Err != "" {
			s.notify(ctx, sdk.UpdateAgentMessageText("\n\n[error: "+ev.Err+"]\n"))
		}
	default:
		if note := noteOf(ev); note != "" {
			s.notify(ctx, sdk.UpdateAgentThoughtText("\n["+note+"]\n"))
		}
	}
}

// noteOf is the line the client is shown, as a thought, for the loop's
// own events: a compaction, a retry, a note; "" for the others.
func noteOf(ev message.Event) string {
	switch {
	case ev.Type == message.EventCompacted && ev.Compaction != nil:
		c := ev.Compaction
		if c.Rejected {
			return "compaction " + c.Outcome + ": " + c.Error
		}
		return fmt.Sprintf("context compacted: %d → %d tokens", c.TokensBefore, c.TokensAfter)
	case ev.Type == message.EventRetrying && ev.Retry != nil:
		return fmt.Sprintf("retrying in %s (attempt %d): %s", ev.Retry.Delay.Round(100*time.Millisecond), ev.Retry.Attempt, ev.Retry.Reason)
	case ev.Type == message.EventNote:
		return ev.Note
	}
	return ""
}

// toolCalls tracks what the client was told of each tool part.
type toolCalls struct {
	dir string
	// read is the text of a file as the file tools see it (files.go's
	// textOf); nil: the disk.
	read func(path string) (text string, exists bool, err error)

	mu     sync.Mutex
	roles  map[string]message.Role // by message id
	sent   map[string]*sentCall    // by part id
	byCall map[string]string       // the model's call id → the latest part id
}

type sentCall struct {
	input  bool // the input was sent
	status message.ToolStatus
	diff   *sdk.ToolCallContent
	output string
	// terminal is the client's terminal the call runs in (terminal.go).
	terminal *sdk.ToolCallContent
}

func newToolCalls(dir string) *toolCalls {
	return &toolCalls{dir: dir, roles: map[string]message.Role{}, sent: map[string]*sentCall{}, byCall: map[string]string{}}
}

func (t *toolCalls) role(id string, r message.Role) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.roles[id] = r
}

func (t *toolCalls) isUser(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.roles[id] == message.RoleUser
}

// partOf is the ACP tool call id of the model's call id.
func (t *toolCalls) partOf(callID string) (string, *sdk.ToolCallContent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byCall[callID]
	if !ok {
		return callID, nil
	}
	return id, t.sent[id].diff
}

// inTerminal records that the model's call callID runs in the client's
// terminal tid and returns the update that shows it.
func (t *toolCalls) inTerminal(callID, tid string) (sdk.SessionUpdate, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byCall[callID]
	if !ok {
		return sdk.SessionUpdate{}, false
	}
	ref := sdk.ToolTerminalRef(tid)
	t.sent[id].terminal = &ref
	return sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateContent([]sdk.ToolCallContent{ref})), true
}

// update returns the notifications that bring the client up to p.
func (t *toolCalls) update(p *message.Part) []sdk.SessionUpdate {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := p.Tool
	id := sdk.ToolCallId(p.ID)
	c, seen := t.sent[p.ID]
	var out []sdk.SessionUpdate
	if !seen {
		c = &sentCall{status: st.Status}
		t.sent[p.ID] = c
		out = append(out, sdk.StartToolCall(id, title(st), sdk.WithStartKind(kindOf(st.Name)), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	}
	if st.CallID != "" {
		t.byCall[st.CallID] = p.ID
	}
	var opts []sdk.ToolCallUpdateOpt
	if !c.input && st.Input != "" && json.Valid([]byte(st.Input)) {
		c.input = true
		opts = append(opts, sdk.WithUpdateTitle(title(st)), sdk.WithUpdateRawInput(json.RawMessage(st.Input)))
		if locs := locations(t.dir, st); len(locs) > 0 {
			opts = append(opts, sdk.WithUpdateLocations(locs))
		}
		if st.Status == message.ToolPending || st.Status == message.ToolRunning {
			c.diff = diffOf(t.dir, st, t.read)
		}
		if c.diff != nil {
			opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{*c.diff}))
		}
	}
	if seen && st.Status != c.status || !seen && st.Status != message.ToolPending {
		c.status = st.Status
		opts = append(opts, sdk.WithUpdateStatus(statusOf(st.Status)))
	}
	switch {
	case st.Status == message.ToolRunning && st.Progress != "" && st.Progress != c.output && c.terminal == nil:
		c.output = st.Progress
		opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(fence(st.Progress)))}))
	case st.Status == message.ToolCompleted || st.Status == message.ToolError:
		if st.Output != c.output || len(opts) > 0 {
			c.output = st.Output
			opts = append(opts, sdk.WithUpdateContent(finalContent(c, st)), sdk.WithUpdateRawOutput(map[string]any{"output": st.Output}))
		}
	}
	if len(opts) > 0 {
		out = append(out, sdk.UpdateToolCall(id, opts...))
	}
	return out
}

// finalContent is a finished call's content: its diff (write and edit
// that succeeded) or its output; a call that ran in the client's terminal
// keeps showing it.
func finalContent(c *sentCall, st *message.ToolState) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	if c.terminal != nil {
		return []sdk.ToolCallContent{*c.terminal}
	}
	if c.diff != nil && st.Status == message.ToolCompleted {
		out = append(out, *c.diff)
	}
	if st.Output != "" {
		text := st.Output
		if st.Name == "bash" {
			text = fence(text)
		}
		out = append(out, sdk.ToolContent(sdk.TextBlock(text)))
	}
	return out
}

// fence shows command output as a code block.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}

func statusOf(s message.ToolStatus) sdk.ToolCallStatus {
	switch s {
	case message.ToolRunning:
		return sdk.ToolCallStatusInProgress
	case message.ToolCompleted:
		return sdk.ToolCallStatusCompleted
	case message.ToolError:
		return sdk.ToolCallStatusFailed
	}
	return sdk.ToolCallStatusPending
}

// kindOf is the ACP kind of a tool.
func kindOf(name string) sdk.ToolKind {
	switch name {
	case "read":
		return sdk.ToolKindRead
	case "write", "edit":
		return sdk.ToolKindEdit
	case "bash", "bash_output", "bash_kill":
		return sdk.ToolKindExecute
	case "grep", "glob", "ls", "recall", "tool_search", "diagnostics":
		return sdk.ToolKindSearch
	case "web_fetch":
		return sdk.ToolKindFetch
	case "todo_write", "todo_read", "remember", "skill":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// toolInput is the fields of the built-in tools' inputs shown.
type toolInput struct {
	Path       string `json:"path"`
	Command    string `json:"command"`
	Pattern    string `json:"pattern"`
	URL        string `json:"url"`
	Query      string `json:"query"`
	Content    string `json:"content"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	Offset     int    `json:"offset"`
}

func inputOf(st *message.ToolState) toolInput {
	var in toolInput
	_ = json.Unmarshal([]byte(st.Input), &in)
	return in
}

// maxTitleArgBytes bounds the argument shown in a call's title.
const maxTitleArgBytes = 200

// title is the call's title: the loop's when it has one, else the tool
// and its main argument.
func title(st *message.ToolState) string {
	if st.Title != "" {
		return st.Title
	}
	in := inputOf(st)
	for _, arg := range []string{in.Command, in.Path, in.Pattern, in.URL, in.Query} {
		if arg != "" {
			if cut, long := truncate.Apply(arg, 0, maxTitleArgBytes); long {
				arg = cut + "…" // at a line's end or a character's boundary
			}
			return st.Name + ": " + arg
		}
	}
	return st.Name
}

// locations are the files a call touches.
func locations(dir string, st *message.ToolState) []sdk.ToolCallLocation {
	in := inputOf(st)
	switch st.Name {
	case "read", "write", "edit":
		if in.Path == "" {
			return nil
		}
		loc := sdk.ToolCallLocation{Path: tools.AbsPath(dir, in.Path)}
		if in.Offset > 0 {
			loc.Line = sdk.Ptr(in.Offset)
		}
		return []sdk.ToolCallLocation{loc}
	case "grep", "glob", "ls":
		if in.Path != "" {
			return []sdk.ToolCallLocation{{Path: tools.AbsPath(dir, in.Path)}}
		}
	}
	return nil
}

// diffOf is the diff a write or edit call would make, worked out by the
// tools' own rules (tools.PreviewChange) from the file's text as read
// reads it now (nil: the disk); nil for other tools, or when the file
// cannot be read or the tool would refuse the call.
func diffOf(dir string, st *message.ToolState, read func(string) (string, bool, error)) *sdk.ToolCallContent {
	if st.Name != "write" && st.Name != "edit" {
		return nil
	}
	if read == nil {
		read = readSmall
	}
	c, ok := tools.PreviewChange(dir, tools.Call{Name: st.Name, Input: json.RawMessage(st.Input)}, read)
	if !ok {
		return nil
	}
	d := sdk.ToolDiffContent(c.Path, c.New)
	if c.Exists {
		d = sdk.ToolDiffContent(c.Path, c.New, c.Old)
	}
	return &d
}

// readSmall reads a regular file of at most maxDiffFileBytes by
// internal/safefile's rules: a FIFO swapped in does not block the
// observer, a kernel pseudo-file (/proc/self/environ) is not read. A
// missing file is not an error: exists is false.
func readSmall(path string) (text string, exists bool, err error) {
	b, err := safefile.Read(context.Background(), path, "", maxDiffFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// planUpdate is the todo list as an ACP plan.
func planUpdate(l todo.List) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(l))
	for _, it := range l {
		st := sdk.PlanEntryStatusPending
		switch it.Status {
		case todo.InProgress:
			st = sdk.PlanEntryStatusInProgress
		case todo.Done:
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Text, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return sdk.UpdatePlan(entries...)
}
