package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/storage"
)

// stepOutcome is what one step produced.
type stepOutcome struct {
	finish  string // the model's finish reason
	stop    string // set when the turn must end for another reason
	stopErr error
}

// buildRequest converts the history into the next chat request, checked
// and repaired so that every tool call has its one result right after it
// (RepairPairs; a repair is logged).
func (sp *stepper) buildRequest(ctx context.Context) provider.Request {
	return sp.finishRequest(ctx, sp.prepare())
}

// prepare walks the history for the next step's request: its
// conversation, and what that is priced at. What the history's entries
// are sent as is kept between requests (requestCache): the messages come
// with their JSON, so the provider encodes only what is new; and when the
// history was only appended to since the last request's conversation (or
// the warming's), the walk starts at its newest entries (reqresume.go).
func (sp *stepper) prepare() *conversation {
	return sp.reqc.conversation(sp.system(), sp.history(), sp.historyMark(), sp.convertOptions(), sp.calc(), sp.modelPricing().est)
}

// finishRequest makes the request of a prepared conversation: the pins
// (as they are now), the model's limits and tools. It logs the repairs.
func (sp *stepper) finishRequest(ctx context.Context, c *conversation) provider.Request {
	if c.repairs > 0 {
		_ = awaitUserCommit(ctx) // the log's order is the database's
		_ = sp.store.LogEvent(context.WithoutCancel(ctx), sp.sessionID, "request_repaired", map[string]int{"repairs": c.repairs})
	}
	msgs, enc := c.msgs, c.enc
	at := c.systems + pinsAt(msgs[c.systems:], c.summarised)
	if pins, _ := sp.pinsNow(); pins != "" {
		msgs = slices.Insert(msgs, at, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: pins})
		enc = slices.Insert(enc, at, nil)
		at++
	}
	todoText, todoTokens := sp.reqc.todo.now(sp.history(), sp.historyMark(), sp.modelPricing().est) // todo.go: after the pins
	c.todo = todoText
	sp.calc().SetTodo(todoTokens)
	if todoText != "" {
		msgs = slices.Insert(msgs, at, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: todoText})
		enc = slices.Insert(enc, at, nil)
	}
	// The output cap is the model's limit (catalog, config, or the assumed
	// default the startup warning names), so a runaway answer ends there.
	m := sp.modelPricing()
	req := provider.Request{Model: m.model, Messages: msgs, MaxTokens: int(m.info.MaxOutput),
		CacheBreakpoints: cacheBreakpoints(m.info.Cache, msgs, c.systems), Encoded: enc,
		Effort: EffortSent(sp.opt.Effort, m.model, m.info)} // effort.go
	if !sp.toolsOff(m.model) && !sp.opt.Limits.finalStep() { // runlimits.go: the last step answers
		req.Tools = sp.offered().OpenAITools()
	}
	return req
}

