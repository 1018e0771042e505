package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tools"
)

// tickInterval drives the spinner, the elapsed time and retry countdowns
// while something runs.
const tickInterval = 100 * time.Millisecond

// quitWindow is how long a first Ctrl+C waits for the second.
const quitWindow = 2 * time.Second

// Model is the chat's root model.
type Model struct {
	opt Options
	box *inbox

	th            *theme
	width, height int
	rc            renderCtx

	// The session.
	gen     int // generation of the runner; events of older ones are dropped
	runner  *loop.Runner
	opening bool
	openErr error
	slot    *runnerSlot
	sess    message.Session
	snap    tokens.Snapshot
	queue   []message.QueuedMessage
	pending []string // sent before the session was open

	// The turn.
	busy        bool
	busySince   time.Time
	compacting  bool
	stopCompact context.CancelFunc
	cancelled   bool // the user interrupted this turn
	streamStart time.Time
	streamChars int
	retry       *retryItem

	// The conversation.
	chat      *chatView
	parts     map[string]item
	roles     map[string]message.Role
	expandAll bool

	editor  *editor
	drawer  drawer
	dialogs []drawer // questions from the loop, oldest first
	// drawerLines are the drawer's (or popup's) lines of the last layout.
	drawerLines []string
	flash       string // a transient hint above the editor
	flashID     int

	quitArmed time.Time
	ticking   bool
	tickGen   int
	frame     int
	closed    bool
}

// runnerSlot holds the runner the chat has open, for Close, which runs
// after the program has stopped.
type runnerSlot struct {
	mu      sync.Mutex
	r       *loop.Runner
	opening sync.WaitGroup
}

func (s *runnerSlot) set(r *loop.Runner) *loop.Runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.r
	s.r = r
	return old
}

// New returns the chat's model. Close it when the program has ended.
func New(opt Options) *Model {
	m := &Model{
		opt:   opt,
		box:   newInbox(),
		slot:  &runnerSlot{},
		chat:  newChatView(),
		parts: map[string]item{},
		roles: map[string]message.Role{},
	}
	m.setTheme(true)
	m.editor = newEditor(m.th)
	m.width, m.height = 80, 24
	for _, n := range opt.Notices {
		m.chat.add(&noticeItem{kind: noticeWarn, text: n})
	}
	if opt.Setup != nil {
		m.chat.add(setupNotice(opt.Setup))
	}
	m.opening = true
	return m
}

// Close closes the open session and stops the inbox. It waits for a
// session being opened.
func (m *Model) Close() {
	if m.closed {
		return
	}
	m.closed = true
	if m.stopCompact != nil {
		m.stopCompact()
	}
	m.slot.opening.Wait()
	m.box.close()
	if r := m.slot.set(nil); r != nil {
		_ = r.Close()
	}
}

func setupNotice(err error) *noticeItem {
	n := &noticeItem{kind: noticeWarn, text: "Nothing can be sent yet: " + err.Error()}
	if errors.Is(err, config.ErrNoAPIKey) {
		n.text = "No API key and no base URL are set, so nothing can be sent yet."
		n.hint = "For OpenAI: export OPENAI_API_KEY=sk-… and restart.\n" +
			"For a local server (Ollama, llama.cpp, vLLM, LM Studio): export OPENAI_BASE_URL=http://localhost:11434/v1 (or pass --base-url) and restart.\n" +
			"Both can also go in ~/.config/agent/config.json (\"base_url\"); the key only in the environment."
	}
	return n
}

// Init opens the session and asks the terminal for its background.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.box.wait(), m.openSession(m.opt.SessionID), tea.RequestBackgroundColor)
}

// openSession opens a runner for sessionID ("" for a new session) as a
// new generation, closing the current one.
func (m *Model) openSession(sessionID string) tea.Cmd {
	m.gen++
	gen := m.gen
	old := m.runner
	m.runner = nil
	m.opening = true
	m.openErr = nil
	opts := m.opt.Loop
	opts.Observer = m.box.observer(gen)
	opts.Doom = doomAsker{box: m.box, gen: gen}
	opts.Perms = tools.NewPermissions(m.opt.PermModes, permissionAsker{box: m.box, gen: gen}, false)
	slot := m.slot
	slot.opening.Add(1)
	return func() tea.Msg {
		defer slot.opening.Done()
		if old != nil {
			slot.set(nil)
			_ = old.Close()
		}
		r, err := loop.Open(context.Background(), opts, sessionID)
		if err != nil {
			return openedMsg{gen: gen, err: err}
		}
		slot.set(r)
		return openedMsg{gen: gen, runner: r, history: r.History(), sess: r.Session(), snap: r.Snapshot()}
	}
}

