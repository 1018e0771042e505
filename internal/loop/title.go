package loop

// Session titles. The first user message gives a session its title at once
// (TitleFrom). When small_model is set, that model is also asked for a
// short title in the background: the answer replaces the provisional title
// when it arrives, unless the title changed meanwhile. The request never
// blocks a turn, has no tools, is made at most once per Runner (titler), is
// cancelled by Close, and its failures are ignored (a title is cosmetic).
// Its usage and cost are added to the session like any other call.

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/termsafe"
)

// titleTimeout bounds the background title request.
const titleTimeout = 30 * time.Second

// titleMaxTokens caps the title request's output: a few words, with room
// for a reasoning model's thinking, whose tokens count against the cap.
const titleMaxTokens = 1024

// titleInputRunes bounds how much of the first message the title request
// sends.
const titleInputRunes = 4000

// titlePrompt is the system prompt of the title request.
const titlePrompt = `You name conversations between a developer and a coding assistant. ` +
	`Reply with a title for the conversation that starts with the developer's message below: ` +
	`at most 6 words, in the message's language, no quotes, no final punctuation. Reply with the title only.`

// titler makes a session's background title request. It is given what it
// needs in a titleDeps and holds no *Runner. mu guards task: the request
// starts from the loop (a user message) and is stopped by Close or
// waited for (TitleDone) from other goroutines.
type titler struct {
	d    titleDeps
	mu   sync.Mutex
	task titleTask
}

// titleTask is the state of the background title request.
type titleTask struct {
	started bool
	closed  bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// titleDeps is what a titler works with; every field is required.
type titleDeps struct {
	cfg *config.Config // small_model, and where its unreachable marks live
	// reserve holds the budget for a request (Runner.reserve), estimate
	// counts a tool-less request's input.
	reserve  func(model string, inputTokens, maxTokens int64) (*budget.Reservation, error)
	estimate func(provider.Request) int64
	// complete makes one tool-less request and returns its text and
	// usage (Runner.completeOnce).
	complete func(context.Context, provider.Request) (string, *message.Usage, error)
	// cost prices usage at a model's price; addUsage adds a call's usage
	// and cost to the session.
	cost     func(model string, u message.Usage) float64
	addUsage func(ctx context.Context, u message.Usage, costUSD float64)
	// title is the session's title now; setTitle stores a new one.
	title    func() string
	setTitle func(ctx context.Context, title string)
}

// request starts the background title request for a session whose
// provisional title is provisional, made from the first user message
// first. It does nothing without small_model, while small_model is
// remembered unreachable (unreachable.go), or once a request was made or
// the titler stopped.
func (t *titler) request(first, provisional string) {
	model := t.d.cfg.SmallModel
	if model == "" || smallModelMarks(t.d.cfg).Unreachable(model, time.Now()) {
		return
	}
	t.mu.Lock()
	if t.task.started || t.task.closed {
		t.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), titleTimeout)
	done := make(chan struct{})
	t.task = titleTask{started: true, cancel: cancel, done: done}
	t.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		title := t.ask(ctx, model, first)
		if title == "" || ctx.Err() != nil {
			return
		}
		t.replace(ctx, provisional, title)
	}()
}

// ask makes the title request and returns the cleaned title, or "" on
// any failure. The call's usage is added to the session.
func (t *titler) ask(ctx context.Context, model, first string) string {
	if utf8.RuneCountInString(first) > titleInputRunes {
		first = string([]rune(first)[:titleInputRunes]) + "…"
	}
	req := provider.Request{
		Model: model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: titlePrompt},
			{Role: openai.ChatMessageRoleUser, Content: first},
		},
		MaxTokens: titleMaxTokens,
	}
	held, err := t.d.reserve(model, t.d.estimate(req), titleMaxTokens)
	if err != nil {
		return "" // the provisional title stays
	}
	text, usage, err := t.d.complete(ctx, req)
	smallModelMarks(t.d.cfg).Observe(model, err, time.Now())
	cost := 0.0
	if usage != nil {
		cost = t.d.cost(model, *usage)
		t.d.addUsage(ctx, *usage, cost)
	}
	held.Settle(cost)
	if err != nil {
		return ""
	}
	return CleanTitle(text)
}

// replace sets the session's title to title if it is still old.
func (t *titler) replace(ctx context.Context, old, title string) {
	if current := t.d.title(); current != old || title == old {
		return
	}
	t.d.setTitle(ctx, title)
}

// stop cancels the title request and waits for it to end. No request
// starts afterwards.
func (t *titler) stop() {
	t.mu.Lock()
	task := t.task
	t.task.closed = true
	t.mu.Unlock()
	if task.started {
		task.cancel()
		<-task.done
	}
}

// done returns a channel closed when no title request is running (see
// Runner.TitleDone).
func (t *titler) done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.task.started {
		return t.task.done
	}
	done := make(chan struct{})
	close(done)
	return done
}

// TitleDone returns a channel closed when no title request is running:
// at once without small_model or before the first message, otherwise when
// the background request has ended (with or without a new title). A
// headless run waits on it briefly so that its session keeps the model's
// title.
func (r *Runner) TitleDone() <-chan struct{} { return r.titles.done() }

// thinkBlock matches reasoning some servers leave in the answer text.
var thinkBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<think>.*?</think>`) })

// CleanTitle turns a model's answer into a session title: reasoning
// blocks, terminal controls, a "Title:" label, Markdown emphasis, quotes
// and final punctuation are removed, and what remains is cut like
// TitleFrom (first line, at most 60 characters). It returns "" when
// nothing usable is left.
func CleanTitle(answer string) string {
	s := thinkBlock().ReplaceAllString(answer, "")
	if i := strings.Index(s, "<think>"); i >= 0 { // unterminated: all reasoning
		s = s[:i]
	}
	s = termsafe.Strip(s)
	line := ""
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.TrimLeft(line, "#*_` ")
	if len(line) >= 6 && strings.EqualFold(line[:6], "title:") {
		line = line[6:]
	}
	line = strings.Trim(line, " \t*_`\"'“”‘’«»")
	line = strings.TrimRight(line, " .!?;:,")
	line = strings.Trim(line, " \t*_`\"'“”‘’«»")
	return TitleFrom(line)
}
