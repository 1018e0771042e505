package provider

// The stream processor: SSE payloads in, typed events out. Recv reads one
// payload at a time and queues the events it yields. Tool calls are keyed by
// index (which may start at 1), take their id and name from the first delta
// that has them, and concatenate arguments. Ends are emitted in index order
// when the first finish reason arrives; usage is kept (last wins) and emitted
// with the finish at the end of the stream, so usage sent after the finish
// chunk, and a second finish chunk, are absorbed. A stream that ends without
// a finish reason is broken, never a success. Answer text goes through the
// <think> splitter (think.go), so a reasoning block opening the answer comes
// out as reasoning.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// maxToolArgumentBytes caps one tool call's accumulated arguments.
const maxToolArgumentBytes = 1 << 20

type toolCallState struct {
	index   int
	id      string
	name    string
	args    []byte
	extra   json.RawMessage // the call's extra_content (echo.go)
	started bool
	ended   bool
}

type openAIStream struct {
	ctx    context.Context
	body   io.ReadCloser
	sse    *sseReader
	apiKey string
	// idle watches the request for silence; idleErr is its error. A
	// stream made without them (tests) has a watch that never fires.
	idle    *idleWatch
	idleErr func() *Error

	queue  []Event
	err    error // sticky: io.EOF after the finish, or an *Error
	closed atomic.Bool
	once   sync.Once

	think     thinkSplitter
	calls     map[int]*toolCallState
	lastIndex int
	finish    string
	usage     *Usage
	answered  bool // an event of the answer was emitted
	echo      echoState

	// answerBytes counts the text and reasoning emitted; past
	// answerLimitBytes(maxTokens) the stream fails.
	answerBytes int
	maxTokens   int
}

func newStream(ctx context.Context, body io.ReadCloser, apiKey string) *openAIStream {
	return &openAIStream{
		ctx:       ctx,
		body:      body,
		sse:       newSSEReader(body),
		apiKey:    apiKey,
		calls:     map[int]*toolCallState{},
		lastIndex: -1,
		idle:      &idleWatch{cancel: func() {}},
	}
}

// Recv returns the next event; io.EOF after EventFinish.
func (s *openAIStream) Recv() (Event, error) {
	for {
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue = s.queue[1:]
			return ev, nil
		}
		if s.err != nil {
			return Event{}, s.err
		}
		if s.closed.Load() {
			s.err = &Error{Class: ClassCanceled, Message: "stream closed"}
			continue
		}
		if err := s.ctx.Err(); err != nil {
			s.fail(canceledError(err))
			continue
		}
		s.readNext()
	}
}

// Close closes the response body; a Recv blocked on it returns.
func (s *openAIStream) Close() error {
	var err error
	s.once.Do(func() {
		s.closed.Store(true)
		err = s.body.Close()
		s.idle.release()
	})
	return err
}

// readNext reads one payload and queues its events, or sets s.err.
func (s *openAIStream) readNext() {
	s.idle.arm()
	payload, isError, err := s.sse.next()
	s.idle.disarm()
	switch {
	case err == nil:
		if isError {
			s.failWith(payload)
			return
		}
		s.process(payload)
	case errors.Is(err, errDone):
		if s.finish == "" {
			// The server said it is done without saying why: take its word.
			s.finish = "stop"
		}
		s.end()
	case errors.Is(err, io.EOF):
		if s.finish == "" {
			s.fail(&Error{Class: ClassBrokenStream, Message: "the stream ended before a finish reason (cut short?)", Err: io.ErrUnexpectedEOF})
			return
		}
		s.end()
	default:
		s.readError(err)
	}
}

func (s *openAIStream) readError(err error) {
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		s.fail(canceledError(ctxErr))
		return
	}
	if s.idle.timedOut() {
		s.fail(s.idleErr())
		return
	}
	if s.closed.Load() {
		s.fail(&Error{Class: ClassCanceled, Message: "stream closed", Err: err})
		return
	}
	if errors.Is(err, errLineTooLong) {
		// The same request would get the same line: not retryable.
		s.fail(&Error{Class: ClassOther, Message: fmt.Sprintf("the server sent a stream line longer than %d MiB (is it an OpenAI-compatible chat-completions stream?)", maxLineBytes>>20), Err: err})
		return
	}
	e := Classify(err)
	s.fail(&Error{Class: ClassBrokenStream, Message: "reading the stream: " + redact(e.Message, s.apiKey), Err: err})
}

// loadJSON handles a server that answered stream:true with a whole
// chat.completion: its choices carry message instead of delta.
func (s *openAIStream) loadJSON(r io.Reader) {
	body, err := io.ReadAll(r)
	if err != nil {
		s.readError(err)
		return
	}
	s.process(body)
	if s.err != nil {
		return
	}
	if s.finish == "" {
		s.finish = "stop"
	}
	s.end()
}