// Messages of the chat's own commands, named for what happened.
type (
	openedMsg struct {
		gen     int
		runner  *loop.Runner
		history []message.Entry
		sess    message.Session
		snap    tokens.Snapshot
		err     error
	}
	sentMsg struct {
		text   string
		queued bool
		err    error
	}
	cancelledMsg struct {
		queued []message.QueuedMessage
		err    error
	}
	compactedMsg struct {
		err error
	}
	pulledBackMsg struct {
		text string
		ok   bool
		err  error
	}
	modelSetMsg struct {
		name string
		err  error
	}
	summaryLoadedMsg struct {
		id, text string
	}
	opFailedMsg struct {
		what string
		err  error
	}
	renderedMsg struct {
		jobs  []mdJob
		lines [][]string
	}
	queueLoadedMsg struct {
		gen   int
		queue []message.QueuedMessage
	}
	tickMsg      struct{ gen int }
	tailDueMsg   struct{ owner *textItem }
	flashDoneMsg struct{ id int }
)

// Update handles a message. It never blocks: work is returned as commands.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
	case tea.KeyPressMsg:
		cmds = append(cmds, m.handleKey(msg))
	case tea.PasteMsg:
		cmds = append(cmds, m.handlePaste(msg))
	case tea.MouseWheelMsg:
		m.handleWheel(msg)
	case tea.MouseClickMsg:
		m.handleClick(msg)
	case inboxMsg:
		cmds = append(cmds, m.handleInbox(msg), m.box.wait())
	case openedMsg:
		cmds = append(cmds, m.handleOpened(msg))
	case sentMsg:
		m.handleSent(msg)
	case cancelledMsg:
		m.handleCancelled(msg)
	case compactedMsg:
		m.handleCompacted(msg)
	case pulledBackMsg:
		if msg.err != nil {
			m.notice(noticeError, "pull back the queued message: "+msg.err.Error(), "")
		} else if msg.ok && m.editor.value() == "" {
			m.editor.setValue(msg.text)
		} else if msg.ok {
			m.editor.setValue(msg.text + "\n" + m.editor.value())
		}
	case modelSetMsg:
		m.handleModelSet(msg)
	case queueLoadedMsg:
		if msg.gen == m.gen {
			m.applyEvent(message.Event{Type: message.EventQueueChanged, Queue: msg.queue})
		}
	case summaryLoadedMsg:
		if it, ok := m.parts["summary:"+msg.id].(*summaryItem); ok {
			it.text = msg.text
			it.ver++
		}
	case opFailedMsg:
		m.notice(noticeError, msg.what+": "+msg.err.Error(), "")
	case renderedMsg:
		m.handleRendered(msg)
	case tailDueMsg:
		msg.owner.ver++ // lay out again: the tail may render now
	case tickMsg:
		cmds = append(cmds, m.handleTick(msg))
	case flashDoneMsg:
		if msg.id == m.flashID {
			m.flash = ""
		}
	case sessionsLoadedMsg, modelsLoadedMsg:
		if m.drawer != nil {
			_, cmd := m.drawer.update(m, msg)
			cmds = append(cmds, cmd)
		}
	}
	cmds = append(cmds, m.afterUpdate()...)
	return m, tea.Batch(cmds...)
}

// afterUpdate lays the screen out and starts what the new state needs:
// markdown renders for visible blocks, the ticker.
func (m *Model) afterUpdate() []tea.Cmd {
	var cmds []tea.Cmd
	m.dropAbandonedDialogs()
	m.layout()
	cmds = append(cmds, m.scheduleRenders()...)
	if cmd := m.ensureTicking(); cmd != nil {
		cmds = append(cmds, cmd)
	}
	return cmds
}

