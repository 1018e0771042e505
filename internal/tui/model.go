package tui

import (
	"context"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/plan"
	"github.com/ctxloop/agent/internal/tui/overlay"
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
	renderWidth   renderWidth

	// The session.
	gen     int // generation of the runner; events of older ones are dropped
	runner  *loop.Runner
	opening bool
	hooks   hookNotes // hook notes that came while the session opened (hooks.go)
	// fresh is a new conversation not created yet: the session is made by
	// the first message, so a chat left without one leaves nothing behind.
	fresh    bool
	prefetch envPrefetch // the next turn's environment, gathered as the user types (prefetch.go)
	openErr  error
	slot     *runnerSlot
	store    *storeFuture // the database, maybe still opening (startup.go)
	fatal    error        // why the chat ended on its own (Run returns it)
	sess     message.Session
	snap     tokens.Reading
	near     *message.CompactionForecast // the last forecast of compaction (nearLabel)
	queue    []message.QueuedMessage
	mention  mentionState // the @ completion (mention.go)
	custom   customState  // custom slash commands (custom.go)
	// pending are texts waiting to be sent: before the session is open,
	// or behind a send in flight (sends go one at a time, in order).
	pending []outgoing
	sending bool
	// images wait for the next message (images.go).
	images imageTray

	// The turn.
	busy        bool
	busySince   time.Time
	compacting  bool
	stopCompact context.CancelFunc
	compaction  compactions // the one under way, the newest card (compactcard.go)
	cancelled   bool        // the user interrupted this turn
	bang        *bangRun    // the !command that runs (bang.go)
	streamStart time.Time
	streamChars int
	retry       *retryItem

	// The conversation.
	chat  *chatView
	parts map[string]item
	msgs  map[string]msgInfo // role and kind of the messages seen

	// welcome is the welcome screen while a fresh chat shows it; branch
	// is the directory's git branch once known.
	welcome *welcomeItem
	// tailItems are the items of the tail shown while the session opens,
	// by part id (resume.go).
	tailItems   map[string]item
	branch      string
	branchKnown bool

	// Inline mode (inline.go): sized is set by the first window size;
	// printing while a print to the scrollback is in flight; printAhead
	// are lines to print before the next settled items. printCmd and
	// clipboardCmd write to the terminal (tea.Println, tea.SetClipboard;
	// tests record them).
	inline       bool
	sized        bool
	printing     bool
	printAhead   []string
	liveFloor    int // the live region's height since a print last went out (view.go)
	printCmd     func(text string) tea.Cmd
	clipboardCmd func(text string) tea.Cmd

	editor    *editor
	drawer    drawer
	questions overlay.Questions // the loop's open questions (overlay/questions.go)
	// mcpAsking: the project's MCP servers waiting for approval
	// (mcpapproval.go).
	mcpAsking mcpAsking
	// drawerLines are the drawer's (or popup's) lines of the last layout.
	drawerLines []string
	flash       string // a transient hint above the editor
	flashID     int

	cp checkpointState // /undo, /rewind, /diff, /fork (rewind.go)

	quitArmed time.Time
	tick      ticker // the spinner's ticks (ticker.go)
	closed    bool

	// lastUsage is the newest step's usage (cacheLabel).
	lastUsage message.Usage
}

// msgInfo is what the chat keeps of a message to place its parts.
type msgInfo struct {
	role      message.Role
	synthetic bool
	summary   bool // a compaction's summary: its text goes to the card
}

// New returns the chat's model. Close it when the program has ended.
func New(opt Options) *Model {
	m := &Model{
		opt:   opt,
		box:   newInbox(),
		slot:  &runnerSlot{},
		chat:  newChatView(),
		parts: map[string]item{},
		msgs:  map[string]msgInfo{},

		inline:       opt.Inline,
		printCmd:     func(text string) tea.Cmd { return tea.Println(text) },
		clipboardCmd: tea.SetClipboard,
	}
	if m.opt.Loop.Effort == nil { // the chat's /effort sets it (effort.go)
		m.opt.Loop.Effort = loop.NewEffort("")
	}
	if m.opt.Loop.Mode == nil { // shift+tab and /plan switch it (planmode.go)
		m.opt.Loop.Mode = plan.New(false, nil)
	}
	if m.opt.Loop.Jobs == nil { // the runners' and the chat's (jobs.go)
		m.opt.Loop.Jobs = jobs.New(maxBackground(m.opt.Loop.Config))
	}
	m.opt.jobsEsc = &escTwice{}
	m.opt.notify = newNotifier(uiOf(opt.Loop.Config).Notify, os.Getenv)
	m.store = newStoreFuture(opt)
	m.setTheme(true)
	m.editor = newEditor(m.th)
	m.editor.vi.on = uiOf(opt.Loop.Config).Vi // vimode.go
	m.width, m.height = 80, 24
	for _, n := range opt.Notices {
		m.chat.add(&noticeItem{kind: noticeWarn, text: n})
	}
	if opt.Setup != nil {
		m.chat.add(setupNotice(opt.Setup))
	}
	m.opening = opt.SessionID != ""
	m.fresh = opt.SessionID == ""
	if m.fresh {
		m.showWelcome()
	}
	return m
}

