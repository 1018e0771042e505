package overlay

// The filterable picker of /sessions, /model, /summarise and the turns of
// /rewind and /fork. It lists entries the chat gives it (Loaded, or at
// NewPicker), filters them as the user types, and closes on a choice,
// which the chat reads (Chosen) and acts on. A picker made Searchable
// also searches what it lists (search.go).

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/tui/theme"
)

// PickerEntry is one choice of a Picker.
type PickerEntry struct {
	Value, Label, Detail string
	Current              bool // shown with a mark: the chat's current one
	// Snippet, under the entry, is where a search matched.
	Snippet string
}

// Picker is a filterable list.
type Picker struct {
	title   string
	entries []PickerEntry
	filter  string
	sel     int
	loading bool
	err     error
	// free accepts the typed filter as a value when nothing matches.
	free bool
	// note is shown above the entries (the server's models could not be
	// listed).
	note string
	// search searches the entries' content for the filter (search.go);
	// nil for a picker that only filters.
	search *search
	// manage renames and deletes entries (pickermanage.go); nil for a
	// picker that only chooses.
	manage *manage
	// chosen is the value chosen (once done).
	chosen string
	done   bool
}

// NewPicker lists entries under title.
func NewPicker(title string, entries []PickerEntry) *Picker {
	return &Picker{title: title, entries: entries}
}

// Loading shows the picker as loading until Loaded.
func (p *Picker) Loading() *Picker { p.loading = true; return p }

// AcceptTyped lets Enter choose the typed filter when nothing matches.
func (p *Picker) AcceptTyped() *Picker { p.free = true; return p }

// Loaded fills the picker: its entries, a note above them, or the error
// that kept them from loading.
func (p *Picker) Loaded(entries []PickerEntry, note string, err error) {
	p.loading, p.entries, p.note, p.err = false, entries, note, err
}

// Chosen is the value the user chose, once Update returned Close on it.
func (p *Picker) Chosen() (string, bool) { return p.chosen, p.done }

// choose closes the picker on value.
func (p *Picker) choose(value string) (Result, tea.Cmd) {
	p.chosen, p.done = value, true
	return Close, nil
}

// visible are the entries the filter lets through.
func (p *Picker) visible() []PickerEntry {
	if p.filter == "" {
		return p.entries
	}
	f := strings.ToLower(p.filter)
	var out []PickerEntry
	for _, e := range p.entries {
		if strings.Contains(strings.ToLower(e.Label+" "+e.Value), f) {
			out = append(out, e)
		}
	}
	if p.searching() {
		return p.searchVisible(out)
	}
	return out
}

// Update takes the filter's typing and pastes, the selection keys, Enter
// (a choice) and Esc, and the search's messages.
func (p *Picker) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	switch msg := msg.(type) {
	case SearchDueMsg, SearchFoundMsg:
		return Keep, p.searchUpdate(msg)
	case tea.PasteMsg:
		if p.managePaste(msg.Content) {
			return Keep, nil
		}
		p.filter += strings.ReplaceAll(msg.Content, "\n", " ")
		p.sel = 0
		return Keep, p.filterChanged()
	case tea.KeyPressMsg:
		vis := p.visible()
		if p.manageKey(msg, vis) {
			return Keep, nil
		}
		switch msg.String() {
		case "esc":
			return Close, nil
		case "up", "ctrl+p":
			p.sel = max(0, p.sel-1)
		case "down", "ctrl+n":
			p.sel = min(max(0, len(vis)-1), p.sel+1)
		case "enter":
			if len(vis) > 0 {
				return p.choose(vis[min(p.sel, len(vis)-1)].Value)
			}
			if p.free && strings.TrimSpace(p.filter) != "" {
				return p.choose(strings.TrimSpace(p.filter))
			}
		case "backspace":
			if p.filter != "" {
				r := []rune(p.filter)
				p.filter = string(r[:len(r)-1])
				p.sel = 0
				return Keep, p.filterChanged()
			}
		default:
			if msg.Text != "" {
				p.filter += msg.Text
				p.sel = 0
				return Keep, p.filterChanged()
			}
		}
	}
	return Keep, nil
}

func (p *Picker) View(h Host, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	body := []string{th.AccentText.Render("filter › ") + p.filter}
	manageLine, manageFooter := p.manageLine()
	if manageLine != "" {
		body[0] = th.WarnText.Render(theme.Fit(manageLine, inner))
	}
	if p.note != "" {
		body = append(body, th.Dim.Render(theme.Fit(p.note, inner)))
	}
	vis := p.visible()
	switch {
	case p.loading:
		body = append(body, th.Dim.Render("loading…"))
	case p.err != nil:
		body = append(body, th.ErrorText.Render(p.err.Error()))
	case p.search != nil && p.search.err != nil && p.filter != "":
		body = append(body, th.ErrorText.Render("search: "+p.search.err.Error()))
	case len(vis) == 0 && p.search != nil && p.filter != "" && p.search.query != p.filter:
		body = append(body, th.Dim.Render("searching…"))
	case len(vis) == 0 && p.search != nil && p.filter != "":
		body = append(body, th.Dim.Render("no session mentions "+p.filter))
	case len(vis) == 0 && p.free && p.filter != "":
		body = append(body, th.Dim.Render("enter switches to "+p.filter))
	case len(vis) == 0:
		body = append(body, th.Dim.Render("nothing here yet"))
	}
	var rows []string
	selRow := 0
	for i, e := range vis {
		mark := "  "
		if e.Current {
			mark = "• "
		}
		label := mark + e.Label
		detail := e.Detail
		room := inner - ansi.StringWidth(detail) - 2
		if room < 12 {
			detail, room = "", inner
		}
		line := theme.Pad(theme.Fit(label, room), room)
		if detail != "" {
			line += "  " + th.Dim.Render(detail)
		}
		if i == p.sel {
			line = th.Selected.Render(theme.Pad(ansi.Strip(line), inner))
			selRow = len(rows)
		}
		rows = append(rows, line)
		if e.Snippet != "" {
			rows = append(rows, th.Dim.Render(theme.Fit("    "+e.Snippet, inner)))
			if i == p.sel {
				selRow++
			}
		}
	}
	rows = theme.ClampBody(rows, height-len(body), selRow)
	body = append(body, rows...)
	footer := "↑↓ choose · enter open · esc close"
	if p.free {
		footer = "↑↓ choose · enter switch · type a name · esc"
	}
	if manageFooter != "" {
		footer = manageFooter
	}
	return theme.Frame(th, p.title, body, footer, width)
}