func (m *Model) setTheme(dark bool) {
	if m.th != nil && m.th.dark == dark {
		return
	}
	m.th = newTheme(dark)
	m.rc.th = m.th
	m.rc.gen++
	if m.editor != nil {
		m.editor.setTheme(m.th)
	}
}

// notice adds a line from the chat itself to the conversation.
func (m *Model) notice(kind noticeKind, text, hint string) {
	m.chat.add(&noticeItem{kind: kind, text: text, hint: hint})
}

// setFlash shows a transient hint above the editor.
func (m *Model) setFlash(s string, d time.Duration) tea.Cmd {
	m.flashID++
	m.flash = s
	id := m.flashID
	return tea.Tick(d, func(time.Time) tea.Msg { return flashDoneMsg{id: id} })
}

func (m *Model) handleOpened(msg openedMsg) tea.Cmd {
	if msg.gen != m.gen {
		if msg.runner != nil {
			r := msg.runner
			return func() tea.Msg { _ = r.Close(); return nil }
		}
		return nil
	}
	m.opening = false
	if msg.err != nil {
		m.openErr = msg.err
		hint := "Quit with ctrl+c and check the data directory, or start another session with /new."
		if strings.Contains(msg.err.Error(), "busy") || strings.Contains(msg.err.Error(), "lease") {
			hint = "Another agent process drives this session. Close it, or start another session with /new."
		}
		m.notice(noticeError, "open session: "+msg.err.Error(), hint)
		return nil
	}
	m.runner = msg.runner
	m.sess = msg.sess
	m.snap = msg.snap
	m.loadHistory(msg.history)
	var cmds []tea.Cmd
	cmds = append(cmds, m.loadQueue())
	pending := m.pending
	m.pending = nil
	for _, text := range pending {
		cmds = append(cmds, m.sendCmd(text))
	}
	return tea.Batch(cmds...)
}

// loadQueue loads the persisted queue of the session just opened.
func (m *Model) loadQueue() tea.Cmd {
	r, gen := m.runner, m.gen
	return func() tea.Msg {
		q, err := r.Queue(context.Background())
		if err != nil {
			return opFailedMsg{what: "load the queue", err: err}
		}
		return queueLoadedMsg{gen: gen, queue: q}
	}
}

// loadHistory builds the conversation of a resumed session. Nothing is
// rendered here: items render when they come into view.
func (m *Model) loadHistory(history []message.Entry) {
	m.chat.reset()
	clear(m.parts)
	clear(m.roles)
	for _, n := range m.opt.Notices {
		m.chat.add(&noticeItem{kind: noticeWarn, text: n})
	}
	if m.opt.Setup != nil {
		m.chat.add(setupNotice(m.opt.Setup))
	}
	for i := range history {
		e := &history[i]
		m.roles[e.Message.ID] = e.Message.Role
		if e.Message.Summary {
			text := ""
			for _, p := range e.Parts {
				if p.Type == message.PartText {
					text += p.Text
				}
			}
			it := &summaryItem{text: text}
			m.parts["summary:"+e.Message.ID] = it
			m.chat.add(it)
			continue
		}
		for j := range e.Parts {
			p := &e.Parts[j]
			m.addPart(e.Message.Role, e.Message.Synthetic, p, true)
		}
		if e.Message.Role == message.RoleAssistant && e.Message.Error != "" {
			m.chat.add(messageErrorItem(e.Message.Error))
		}
		if e.Message.Role == message.RoleUser && !e.Message.Synthetic {
			for _, p := range e.Parts {
				if p.Type == message.PartText {
					m.editor.remember(p.Text)
				}
			}
		}
	}
	m.chat.toBottom()
}

func messageErrorItem(errText string) *noticeItem {
	if strings.Contains(errText, "interrupted") {
		return &noticeItem{kind: noticeInfo, text: "interrupted"}
	}
	return &noticeItem{kind: noticeError, text: termsafe.Strip(errText)}
}