// Close closes the open session and stops the inbox. It waits for a
// session being opened.
func (m *Model) Close() {
	if m.closed {
		return
	}
	m.closed = true
	if m.bang != nil {
		m.bang.stop(bangStopWait) // before the runner and the store close
	}
	if m.stopCompact != nil {
		m.stopCompact()
	}
	m.box.close()
	m.store.abandon()
	if r := m.slot.close(); r != nil {
		_ = r.Close()
	}
	m.store.closeOwned()
}

// Init opens the session and asks the terminal for its background.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.box.wait(), tea.RequestBackgroundColor, loadBranch(m.opt.Loop.Dir), m.store.open(m.opt.OpenStore, m.slot),
		watchJobs(m.opt.Loop.Jobs, m.box.done), watchMCP(m.opt.MCP, m.box.done), lateNotices(m.opt.LateNotices)}
	if m.opt.SessionID != "" {
		// The last screenful is read and drawn while the session opens
		// (resume.go).
		cmds = append(cmds, m.openSession(m.opt.SessionID), m.loadTail(m.opt.SessionID))
	}
	if needsModel(m.runner, m.fresh, m.opt.Loop.Config) {
		cmds = append(cmds, m.askModel())
	}
	return tea.Batch(cmds...)
}

// Update handles a message. It never blocks: work is returned as commands.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	if releasesHold(msg) {
		m.prefetch.hold.release() // framehold.go
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		// Inline mode: a new width is drawn on a clean screen, cleared
		// by the program's model (exitGuard, inlineresize.go).
		m.width, m.height = msg.Width, msg.Height
		m.sized = true
	case printStartedMsg:
		m.liveFloor = 0 // the print cleared the live region, padding and all
	case printedMsg:
		m.printing = false
	case bangDoneMsg, bangProgressMsg:
		cmds = append(cmds, handleBang(m, msg)) // bang.go
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
	case tea.KeyPressMsg:
		cmds = append(cmds, m.handleKey(msg))
	case tea.PasteMsg:
		cmds = append(cmds, m.handlePaste(msg))
	case tea.MouseWheelMsg:
		m.chat.wheel(&m.rc, msg)
	case tea.MouseClickMsg:
		m.chat.click(msg)
	case inboxMsg:
		cmds = append(cmds, m.handleInbox(msg), m.box.wait())
	case tailLoadedMsg:
		m.handleTailLoaded(msg)
	case storeOpenedMsg:
		cmds = append(cmds, m.handleStoreOpened(msg))
	case openedMsg:
		cmds = append(cmds, m.handleOpened(msg))
	case sentMsg:
		cmds = append(cmds, m.handleSent(msg))
	case imageAttachedMsg:
		cmds = append(cmds, m.handleImageAttached(msg))
	case cancelledMsg:
		m.handleCancelled(msg)
	case compactedMsg:
		m.handleCompacted(msg)
	case compactionUndoneMsg:
		m.handleCompactionUndone(msg)
	case restoreCostMsg:
		msg.apply(m)
	case pulledBackMsg:
		if msg.err != nil {
			m.chat.notice(noticeError, "pull back the queued message: "+msg.err.Error(), "")
		} else if msg.ok && m.editor.value() == "" {
			m.editor.setValue(msg.text)
		} else if msg.ok {
			m.editor.setValue(msg.text + "\n" + m.editor.value())
		}
		if msg.ok {
			m.images = append(msg.images, m.images...)
		}
	case modelSetMsg:
		cmds = append(cmds, m.handleModelSet(msg))
	case customLoadedMsg:
		m.custom.scanning = false
		m.applyCustom(msg.set)
	case customResolvedMsg:
		cmds = append(cmds, m.handleCustomResolved(msg))
	case queueLoadedMsg:
		if msg.gen == m.gen {
			m.applyEvent(message.Event{Type: message.EventQueueChanged, Queue: msg.queue})
		}
	case summaryLoadedMsg:
		if it, ok := m.parts["summary:"+msg.id].(*compactionItem); ok {
			it.setSummary(msg.text)
		}
	case opFailedMsg:
		m.chat.notice(noticeError, msg.What+": "+msg.Err.Error(), "")
	case overlay.PinDoneMsg:
		cmds = append(cmds, pinDoneMsg(msg).apply(m))
	case rewoundMsg:
		cmds = append(cmds, m.handleRewound(msg))
	case diffLoadedMsg:
		cmds = append(cmds, m.handleDiffLoaded(msg))
	case forkedMsg:
		cmds = append(cmds, m.handleForked(msg))
	case controlMsg: // also turnsLoadedMsg (rewindread.go), earlierLoadedMsg (earlier.go)
		cmds = append(cmds, msg.apply(m))
	case renderedMsg:
		msg.apply()
	case tailDueMsg:
		msg.owner.doc.tailWake = false
		msg.owner.ver++ // lay out again: the tail may render now
	case tickMsg:
		if m.tick.tick(msg) && m.retry != nil {
			m.retry.tick(time.Now())
		}
		// afterUpdate starts the next tick if still needed
	case tea.FocusMsg, tea.BlurMsg:
		m.opt.notify.focus(msg)
	case overlay.ArmedMsg:
		m.questions.Arm(msg)
	case overlay.SettledMsg:
		m.questions.Settle(msg)
	case overlay.MCPChosenMsg:
		cmds = append(cmds, m.mcpAsking.chosen(msg, m.opt.Approvals, m.opt.MCP, m.chat)) // mcpapproval.go
	case branchLoadedMsg:
		m.branch, m.branchKnown = msg.branch, true
		if m.welcome != nil && m.welcome.branch != msg.branch {
			m.welcome.branch = msg.branch
			m.welcome.ver++
		}
	case flashDoneMsg:
		if msg.id == m.flashID {
			m.flash = ""
		}
	case sessionsLoadedMsg, modelsLoadedMsg, sessionActedMsg, overlay.SearchDueMsg, overlay.SearchFoundMsg:
		if m.drawer != nil {
			d := m.drawer
			res, cmd := d.update(m, msg)
			if res == drawerClose && m.drawer == d {
				m.drawer = nil
			}
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
	m.questions.DropAbandoned()
	cmds = append(cmds, m.askMCPApprovals()) // mcpapproval.go
	cmds = append(cmds, loadEarlier(m))      // earlier.go
	m.welcome.refresh(m.opt.Loop.Config, sessionModel(m.sess, m.opt.Loop.Config), m.opt.Loop.Dir, m.opt.Version)
	if armed, ok := m.questions.Show(); ok {
		cmds = append(cmds, m.after(overlay.Grace, armed), m.opt.notify.question()) // notify.go
	}
	cmds = append(cmds, m.opt.notify.observe(m.busy))
	cmds = append(cmds, m.custom.popupScan(m.opt.Commands, m.editor.value()))                  // custom.go
	m.prefetch.start(m.editor.empty(), m.runner, m.fresh, m.opt.Loop.Dir, m.opt.Loop.Provider) // prefetch.go
	startEarlyOpen(m)                                                                          // earlyopen.go
	m.rc.size(m.width, &m.renderWidth)
	cmds = append(cmds, m.printSettled())
	m.layout()
	cmds = append(cmds, m.rc.schedule(&m.renderWidth, m.after)...)
	// The ticker runs while something moves on screen, and stops while a
	// dialog waits for the user.
	moving := m.busy || m.compacting || m.retry != nil || m.opening
	if cmd := m.tick.start(moving && m.questions.Len() == 0, m.after); cmd != nil {
		cmds = append(cmds, cmd)
	}
	return cmds
}

func (m *Model) setTheme(dark bool) {
	if m.th != nil && m.th.Dark == dark {
		return
	}
	m.th = newTheme(dark)
	m.rc.th = m.th
	m.rc.gen++
	if m.editor != nil {
		m.editor.setTheme(m.th)
	}
}

// after delivers msg after d, unless the chat closes first.
func (m *Model) after(d time.Duration, msg tea.Msg) tea.Cmd {
	done := m.box.done
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return msg
		case <-done:
			return nil
		}
	}
}

// setFlash shows a transient hint above the editor.
func (m *Model) setFlash(s string, d time.Duration) tea.Cmd {
	m.flashID++
	m.flash = s
	id := m.flashID
	return m.after(d, flashDoneMsg{id: id})
}