// step streams one model call, retrying what can be retried, then runs the
// tools it asked for. steps is the number of steps the turn made before. A
// context-length error compacts (bounded by the breaker: the compaction
// fails once its attempts are spent) and tries again; a request that goes
// through gives the breaker its attempts back (compact.Breaker.Through).
//
// conv is the step's conversation if the turn prepared it for its
// compaction decision (nil: prepared here); an attempt after the first
// prepares its own.
func (sp *stepper) step(ctx context.Context, steps int, conv *conversation) (stepOutcome, error) {
	sp.refreshTools() // an MCP server that connected since joins now
	for attempt := 1; ; attempt++ {
		if conv == nil || !conv.current(sp.history()) {
			conv = sp.prepare()
		}
		// The request, and whether it breaks the cached prefix (then the
		// tools found since the last boundary join it: cacheboundary.go).
		req := sp.finishRequest(ctx, conv)
		bound := sp.settleRequest(&req, conv)
		// The request sends max_tokens = the model's max_output
		// (finishRequest), or less when a spending cap pays for less;
		// the part of its input expected from the cache is priced so.
		m := sp.modelPricing()
		input := sp.decisionReading(sp.withFixed(conv.calibrated, conv.plain)).Total
		held, maxTokens, err := sp.reserveCached(m.model, input, expectedCached(input, bound, sp.history()), m.info.MaxOutput,
			min(m.info.MaxOutput, minBudgetOutputTokens))
		if err != nil {
			return stepOutcome{}, err
		}
		sp.recordBoundary(ctx, bound)
		estimate := sp.calc().Reading().Total
		entry, finish, err := sp.stream(ctx, estimate, conv, req, maxTokens)
		held.Settle(entryCost(entry)) // before the step's tools start subagents
		conv = nil
		if err == nil {
			sp.requestThrough()
			return sp.afterStream(ctx, entry, finish)
		}
		if ctx.Err() != nil {
			return stepOutcome{}, ctx.Err()
		}
		perr := provider.Classify(err)
		if perr.Class == provider.ClassToolsUnsupported && sp.turnToolsOff(m.model, err) ||
			sp.turnVisionOff(m.model, m.info, err) {
			// The same step again, as a chat or with images described.
			sp.supersede(ctx, entry)
			attempt = 0
			continue
		}
		if perr.Class == provider.ClassContextOverflow {
			sp.supersede(ctx, entry)
			if cerr := sp.compactAfterRefusal(ctx, steps, err, estimate); cerr != nil {
				if ctx.Err() != nil {
					return stepOutcome{}, ctx.Err()
				}
				if errors.Is(cerr, ErrBudget) {
					return stepOutcome{}, cerr
				}
				if errors.Is(cerr, compact.ErrFixedTooBig) {
					// Not the conversation: say what is too big.
					return stepOutcome{}, fmt.Errorf("%w (the provider refused the request: %s)", cerr, perr.Message)
				}
				return stepOutcome{}, fmt.Errorf("%w (compaction after it failed: %v)", err, cerr)
			}
			attempt = 0
			continue
		}
		delay, retry := sp.retryDelay(attempt, err)
		if !retry {
			if attempt > 1 {
				return stepOutcome{}, fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return stepOutcome{}, err
		}
		sp.supersede(ctx, entry)
		if err := sp.waitRetry(ctx, attempt, delay, err); err != nil {
			return stepOutcome{}, err
		}
	}
}

// entryCost is what a step's request cost (0 without an entry or usage).
func entryCost(e *message.Entry) float64 {
	if e == nil {
		return 0
	}
	return e.Message.CostUSD
}

// supersede marks a failed attempt's message so it is never sent again.
func (sp *stepper) supersede(ctx context.Context, e *message.Entry) {
	if e == nil {
		return
	}
	e.Message.Error = ErrSuperseded
	_ = sp.store.UpdateMessage(ctx, &e.Message)
	sp.replaceEntry(*e)
}

// streamState is the stream processor's state for one attempt.
type streamState struct {
	sp     *stepper
	ctx    context.Context
	entry  *message.Entry
	text   *storage.TextStream
	textIx int // index of the open stream's part in entry.Parts
	kind   message.PartType
	calls  map[int]int // tool index → part index
	usage  *message.Usage
	finish string
	echo   string // the message's vendor fields (provider.EchoTable)
}

// stream makes one model call and persists what it streams, in stream
// order: step-start, reasoning, text, tool calls (pending), step-finish.
// On error the parts written so far stay, open text is finished, and the
// message records the error. req is conv's request (finishRequest);
// maxTokens, when above 0, lowers its output cap (a spending cap that
// pays for less).
func (sp *stepper) stream(ctx context.Context, estimate int64, conv *conversation, req provider.Request, maxTokens int64) (*message.Entry, string, error) {
	// Our own count of the request, priced with the session's calibration
	// (learnt from plausible reports only), which the provider's report of
	// it is checked against (tokens.SuspectReport).
	own := sp.withFixed(conv.calibrated, 0)
	if maxTokens > 0 && (req.MaxTokens == 0 || maxTokens < int64(req.MaxTokens)) {
		req.MaxTokens = int(maxTokens)
	}
	mp := sp.modelPricing()
	m := message.Message{SessionID: sp.sessionID, Role: message.RoleAssistant, Model: mp.model}
	if h := sp.history(); len(h) > 0 {
		m.ParentID = h[len(h)-1].Message.ID
	}
	opening := sp.openStep(ctx, m) // written while the request goes out (stepopen.go)
	st, err := sp.send(ctx, req)
	m, werr := opening.wait()
	if werr != nil {
		if err == nil {
			st.Close()
		}
		return nil, "", fmt.Errorf("save assistant message: %w", werr)
	}
	e := &message.Entry{Message: m}
	sp.appendEntry(*e)
	s := &streamState{sp: sp, ctx: ctx, entry: e, calls: map[int]int{}}
	s.opened(opening.start, nil)

	if err == nil {
		err = s.consume(st)
	}
	s.closeText()
	if err != nil {
		e.Message.Error = err.Error()
		if ctx.Err() != nil {
			e.Message.Error = "interrupted by the user"
		}
		sp.interruptTools(context.WithoutCancel(ctx), e)
		if u := provider.Classify(err).Usage; u != nil {
			// A stream stopped mid-answer was billed for what it sent.
			e.Message.Usage, e.Message.CostUSD = *u, sp.cost(*u)
			sp.addSessionUsage(ctx, *u, e.Message.CostUSD)
		}
		e.Message.FinishedAt = time.Now()
		_ = sp.store.UpdateMessage(context.WithoutCancel(ctx), &e.Message)
		sp.replaceEntry(*e)
		m := e.Message
		sp.emit(message.Event{Type: message.EventMessageUpdated, SessionID: sp.sessionID, Message: &m})
		return e, "", err
	}

	usage := message.Usage{}
	suspect := false
	if s.usage != nil {
		usage = *s.usage
		check := own
		if sp.opt.TrustUsage || mp.info.TrustUsage {
			check = 0
		}
		suspect = sp.calc().ObserveRequest(usage, estimate, check)
		if suspect {
			sp.usageNote.note(ctx, sp.store, sp.sessionID, usage.Input, own)
		}
	} else {
		sp.calc().ObserveNoUsage()
	}
	if s.usage == nil || suspect {
		// The call's output is estimated like any new text.
		for _, p := range e.Parts {
			sp.calc().AddText(p.Text)
			if p.Tool != nil {
				sp.calc().AddText(p.Tool.Input)
			}
		}
	}
	cost := sp.cost(usage)
	s.addPart(message.Part{Type: message.PartStepFinish, Step: &message.StepState{
		Usage: usage, CostUSD: cost, FinishReason: s.finish, Estimate: estimate,
		Calibration: sp.calc().Reading().Calibration, RequestEstimate: own, UsageSuspect: suspect,
		Echo: rawEcho(s.echo),
	}})
	e.Message.Usage = usage
	e.Message.CostUSD = cost
	e.Message.FinishReason = s.finish
	if err := sp.store.UpdateMessage(ctx, &e.Message); err != nil {
		return e, "", fmt.Errorf("save assistant message: %w", err)
	}
	sp.addSessionUsage(ctx, usage, cost)
	sp.replaceEntry(*e)
	setReasoningRow(sp.calc(), sp.history(), mp.info.ReasoningRoundtrip)
	return e, s.finish, nil
}

// consume reads the provider's stream to its end and closes it.
func (s *streamState) consume(st provider.Stream) error {
	defer st.Close()
	for {
		ev, err := st.Recv()
		s.sp.firstByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch ev.Type {
		case provider.EventTextDelta:
			s.appendText(message.PartText, ev.Text)
		case provider.EventReasoningDelta:
			s.appendText(message.PartReasoning, ev.Text)
		case provider.EventToolCallStart:
			s.closeText()
			s.startCall(ev.ToolCall)
		case provider.EventToolCallDelta:
			// Arguments are assembled by the provider; the complete input
			// arrives with EventToolCallEnd.
		case provider.EventToolCallEnd:
			s.endCall(ev.ToolCall)
		case provider.EventUsage:
			u := *ev.Usage
			s.usage = &u
		case provider.EventFinish:
			s.finish, s.echo = ev.FinishReason, ev.Echo
		}
	}
}

func (s *streamState) addPart(p message.Part) int {
	p.SessionID = s.sp.sessionID
	p.MessageID = s.entry.Message.ID
	return s.opened(p, s.sp.store.UpsertPart(context.WithoutCancel(s.ctx), &p))
}

// opened adds a part written (or not: err) to the entry and announces it.
func (s *streamState) opened(p message.Part, err error) int {
	if err != nil {
		s.sp.emitError(fmt.Sprintf("save part: %v", err))
	}
	s.entry.Parts = append(s.entry.Parts, p)
	s.sp.emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
	return len(s.entry.Parts) - 1
}

func (s *streamState) appendText(kind message.PartType, delta string) {
	if delta == "" {
		return
	}
	if s.text != nil && s.kind != kind {
		s.closeText()
	}
	if s.text == nil {
		p := message.Part{SessionID: s.sp.sessionID, MessageID: s.entry.Message.ID, Type: kind}
		ts, err := s.sp.store.NewTextStream(context.WithoutCancel(s.ctx), &p)
		if err != nil {
			s.sp.emitError(fmt.Sprintf("save text: %v", err))
			return
		}
		s.text, s.kind = ts, kind
		s.entry.Parts = append(s.entry.Parts, p)
		s.textIx = len(s.entry.Parts) - 1
		s.sp.emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
	}
	s.text.Append(delta)
	p := s.entry.Parts[s.textIx]
	s.sp.emit(message.Event{Type: message.EventPartDelta, SessionID: p.SessionID, Part: &p, Delta: delta})
}

// closeText finishes the open text stream: its final text is written once.
func (s *streamState) closeText() {
	if s.text == nil {
		return
	}
	p, err := s.text.Finish(context.WithoutCancel(s.ctx))
	if err != nil {
		s.sp.emitError(fmt.Sprintf("save text: %v", err))
	}
	s.entry.Parts[s.textIx] = p
	s.text = nil
	s.sp.emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
}

func (s *streamState) startCall(tc *provider.ToolCall) {
	if _, ok := s.calls[tc.Index]; ok {
		return
	}
	s.calls[tc.Index] = s.addPart(message.Part{Type: message.PartTool, Tool: &message.ToolState{
		CallID: tc.ID, Name: tc.Name, Status: message.ToolPending,
	}})
}

func (s *streamState) endCall(tc *provider.ToolCall) {
	ix, ok := s.calls[tc.Index]
	if !ok {
		s.startCall(tc)
		ix = s.calls[tc.Index]
	}
	p := s.entry.Parts[ix]
	st := *p.Tool
	if tc.ID != "" {
		st.CallID = tc.ID
	}
	if st.CallID == "" {
		st.CallID = fmt.Sprintf("call_%s_%d", s.entry.Message.ID, tc.Index)
	}
	st.CallID = uniqueCallID(s.entry.Parts, ix, st.CallID)
	if tc.Name != "" {
		st.Name = tc.Name
	}
	st.Input = tc.Arguments
	st.Echo = rawEcho(tc.Echo)
	p.Tool = &st
	s.sp.savePart(s.ctx, s.entry, ix, p)
}

// uniqueCallID returns id, or when an earlier tool part of the step already
// carries it, id with the first free "_N" suffix: a provider that repeats an
// id in one step would otherwise get two calls with one id and results it
// cannot tell apart, and refuse the next request.
func uniqueCallID(parts []message.Part, self int, id string) string {
	// Only earlier calls count: they keep their ids, later twins move.
	taken := func(c string) bool {
		for _, p := range parts[:self] {
			if p.Type == message.PartTool && p.Tool != nil && p.Tool.CallID == c {
				return true
			}
		}
		return false
	}
	if !taken(id) {
		return id
	}
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s_%d", id, n); !taken(c) {
			return c
		}
	}
}

