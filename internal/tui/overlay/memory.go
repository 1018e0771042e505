package overlay

// The /memory panel: the memories a session here sees (the project's and
// the user's, internal/memory), each with its status, scope, pin and
// source, to edit (enter), pin or unpin (p), accept or reject when
// proposed (a, r) and delete after a confirmation (d, then y). The panel
// owns its list: it reads the memories when it opens and again after each
// action, off the Update loop (Load and every action return a tea.Cmd
// whose MemoryListedMsg the chat gives back to Update). An edit holding
// a secret (the agent's key, a token shape: memory.Refusal, as agent
// memory add refuses) is not saved and its editor stays open on the
// text. Text shown is stripped of terminal escapes.

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/memory"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// MemoryStore is what the panel does to the memories (storage.Memories
// has it).
type MemoryStore interface {
	List(ctx context.Context, scopes ...string) ([]storage.Memory, error)
	Edit(ctx context.Context, id, text string) error
	SetPinned(ctx context.Context, id string, pinned bool) error
	Accept(ctx context.Context, id string) error
	Remove(ctx context.Context, id string) error
}

// MemoryListedMsg is the memories as they stand after the panel read
// them or acted on one: what it did (Said) or why that failed (Err).
// List is nil when they could not be read.
type MemoryListedMsg struct {
	Store MemoryStore
	List  []storage.Memory
	Said  string
	Err   error
}

// MemoryPanel lists the memories to review.
type MemoryPanel struct {
	open    func(context.Context) (MemoryStore, error)
	scopes  []string
	secrets []string // values never saved (the agent's key)

	store   MemoryStore // nil until the first read
	mems    []storage.Memory
	loaded  bool
	list    listEditor
	said    string // what the last action did, or why it failed
	failed  bool
	confirm string // the id of the memory whose deletion is asked
}

// NewMemoryPanel is the panel of the memories of scopes, reached
// through open (which may wait for the database: it runs in a command);
// an edit holding one of secrets is refused.
func NewMemoryPanel(open func(context.Context) (MemoryStore, error), scopes []string, secrets ...string) *MemoryPanel {
	return &MemoryPanel{open: open, scopes: scopes, secrets: secrets, list: listEditor{editHeight: 6}}
}

// Load reads the memories.
func (p *MemoryPanel) Load() tea.Cmd {
	return p.act("read the memories", "", nil)
}

// act runs op on the store, then reads the list again, off the Update
// loop; said is what the message says when op succeeds.
func (p *MemoryPanel) act(what, said string, op func(ctx context.Context, q MemoryStore) error) tea.Cmd {
	q, open, scopes := p.store, p.open, p.scopes
	return func() tea.Msg {
		ctx := context.Background()
		if q == nil {
			var err error
			if q, err = open(ctx); err != nil {
				return MemoryListedMsg{Err: fmt.Errorf("%s: %w", what, err)}
			}
		}
		var err error
		if op != nil {
			if err = op(ctx, q); err != nil {
				err = fmt.Errorf("%s: %w", what, err)
			}
		}
		list, lerr := q.List(ctx, scopes...)
		if err == nil && lerr != nil {
			err = fmt.Errorf("read the memories: %w", lerr)
		}
		if list == nil && lerr == nil {
			list = []storage.Memory{}
		}
		return MemoryListedMsg{Store: q, List: list, Said: said, Err: err}
	}
}

// Update takes keys and the panel's own MemoryListedMsg.
func (p *MemoryPanel) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	if m, ok := msg.(MemoryListedMsg); ok {
		p.listed(m)
		return Keep, nil
	}
	if p.list.editing != nil {
		return Keep, p.updateEditing(h, msg)
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	key := k.String()
	if p.confirm != "" {
		id := p.confirm
		p.confirm = ""
		if key == "y" || key == "Y" {
			return Keep, p.act("delete the memory", "deleted", func(ctx context.Context, q MemoryStore) error { return q.Remove(ctx, id) })
		}
		p.said, p.failed = "kept", false
		return Keep, nil
	}
	if key == "esc" || key == "q" {
		return Close, nil
	}
	if !p.loaded || len(p.mems) == 0 {
		return Keep, nil
	}
	p.list.clamp(len(p.mems))
	if p.list.move(key, len(p.mems)) {
		return Keep, nil
	}
	cur := p.mems[p.list.sel]
	proposed := cur.Status == storage.MemoryProposed
	switch {
	case key == "enter" || key == "e":
		p.list.edit(h, cur.ID, termsafe.Strip(cur.Text))
	case key == "p":
		verb := "pinned"
		if cur.Pinned {
			verb = "unpinned"
		}
		return Keep, p.act("pin the memory", verb, func(ctx context.Context, q MemoryStore) error {
			return q.SetPinned(ctx, cur.ID, !cur.Pinned)
		})
	case key == "a" && proposed:
		return Keep, p.act("accept the memory", "accepted", func(ctx context.Context, q MemoryStore) error { return q.Accept(ctx, cur.ID) })
	case key == "r" && proposed:
		return Keep, p.act("reject the memory", "rejected", func(ctx context.Context, q MemoryStore) error { return q.Remove(ctx, cur.ID) })
	case key == "d" || key == "delete" || key == "x":
		p.confirm = cur.ID
	}
	return Keep, nil
}