// addPart adds the item of a part, or updates it if it exists.
func (m *Model) addPart(role message.Role, synthetic bool, p *message.Part, final bool) {
	switch p.Type {
	case message.PartText:
		if role == message.RoleUser {
			if _, ok := m.parts[p.ID]; ok || p.Text == "" {
				return
			}
			it := newUserItem(p.Text, synthetic)
			m.parts[p.ID] = it
			m.chat.add(it)
			return
		}
		if it, ok := m.parts[p.ID].(*textItem); ok {
			if p.Text != "" {
				it.set(p.Text, true)
			}
			return
		}
		it := newTextItem(p.Text, final || p.Text != "")
		m.parts[p.ID] = it
		m.chat.add(it)
	case message.PartReasoning:
		it, ok := m.parts[p.ID].(*reasoningItem)
		if !ok {
			it = &reasoningItem{streaming: !final && p.Text == ""}
			m.parts[p.ID] = it
			m.chat.add(it)
		}
		if p.Text != "" {
			it.b.Reset()
			it.b.WriteString(termsafe.Strip(p.Text))
			it.streaming = false
			it.ver++
		}
	case message.PartTool:
		if p.Tool == nil {
			return
		}
		title := ""
		if p.Tool.Title == "" && p.Tool.Input != "" {
			title = m.toolTitle(p.Tool)
		}
		if it, ok := m.parts[p.ID].(*toolItem); ok {
			it.set(*p.Tool, title)
			return
		}
		it := &toolItem{state: *p.Tool, title: title}
		m.parts[p.ID] = it
		m.chat.add(it)
	case message.PartCompaction:
		if c := p.Compaction; c != nil {
			m.chat.add(compactionMarker(c))
		}
	}
}

// toolTitle titles a call from its input while the tool has not given
// its own title.
func (m *Model) toolTitle(st *message.ToolState) string {
	reg := m.opt.Loop.Tools
	if reg == nil {
		return ""
	}
	dir := m.sess.Dir
	if dir == "" {
		dir = m.opt.Loop.Dir
	}
	return reg.Title(&tools.Env{Dir: dir}, tools.Call{Name: st.Name, Input: []byte(st.Input)})
}

func compactionMarker(c *message.CompactionState) *noticeItem {
	how := "compacted"
	if c.Auto {
		how = "compacted automatically"
	}
	if c.Reason != "" && c.Reason != "manual" {
		how += " (" + c.Reason + ")"
	}
	if c.Rejected {
		return &noticeItem{kind: noticeWarn, text: fmt.Sprintf("compaction rejected: the summary would not shrink the context (%s → %s tokens); pruning and truncation carry on",
			formatTokens(c.TokensBefore), formatTokens(c.TokensAfter))}
	}
	text := fmt.Sprintf("context %s: %s → %s tokens", how, formatTokens(c.TokensBefore), formatTokens(c.TokensAfter))
	if c.Focus != "" {
		text += " · focus: " + oneLine(termsafe.Strip(c.Focus), 40)
	}
	return &noticeItem{kind: noticeMarker, text: text}
}

// handleInbox applies what the loop pushed, in order.
func (m *Model) handleInbox(items inboxMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, v := range items {
		switch v := v.(type) {
		case loopEvent:
			if v.gen != m.gen {
				continue
			}
			cmds = append(cmds, m.applyEvent(v.ev))
		case permissionAsk:
			if v.gen != m.gen {
				v.reply <- tools.Deny
				continue
			}
			m.dialogs = append(m.dialogs, newPermissionDialog(v))
		case doomAsk:
			if v.gen != m.gen {
				v.reply <- loop.DoomStop
				continue
			}
			m.dialogs = append(m.dialogs, newDoomDialog(v))
		}
	}
	if m.runner != nil {
		m.snap = m.runner.Snapshot()
		s := m.runner.Session()
		m.sess = s
	}
	return tea.Batch(cmds...)
}