// savePart persists a changed part of an entry and announces it.
func (sp *stepper) savePart(ctx context.Context, e *message.Entry, ix int, p message.Part) {
	if err := sp.store.UpsertPart(context.WithoutCancel(ctx), &p); err != nil {
		sp.emitError(fmt.Sprintf("save part: %v", err))
	}
	e.Parts[ix] = p
	sp.emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
}

// interruptTools turns pending and running tool parts into interrupted
// errors.
func (sp *stepper) interruptTools(ctx context.Context, e *message.Entry) {
	for i, p := range e.Parts {
		if p.Type != message.PartTool || p.Tool == nil {
			continue
		}
		if p.Tool.Status == message.ToolPending || p.Tool.Status == message.ToolRunning {
			st := *p.Tool
			st.Status = message.ToolError
			st.Output = message.InterruptedOutput
			st.EndedAt = time.Now()
			p.Tool = &st
			sp.savePart(ctx, e, i, p)
		}
	}
}

// cost prices a call's usage from the model's price per million tokens.
func (sp *stepper) cost(u message.Usage) float64 { return costAt(sp.modelPricing().info.Price, u) }

// costAt is the cost in USD of usage u at prices p (USD per million
// tokens): the provider's reported cost when it sent one, else the input
// tokens read from the cache at the cache-read price, those written to it
// at the cache-write price (the input price when there is none), the rest
// of the input at the input price and the output at the output price.
func costAt(p config.Price, u message.Usage) float64 {
	if u.ReportedCostUSD > 0 {
		return u.ReportedCostUSD
	}
	cached := min(u.CachedInput, u.Input)
	written := min(u.CacheWrite, u.Input-cached)
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	return (float64(u.Input-cached-written)*p.Input + float64(cached)*p.CacheRead + float64(written)*write +
		float64(u.Output)*p.Output) / 1e6
}