// process handles one chunk payload.
func (s *openAIStream) process(payload []byte) {
	var c chunk
	if err := json.Unmarshal(payload, &c); err != nil {
		s.fail(&Error{Class: ClassBrokenStream, Message: "malformed chunk: " + cleanMessage(truncate(redact(string(payload), s.apiKey), 120)), Err: err})
		return
	}
	if c.Usage != nil {
		u := c.Usage.normalise()
		s.usage = &u
	} else if c.XGroq != nil && c.XGroq.Usage != nil {
		u := c.XGroq.Usage.normalise()
		s.usage = &u
	}
	if c.Object == "error" || hasValue(c.Error) {
		s.failWith(payload)
		return
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only one choice is ever asked for
		}
		d := ch.Delta
		whole := false
		if d == nil {
			d, whole = ch.Message, true
		}
		if d != nil && !s.delta(d, whole) {
			return
		}
		if reason := string(ch.FinishReason); reason != "" {
			if reason == "error" {
				s.fail(&Error{Class: ClassRetryable, Message: "the provider ended the stream with finish_reason \"error\""})
				return
			}
			if s.finish == "" {
				s.finish = reason
				s.endCalls()
			}
		}
	}
}

// delta queues the events of one delta (or one whole message); it returns
// false after a failure.
func (s *openAIStream) delta(d *delta, whole bool) bool {
	if d.ExtraContent != nil || d.ReasoningDetails != nil {
		var extra, details json.RawMessage
		if d.ExtraContent != nil {
			extra = *d.ExtraContent
		}
		if d.ReasoningDetails != nil {
			details = d.ReasoningDetails.raw
		}
		s.echo.add(extra, details)
		// Kept for the next request: bounded like the answer's text.
		s.answerBytes += len(extra) + len(details)
		if s.answerBytes > answerLimitBytes(s.maxTokens) {
			s.fail(s.runawayError())
			return false
		}
	}
	if reasoning := string(d.ReasoningContent); reasoning != "" {
		s.emit(Event{Type: EventReasoningDelta, Text: reasoning})
	} else if reasoning := string(d.Reasoning); reasoning != "" {
		// Some servers send both fields with the same text: one is enough.
		s.emit(Event{Type: EventReasoningDelta, Text: reasoning})
	} else if d.ReasoningDetails != nil && d.ReasoningDetails.text != "" {
		// OpenRouter repeats reasoning here; Cortex sends it only here.
		s.emit(Event{Type: EventReasoningDelta, Text: d.ReasoningDetails.text})
	}
	d.Content.each(func(text string, reasoning bool) {
		if reasoning {
			s.emit(Event{Type: EventReasoningDelta, Text: text})
		} else {
			s.think.feed(text, s.emitText)
		}
	})
	if refusal := string(d.Refusal); refusal != "" {
		s.emit(Event{Type: EventTextDelta, Text: refusal})
	}
	for i := range d.ToolCalls {
		tc := &d.ToolCalls[i]
		if whole && tc.Index == nil {
			n := s.lastIndex + 1
			tc.Index = &n
		}
		if !s.toolCallDelta(tc) {
			return false
		}
	}
	return true
}

func (s *openAIStream) toolCallDelta(tc *toolCallWire) bool {
	id, name, args := string(tc.ID), string(tc.Function.Name), string(tc.Function.Arguments)
	index := s.lastIndex
	switch {
	case tc.Index != nil:
		index = *tc.Index
	case id != "" && (index < 0 || s.calls[index].id != id):
		// No index at all: a new id is a new call.
		index = s.maxIndex() + 1
	case index < 0:
		index = 0
	}
	call := s.calls[index]
	if call == nil {
		call = &toolCallState{index: index}
		s.calls[index] = call
	}
	s.lastIndex = index
	if call.ended {
		// A call repeated after the finish reason (a second finish chunk
		// echoing it) adds nothing: the call was already complete.
		return true
	}
	if call.id == "" && id != "" {
		call.id = id
	}
	if call.name == "" && name != "" {
		call.name = name
	}
	if tc.ExtraContent != nil && hasValue(*tc.ExtraContent) {
		call.extra = *tc.ExtraContent
	}
	if len(call.args)+len(args) > maxToolArgumentBytes {
		s.fail(&Error{Class: ClassBadRequest, Message: fmt.Sprintf("tool call %q arguments exceed %d bytes", call.name, maxToolArgumentBytes)})
		return false
	}
	call.args = append(call.args, args...)
	if !call.started {
		if call.name != "" {
			s.start(call)
		}
		return true // before the name, keep the fragments for the start
	}
	if args != "" {
		s.emit(Event{Type: EventToolCallDelta, ToolCall: &ToolCall{Index: index, ID: call.id, Name: call.name, ArgsDelta: args}})
	}
	return true
}

func (s *openAIStream) maxIndex() int {
	m := -1
	for i := range s.calls {
		m = max(m, i)
	}
	return m
}

