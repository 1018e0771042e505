package loop

// Session titles. The first user message gives a session its title at once
// (TitleFrom). When small_model is set, that model is also asked for a
// short title in the background: the answer replaces the provisional title
// when it arrives, unless the title changed meanwhile. The request never
// blocks a turn, has no tools, is made at most once per Runner, is
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

// titleTask is the background title request of a Runner.
type titleTask struct {
	started bool
	closed  bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// requestTitle starts the background title request for a session whose
// provisional title is provisional, made from the first user message
// first. It does nothing without small_model, while small_model is
// remembered unreachable (unreachable.go), or once a request was made or
// the Runner closed.
func (r *Runner) requestTitle(first, provisional string) {
	model := r.opt.Config.SmallModel
	if model == "" || smallModelMarks(r.opt.Config).Unreachable(model, time.Now()) {
		return
	}
	r.mu.Lock()
	if r.title.started || r.title.closed {
		r.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), titleTimeout)
	done := make(chan struct{})
	r.title = titleTask{started: true, cancel: cancel, done: done}
	r.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		title := r.askTitle(ctx, model, first)
		if title == "" || ctx.Err() != nil {
			return
		}
		r.replaceTitle(ctx, provisional, title)
	}()
}

// askTitle makes the title request and returns the cleaned title, or "" on
// any failure. The call's usage is added to the session.
func (r *Runner) askTitle(ctx context.Context, model, first string) string {
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
	held, err := r.reserve(model, r.messagesEstimate(req), titleMaxTokens)
	if err != nil {
		return "" // the provisional title stays
	}
	text, usage, err := completeOnce(ctx, r.opt.Provider, req)
	smallModelMarks(r.opt.Config).Observe(model, err, time.Now())
	cost := 0.0
	if usage != nil {
		cost = r.costOf(model, *usage)
		r.addSessionUsage(ctx, *usage, cost)
	}
	held.Settle(cost)
	if err != nil {
		return ""
	}
	return CleanTitle(text)
}

// replaceTitle sets the session's title to title if it is still old.
func (r *Runner) replaceTitle(ctx context.Context, old, title string) {
	r.mu.Lock()
	current := r.sess.Title
	r.mu.Unlock()
	if current != old || title == old {
		return
	}
	r.setTitle(ctx, title)
}

// stopTitle cancels the title request and waits for it to end. No request
// starts afterwards.
func (r *Runner) stopTitle() {
	r.mu.Lock()
	t := r.title
	r.title.closed = true
	r.mu.Unlock()
	if t.started {
		t.cancel()
		<-t.done
	}
}

// TitleDone returns a channel closed when no title request is running:
// at once without small_model or before the first message, otherwise when
// the background request has ended (with or without a new title). A
// headless run waits on it briefly so that its session keeps the model's
// title.
func (r *Runner) TitleDone() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.title.started {
		return r.title.done
	}
	done := make(chan struct{})
	close(done)
	return done
}

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