// afterStream runs the step's tools and closes its message.
func (sp *stepper) afterStream(ctx context.Context, e *message.Entry, finish string) (stepOutcome, error) {
	out := stepOutcome{finish: finish}
	var calls []int
	for i, p := range e.Parts {
		if p.Type == message.PartTool {
			calls = append(calls, i)
		}
	}
	if len(calls) > 0 && finish != "tool_calls" {
		// Tools that ran must be answered by another step, whatever the
		// finish reason ("length" cuts a step after its calls).
		out.finish = "tool_calls"
	}
	if len(calls) == 0 && finish == "tool_calls" {
		out.finish = FinishEmpty
	}
	if len(calls) > 0 && sp.opt.Limits.finalStep() {
		refuseInFinalStep(ctx, sp, e, calls) // runlimits.go
	} else if len(calls) > 0 {
		sp.checkpointTools(ctx, e, calls, func() {
			out.stop, out.stopErr = sp.runTools(ctx, e, calls)
		})
	}
	if out.stop == "" && len(calls) == 0 && !hasText(e) {
		out.stop = FinishEmpty
		sp.emitError("the model returned neither text nor tool calls; the turn ended")
	}
	e.Message.FinishedAt = time.Now()
	if err := sp.store.UpdateMessage(context.WithoutCancel(ctx), &e.Message); err != nil {
		return out, fmt.Errorf("save assistant message: %w", err)
	}
	sp.replaceEntry(*e)
	m := e.Message
	sp.emit(message.Event{Type: message.EventMessageUpdated, SessionID: sp.sessionID, Message: &m})
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, nil
}

func hasText(e *message.Entry) bool {
	for _, p := range e.Parts {
		if p.Type == message.PartText && p.Text != "" {
			return true
		}
	}
	return false
}