// start emits the start of a call, with the arguments received so far. A
// call the provider gave no id by then gets one, so its result can be
// matched to it; the start and the end always carry the same id.
func (s *openAIStream) start(c *toolCallState) {
	s.think.flush(s.emitText) // the text before the call comes before it
	c.started = true
	if c.id == "" {
		c.id = "call_" + strconv.Itoa(c.index)
	}
	s.emit(Event{Type: EventToolCallStart, ToolCall: &ToolCall{Index: c.index, ID: c.id, Name: c.name}})
	if len(c.args) > 0 {
		s.emit(Event{Type: EventToolCallDelta, ToolCall: &ToolCall{Index: c.index, ID: c.id, Name: c.name, ArgsDelta: string(c.args)}})
	}
}

// endCalls emits an end for every open call, in index order.
func (s *openAIStream) endCalls() {
	indexes := make([]int, 0, len(s.calls))
	for i, c := range s.calls {
		if !c.ended {
			indexes = append(indexes, i)
		}
	}
	slices.Sort(indexes)
	for _, i := range indexes {
		c := s.calls[i]
		if !c.started {
			s.start(c)
		}
		c.ended = true
		s.emit(Event{Type: EventToolCallEnd, ToolCall: &ToolCall{Index: i, ID: c.id, Name: c.name, Arguments: string(c.args),
			Echo: redact(callEcho(c.extra), s.apiKey)}})
	}
}

// end queues the last events of a complete stream. A "stop" with tool calls
// is reported as "tool_calls" (Ollama and several proxies send "stop"), so
// the caller runs the calls it was given.
func (s *openAIStream) end() {
	s.think.flush(s.emitText)
	s.endCalls()
	if len(s.calls) > 0 && s.finish == "stop" {
		s.finish = "tool_calls"
	}
	if s.usage != nil {
		u := *s.usage
		s.emit(Event{Type: EventUsage, Usage: &u})
	}
	s.emit(Event{Type: EventFinish, FinishReason: s.finish, Echo: redact(s.echo.object(), s.apiKey)})
	s.err = io.EOF
	s.idle.disarm()
}

// failWith fails the stream with the error object in payload.
func (s *openAIStream) failWith(payload []byte) {
	payload = []byte(redact(string(payload), s.apiKey))
	ae, ok := parseAPIError(payload)
	if !ok {
		ae = apiError{Message: truncate(string(payload), 200)}
	}
	class := classifyAPI(0, ae.Code, ae.Type, ae.Message)
	msg := cleanMessage(ae.Message)
	if msg == "" {
		msg = "the provider sent an error in the stream"
	}
	s.fail(&Error{Class: class, Message: msg, MidAnswer: s.answered})
}

// fail ends the stream with e. Usage received so far (OpenRouter sends it
// with its mid-stream error) goes with the error: it is billed all the same.
func (s *openAIStream) fail(e *Error) {
	if s.err == nil {
		if s.usage != nil && e.Usage == nil {
			u := *s.usage
			e.Usage = &u
		}
		s.err = e
		s.think.flush(s.emitText)
	}
	s.idle.disarm()
}

func (s *openAIStream) emit(ev Event) {
	s.answered = true
	s.queue = append(s.queue, ev)
	if ev.Type == EventTextDelta || ev.Type == EventReasoningDelta {
		s.answerBytes += len(ev.Text)
		if s.answerBytes > answerLimitBytes(s.maxTokens) {
			s.fail(s.runawayError())
		}
	}
}

// runawayError stops an answer far longer than the output cap asked for:
// the server ignores it, and the same request would run away again.
func (s *openAIStream) runawayError() *Error {
	msg := fmt.Sprintf("the answer passed %s MiB", strconv.FormatFloat(float64(answerLimitBytes(s.maxTokens))/(1<<20), 'g', 3, 64))
	if s.maxTokens > 0 {
		msg += fmt.Sprintf(", far beyond the output limit of %d tokens (does the server ignore max_tokens?)", s.maxTokens)
	}
	return &Error{Class: ClassOther, Message: msg + "; the stream was stopped"}
}

// emitText queues a piece of the answer text, or of reasoning found in it.
func (s *openAIStream) emitText(text string, reasoning bool) {
	if reasoning {
		s.emit(Event{Type: EventReasoningDelta, Text: text})
	} else {
		s.emit(Event{Type: EventTextDelta, Text: text})
	}
}

func hasValue(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// answerLimitBytes bounds the text and reasoning of one answer held in
// memory, for a server that ignores the output cap: 16 bytes a token (four
// times a generous 4 bytes a token) of maxTokens, at least 1 MiB; 16 MiB
// when no cap was sent.
func answerLimitBytes(maxTokens int) int {
	if maxTokens <= 0 {
		return 16 << 20
	}
	return max(16*maxTokens, 1<<20)
}