// updateEditing gives msg to the open editor; a saved text holding a
// secret reopens the editor on it with the refusal said.
func (p *MemoryPanel) updateEditing(h Host, msg tea.Msg) tea.Cmd {
	saved, cmd := p.list.updateEditing(msg)
	if saved == nil {
		return cmd
	}
	if why := memory.Refusal(saved.text, p.secrets...); why != "" {
		p.list.edit(h, saved.id, saved.text)
		p.said, p.failed = why, true
		return nil
	}
	id, text := saved.id, saved.text
	return p.act("edit the memory", "edited", func(ctx context.Context, q MemoryStore) error { return q.Edit(ctx, id, text) })
}

// listed takes the memories as read after an action.
func (p *MemoryPanel) listed(m MemoryListedMsg) {
	if m.Store != nil {
		p.store = m.Store
	}
	if m.List != nil {
		p.mems, p.loaded = m.List, true
		p.list.clamp(len(p.mems))
	}
	p.said, p.failed = m.Said, m.Err != nil
	if m.Err != nil {
		p.said = m.Err.Error()
	}
}

// View shows the memories, the selected one's source under it.
func (p *MemoryPanel) View(h Host, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	var body []string
	switch {
	case !p.loaded && !p.failed:
		body = append(body, th.Dim.Render("reading the memories…"))
	case p.loaded && len(p.mems) == 0:
		body = append(body, th.Dim.Render("no memories: the model keeps one with remember; agent memory add TEXT adds one"))
	}
	rows := make([]string, len(p.mems))
	proposed := 0
	for i, m := range p.mems {
		if m.Status == storage.MemoryProposed {
			proposed++
		}
		rows[i] = theme.OneLine(memoryRow(m), inner)
	}
	p.list.clamp(len(p.mems))
	sel, selLine := p.list.sel, 0
	if len(p.mems) > 0 {
		body = append(body, th.Dim.Render(theme.OneLine(fmt.Sprintf(memoryColumns, "status", "scope", "pin", "source", "text"), inner)))
	}
	rowsAt := len(body)
	for i, row := range p.list.view(th, rows, inner) {
		body = append(body, row)
		if i == sel {
			selLine = rowsAt + i
			if p.list.editing == nil && sel < len(p.mems) {
				body = append(body, th.Dim.Render("   "+theme.OneLine(memorySource(p.mems[sel]), inner-3)))
			}
		}
	}
	if p.said != "" {
		style := th.Dim
		if p.failed {
			style = th.ErrorText
		}
		for _, l := range theme.Wrap(termsafe.Strip(p.said), inner) {
			body = append(body, style.Render(l))
		}
	}
	title := fmt.Sprintf("Memory (%d", len(p.mems))
	if proposed > 0 {
		title += fmt.Sprintf(" · %d proposed", proposed)
	}
	title += ") · this project's and yours; pinned ones go in every session's prompt"
	return theme.Frame(th, title, theme.ClampBody(body, height, selLine), p.footer(), width)
}

func (p *MemoryPanel) footer() string {
	switch {
	case p.list.editing != nil:
		return "enter save · shift+enter new line · esc cancel"
	case p.confirm != "":
		return "delete this memory? y delete · n keep"
	case len(p.mems) == 0:
		return "esc"
	}
	keys := "↑↓ select · enter edit · p pin/unpin · d delete"
	if s := p.list.sel; s < len(p.mems) && p.mems[s].Status == storage.MemoryProposed {
		keys += " · a accept · r reject"
	}
	return keys + " · esc"
}

// memoryRow is a memory's row: status, scope, pin, source and its text
// on one line, with no terminal escapes.
func memoryRow(m storage.Memory) string {
	scope, pin := "project", ""
	if m.Scope == storage.ScopeUser {
		scope = "user"
	}
	if m.Pinned {
		pin = "pinned"
	}
	source := "by you"
	if m.SessionID != "" {
		source = theme.OneLine(termsafe.Strip(m.SessionID), 11)
	}
	text := strings.Join(strings.Fields(termsafe.Strip(m.Text)), " ")
	return fmt.Sprintf(memoryColumns, m.Status, scope, pin, source, text)
}

// memoryColumns lays out a row: status, scope, pin, source, text.
const memoryColumns = "%-8s  %-7s  %-6s  %-11s  %s"

// memorySource says where a memory came from and when.
func memorySource(m storage.Memory) string {
	when := m.CreatedAt.Local().Format("2006-01-02 15:04")
	if m.SessionID == "" {
		return "added by you · " + when
	}
	s := "from session " + termsafe.Strip(m.SessionID)
	if m.MessageID != "" {
		s += " · message " + termsafe.Strip(m.MessageID)
	}
	return s + " · " + when
}