// applyEvent applies one loop event.
func (m *Model) applyEvent(ev message.Event) tea.Cmd {
	switch ev.Type {
	case message.EventStatus:
		m.setBusy(ev.Busy)
	case message.EventMessageUpdated:
		if msg := ev.Message; msg != nil {
			m.roles[msg.ID] = msg.Role
			if msg.Summary {
				if _, ok := m.parts["summary:"+msg.ID]; !ok {
					it := &summaryItem{}
					m.parts["summary:"+msg.ID] = it
					m.chat.add(it)
					return m.loadSummary(msg.ID)
				}
			}
			if msg.Role == message.RoleAssistant && msg.Error != "" && msg.Finished() {
				if m.cancelled {
					m.chat.add(&noticeItem{kind: noticeInfo, text: "interrupted"})
				}
				// Other errors arrive as EventError, with what to do.
			}
		}
	case message.EventPartUpdated:
		if p := ev.Part; p != nil {
			m.finishRetry()
			if p.Type == message.PartStepStart {
				m.streamStart, m.streamChars = time.Time{}, 0
			}
			role := m.roles[p.MessageID]
			if role == "" {
				role = message.RoleAssistant
			}
			m.addPart(role, false, p, false)
		}
	case message.EventPartDelta:
		if p := ev.Part; p != nil && ev.Delta != "" {
			m.finishRetry()
			if m.streamStart.IsZero() {
				m.streamStart = time.Now()
			}
			m.streamChars += len(ev.Delta)
			m.partDelta(p, ev.Delta)
		}
	case message.EventQueueChanged:
		m.queue = ev.Queue
		if q, ok := m.drawer.(*queueDrawer); ok {
			q.clamp(len(m.queue))
		}
	case message.EventSessionUpdated:
		if ev.Session != nil {
			m.sess = *ev.Session
		}
	case message.EventRetrying:
		if ev.Retry != nil {
			m.finishRetry()
			it := &retryItem{info: *ev.Retry, until: time.Now().Add(ev.Retry.Delay), left: -1}
			it.tick(time.Now())
			m.retry = it
			m.chat.add(it)
		}
	case message.EventPruned:
		if p := ev.Prune; p != nil {
			text := fmt.Sprintf("pruned %d old tool output%s: %s → %s tokens", p.Parts, plural(p.Parts), formatTokens(p.TokensBefore), formatTokens(p.TokensAfter))
			if p.TokensBefore == 0 {
				text = fmt.Sprintf("pruned %d old tool output%s, ~%s tokens freed", p.Parts, plural(p.Parts), formatTokens(p.TokensSaved))
			}
			m.chat.add(&noticeItem{kind: noticeMarker, text: text})
		}
	case message.EventCompacted:
		if c := ev.Compaction; c != nil {
			m.chat.add(compactionMarker(c))
		}
	case message.EventError:
		text := termsafe.Strip(ev.Err)
		m.chat.add(&noticeItem{kind: noticeError, text: text, hint: errorHint(text)})
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// errorHint says what the user can do about an error.
func errorHint(text string) string {
	low := strings.ToLower(text)
	switch {
	case strings.Contains(low, "api key") || strings.Contains(low, "401") || strings.Contains(low, "unauthorized"):
		return "Check OPENAI_API_KEY (and OPENAI_BASE_URL), then restart the agent."
	case strings.Contains(low, "404") || strings.Contains(low, "model") && strings.Contains(low, "not found"):
		return "Check the model name: /model NAME switches it."
	case strings.Contains(low, "context") && (strings.Contains(low, "length") || strings.Contains(low, "too long")):
		return "Run /compact to summarise the conversation, then send again."
	case strings.Contains(low, "doom loop"):
		return "The model repeated itself; tell it what to do differently."
	case strings.Contains(low, "connect") || strings.Contains(low, "dial") || strings.Contains(low, "timeout") || strings.Contains(low, "refused"):
		return "Check that the server is reachable, then send your message again."
	}
	return "Send a message to carry on, or /model to try another model."
}

func (m *Model) partDelta(p *message.Part, delta string) {
	switch p.Type {
	case message.PartText:
		it, ok := m.parts[p.ID].(*textItem)
		if !ok {
			it = newTextItem("", false)
			m.parts[p.ID] = it
			m.chat.add(it)
		}
		it.append(delta)
	case message.PartReasoning:
		it, ok := m.parts[p.ID].(*reasoningItem)
		if !ok {
			it = &reasoningItem{streaming: true}
			m.parts[p.ID] = it
			m.chat.add(it)
		}
		it.b.WriteString(termsafe.Strip(delta))
		it.ver++
	}
}

func (m *Model) finishRetry() {
	if m.retry != nil {
		m.retry.finish()
		m.retry = nil
	}
}

func (m *Model) setBusy(busy bool) {
	if busy == m.busy {
		return
	}
	m.busy = busy
	if busy {
		m.busySince = time.Now()
		m.cancelled = false
		m.streamStart, m.streamChars = time.Time{}, 0
		return
	}
	m.finishRetry()
	// Close whatever a cancel left streaming.
	for _, it := range m.parts {
		switch it := it.(type) {
		case *textItem:
			if it.streaming() {
				it.set(it.doc.text(), true)
			}
		case *reasoningItem:
			if it.streaming {
				it.streaming = false
				it.ver++
			}
		}
	}
}

func (m *Model) loadSummary(id string) tea.Cmd {
	r := m.runner
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		h := r.History()
		for i := len(h) - 1; i >= 0; i-- {
			if h[i].Message.ID == id {
				text := ""
				for _, p := range h[i].Parts {
					if p.Type == message.PartText {
						text += p.Text
					}
				}
				return summaryLoadedMsg{id: id, text: text}
			}
		}
		return nil
	}
}

// sendCmd sends text to the runner (queued while busy).
func (m *Model) sendCmd(text string) tea.Cmd {
	r := m.runner
	return func() tea.Msg {
		queued, err := r.Send(context.Background(), text)
		return sentMsg{text: text, queued: queued, err: err}
	}
}

// submit handles Enter on the editor.
func (m *Model) submit() tea.Cmd {
	text := m.editor.value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if cmd, arg, ok := parseCommand(text); ok {
		m.editor.remember(text)
		m.editor.reset()
		return m.runCommand(cmd, arg)
	} else if strings.HasPrefix(text, "/") && !strings.ContainsAny(strings.Fields(text)[0][1:], "/.") {
		return m.setFlash(fmt.Sprintf("unknown command %s: /help lists them (start with a space to send it as text)", strings.Fields(text)[0]), 4*time.Second)
	}
	if m.opt.Setup != nil {
		m.notice(noticeError, "not sent: "+m.opt.Setup.Error(), "Set the key or a base URL and restart; your text stays in the editor.")
		m.chat.toBottom()
		return nil
	}
	m.editor.remember(text)
	m.editor.reset()
	m.chat.toBottom()
	if m.runner == nil {
		if m.opening {
			m.pending = append(m.pending, text)
			return nil
		}
		m.editor.setValue(text)
		m.notice(noticeError, "no session is open", "Start one with /new.")
		return nil
	}
	return m.sendCmd(text)
}

func (m *Model) handleSent(msg sentMsg) {
	if msg.err == nil {
		return
	}
	// Give the text back rather than lose it.
	if cur := m.editor.value(); cur == "" {
		m.editor.setValue(msg.text)
	} else {
		m.editor.setValue(msg.text + "\n" + cur)
	}
	m.notice(noticeError, "not sent: "+msg.err.Error(), "Your message is back in the editor.")
}

// interrupt cancels the running turn (Esc).
func (m *Model) interrupt() tea.Cmd {
	if m.compacting && m.stopCompact != nil {
		m.stopCompact()
		return m.setFlash("stopping the compaction…", 2*time.Second)
	}
	if !m.busy || m.runner == nil {
		return nil
	}
	m.cancelled = true
	r := m.runner
	return func() tea.Msg {
		q, err := r.Cancel(context.Background())
		return cancelledMsg{queued: q, err: err}
	}
}

func (m *Model) handleCancelled(msg cancelledMsg) {
	if msg.err != nil {
		m.notice(noticeError, "interrupt: "+msg.err.Error(), "")
		return
	}
	if len(msg.queued) == 0 {
		return
	}
	texts := make([]string, 0, len(msg.queued)+1)
	for _, q := range msg.queued {
		texts = append(texts, q.Text)
	}
	if cur := m.editor.value(); strings.TrimSpace(cur) != "" {
		texts = append(texts, cur)
	}
	m.editor.setValue(strings.Join(texts, "\n\n"))
	m.notice(noticeInfo, fmt.Sprintf("%d queued message%s moved back to the editor", len(msg.queued), plural(len(msg.queued))), "")
}

func (m *Model) handleCompacted(msg compactedMsg) {
	m.compacting = false
	m.stopCompact = nil
	switch {
	case msg.err == nil:
	case errors.Is(msg.err, loop.ErrNothingToCompact):
		m.notice(noticeInfo, "nothing to compact yet", "")
	case errors.Is(msg.err, context.Canceled):
		m.notice(noticeInfo, "compaction stopped", "")
	default:
		m.notice(noticeError, "compact: "+msg.err.Error(), errorHint(msg.err.Error()))
	}
}

func (m *Model) handleModelSet(msg modelSetMsg) {
	if msg.err != nil {
		m.notice(noticeError, msg.err.Error(), "")
		return
	}
	if m.runner != nil {
		m.snap = m.runner.Snapshot()
		m.sess = m.runner.Session()
		text := "model: " + msg.name
		if !m.runner.ModelKnown() {
			m.notice(noticeWarn, text, fmt.Sprintf("The catalog does not know %s: a %dK window is assumed. Give its limits under \"models\" in the config.", msg.name, tokens.DefaultWindow/1000))
			return
		}
		m.notice(noticeInfo, text, "")
	}
}

// handleRendered stores markdown renders.
func (m *Model) handleRendered(msg renderedMsg) {
	for i, j := range msg.jobs {
		if j.blk.pending == j.key {
			j.blk.pending = mdKey{}
		}
		if j.blk.src != j.key.src && !(j.tail && strings.HasPrefix(j.blk.src, j.key.src)) {
			continue // the block changed since
		}
		j.blk.r = mdRendering{key: j.key, lines: msg.lines[i]}
		j.owner.ver++
	}
}

// scheduleRenders starts markdown renders the last layout found missing.
// Finished blocks go in one batch; a streaming tail waits for its
// interval.
func (m *Model) scheduleRenders() []tea.Cmd {
	if len(m.rc.missing) == 0 {
		return nil
	}
	var jobs []mdJob
	var cmds []tea.Cmd
	now := time.Now()
	for _, j := range m.rc.missing {
		if j.blk.pending == j.key {
			continue
		}
		if j.tail {
			doc := j.owner.doc
			if wait := tailRenderInterval - now.Sub(doc.lastTail); wait > 0 {
				owner := j.owner
				cmds = append(cmds, tea.Tick(wait, func(time.Time) tea.Msg { return tailDueMsg{owner: owner} }))
				j.blk.pending = j.key // one wake-up at a time
				continue
			}
			doc.lastTail = now
		}
		j.blk.pending = j.key
		jobs = append(jobs, j)
	}
	m.rc.missing = m.rc.missing[:0]
	if len(jobs) > 0 {
		cmds = append(cmds, func() tea.Msg {
			out := make([][]string, len(jobs))
			for i, j := range jobs {
				out[i] = renderMarkdown(j.key.src, j.key.width, j.key.dark)
			}
			return renderedMsg{jobs: jobs, lines: out}
		})
	}
	return cmds
}

// ensureTicking runs the ticker while something moves on screen.
func (m *Model) ensureTicking() tea.Cmd {
	need := m.busy || m.compacting || m.retry != nil || m.opening
	if !need || m.ticking {
		return nil
	}
	m.ticking = true
	m.tickGen++
	gen := m.tickGen
	return tea.Tick(tickInterval, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

func (m *Model) handleTick(msg tickMsg) tea.Cmd {
	if msg.gen != m.tickGen {
		return nil
	}
	m.ticking = false
	m.frame++
	if m.retry != nil {
		m.retry.tick(time.Now())
	}
	return nil // afterUpdate starts the next tick if still needed
}

// dropAbandonedDialogs closes questions whose turn was cancelled.
func (m *Model) dropAbandonedDialogs() {
	kept := m.dialogs[:0]
	for _, d := range m.dialogs {
		if a, ok := d.(interface{ abandoned() bool }); ok && a.abandoned() {
			continue
		}
		kept = append(kept, d)
	}
	for i := len(kept); i < len(m.dialogs); i++ {
		m.dialogs[i] = nil
	}
	m.dialogs = kept
}

// compactCmd runs /compact.
func (m *Model) compactCmd(focus string) tea.Cmd {
	if m.runner == nil {
		return m.setFlash("no session is open yet", 2*time.Second)
	}
	if m.busy {
		return m.setFlash("the agent is busy: wait for the turn to end, or press esc to interrupt it", 3*time.Second)
	}
	if m.compacting {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.compacting = true
	m.stopCompact = cancel
	m.busySince = time.Now()
	r := m.runner
	return func() tea.Msg {
		defer cancel()
		return compactedMsg{err: r.Compact(ctx, focus)}
	}
}
