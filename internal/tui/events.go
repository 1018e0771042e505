package tui

// Events from the loop become items of the conversation. The loop emits
// a part when it starts (empty text, a pending tool), deltas while it
// streams, and the part again when it ends; the chat creates an item on
// the first of these and updates it in place after.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/todo"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

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
				v.reply <- tools.Answer{Reply: tools.Deny}
				continue
			}
			m.questions.Add(overlay.NewPermissionDialog(overlay.PermissionAsk{Req: v.req, Reply: v.reply, Done: v.done}))
		case doomAsk:
			if v.gen != m.gen {
				v.reply <- loop.DoomStop
				continue
			}
			m.questions.Add(overlay.NewDoomDialog(overlay.DoomAsk{Tool: v.tool, Input: v.input, Reply: v.reply, Done: v.done}))
		}
	}
	if m.runner != nil {
		m.snap = m.runner.Reading()
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
			m.msgs[msg.ID] = msgInfo{role: msg.Role, synthetic: msg.Synthetic, summary: msg.Summary}
			if msg.Role == message.RoleAssistant && !msg.Summary && msg.Usage.Input > 0 {
				m.lastUsage = msg.Usage
			}
			if msg.Summary {
				if _, ok := m.parts["summary:"+msg.ID]; !ok {
					m.compaction.summaryArrived(m.chat, m.parts, msg, "")
					return loadSummary(m.runner, msg.ID)
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
			info := m.msgs[p.MessageID]
			if info.summary {
				// A summary is the compaction card's, not a reply.
				if c, ok := m.parts["summary:"+p.MessageID].(*compactionItem); ok && p.Type == message.PartText {
					c.setSummary(p.Text)
				}
				return nil
			}
			if info.role == "" {
				info.role = message.RoleAssistant
			}
			m.addPart(info.role, info.synthetic, p, false)
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
		if q, ok := m.drawer.(queueDrawer); ok {
			q.Clamp(len(m.queue))
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
	case message.EventCompacting:
		m.compaction.run = &compactRun{messages: ev.Summarising, since: time.Now()}
	case message.EventCompacted:
		if c := ev.Compaction; c != nil {
			m.compaction.done(m.chat, c)
			if !c.Rejected {
				m.near = nil
			}
		}
	case message.EventCompactionNear:
		m.near = ev.Forecast
	case message.EventCheckpointProgress:
		if ev.Checkpoint != nil {
			m.cp.progress.update(*ev.Checkpoint)
		}
	case message.EventNote:
		m.showNotes()
	case message.EventHook:
		m.hooks.ran(m.chat, m.opening, ev.Hook)
	case message.EventError:
		m.compaction.run = nil
		text := termsafe.Strip(ev.Err)
		m.chat.add(&noticeItem{kind: noticeError, text: text, hint: errorHint(text)})
	}
	return nil
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
			title = toolTitle(m.opt.Loop.Tools, workDir(m.sess.Dir, m.opt.Loop.Dir), p.Tool)
		}
		if l, ok := todo.FromPart(p); ok {
			m.editor.todo.set(l) // todopanel.go
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
			m.compaction.done(m.chat, c)
		}
	case message.PartPatch:
		m.addPatch(p, final)
	case message.PartPlan:
		planArrived(m, p, final) // planmode.go
	case message.PartFile:
		if _, ok := m.parts[p.ID]; ok || p.File == nil {
			return
		}
		it := attachmentItem(*p.File) // mention.go
		m.parts[p.ID] = it
		m.chat.add(it)
	}
}

// toolTitle titles a call from its input while the tool has not given
// its own title.
func toolTitle(reg *tools.Registry, dir string, st *message.ToolState) string {
	if reg == nil {
		return ""
	}
	return reg.Title(&tools.Env{Dir: dir}, tools.Call{Name: st.Name, Input: []byte(st.Input)})
}

func messageErrorItem(errText string) *noticeItem {
	if strings.Contains(errText, "interrupted") {
		return &noticeItem{kind: noticeInfo, text: "interrupted"}
	}
	return &noticeItem{kind: noticeError, text: termsafe.Strip(errText)}
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
	m.compaction.run = nil
	if busy {
		m.busySince = time.Now()
		m.cancelled = false
		m.streamStart, m.streamChars = time.Time{}, 0
		return
	}
	m.finishRetry()
	m.cp.progress.end()
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

// loadSummary reads the text of summary message id from r's history
// off the Update loop (nil without a runner).
func loadSummary(r *loop.Runner, id string) tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		h := readHistory(r) // an older summary lies before the window Open read
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
	case strings.Contains(low, "budget"):
		return "Raise it with /budget USD (this session), or budget in your config; then send a message to carry on."
	case strings.Contains(low, "doom loop"):
		return "The model repeated itself; tell it what to do differently."
	case strings.Contains(low, "connect") || strings.Contains(low, "dial") || strings.Contains(low, "timeout") || strings.Contains(low, "refused"):
		return "Check that the server is reachable, then send your message again."
	}
	return "Send a message to carry on, or /model to try another model."
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
