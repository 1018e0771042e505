package loop

// The summariser: the requests that write a compaction's summary. It sizes
// each request to the writer's window (compact.SizeRequest), sends the
// range as a plain-text transcript in chunks, retries a failing request
// within the compaction's budget (summaryretry.go), holds each request's
// cost against the spending cap before it is sent and bills it after. It
// is given its provider and the session's budget and usage as function
// values (summaryCalls), so it runs without a Runner; it keeps no state
// but its random source for the retries' jitter, used only by whoever
// holds the loop's busy flag.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// summaryCalls is what a summariser is given. Every field is required.
type summaryCalls struct {
	provider provider.Provider
	// price is how the current model prices (the main model, the summary
	// model, their sizing).
	price func() pricing
	// reserve holds a request's cost against the spending cap before it
	// is sent (Runner.reserve); bill adds a call's usage to the session
	// and returns its cost.
	reserve func(req provider.Request) (*budget.Reservation, error)
	bill    func(ctx context.Context, model string, u message.Usage) float64
	// wait announces a retry and waits for it (Runner.waitRetry).
	wait func(ctx context.Context, attempt int, delay time.Duration, err error) error
}

// summariser writes summaries; see the top of this file.
type summariser struct {
	summaryCalls
	rnd *rand.Rand
}

func newSummariser(d summaryCalls) *summariser {
	return &summariser{summaryCalls: d, rnd: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x5111))}
}

// summaryCost is the usage and cost of a summary's requests.
type summaryCost struct {
	usage   message.Usage
	costUSD float64
}

// summarise asks writer for a summary of what the plan summarises and
// returns it with the model that wrote it. The request is sized to the
// writer's window with a bounded output (compact.SizeRequest: at most
// summary_max_tokens and a quarter of the compaction point; a summary far
// over the cap is rejected); the range
// goes as a plain-text transcript in chunks that each fit, oldest first,
// each chunk's summary folded into the next request. When small_model would
// need more than maxSummaryChunks requests the main model writes it. A
// request the provider refuses for its size is halved and the range
// summarised again, at most maxSummaryShrinks times.
//
// spent adds up the usage and cost of its requests (the summary message
// stores them).
func (s *summariser) summarise(ctx context.Context, plan compact.Plan, focus, writer string, retry *summaryBudget, spent *summaryCost) (string, string, error) {
	est := s.price().summaryEstimator()
	var earlier string
	if plan.PreviousSummary != nil {
		earlier = joinText(plan.PreviousSummary.Parts, message.PartText)
	}
	promptTokens := int64(est.Count(compact.RequestText("", "", focus, 1, 2)))
	shrink := int64(1)
	for try := 0; ; try++ {
		pr := s.price()
		size := pr.summarySizing(writer)
		size.Input /= shrink
		first := compact.FitText(earlier, est, size.Input/2)
		budget := size.ChunkBudget(int64(est.Count(first)), promptTokens)
		chunks := compact.Chunks(compact.Transcript(plan.Summarize, est, budget/4), est, budget)
		if len(chunks) > maxSummaryChunks && writer != pr.model {
			writer = pr.model
			continue
		}
		running := first
		var err error
		for i, chunk := range chunks {
			var text string
			text, err = s.request(ctx, provider.Request{Model: writer, MaxTokens: int(size.MaxTokens),
				Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser,
					Content: compact.RequestText(running, chunk, focus, i+1, len(chunks))}}}, retry, spent)
			if err != nil {
				break
			}
			if strings.TrimSpace(text) == "" {
				return "", writer, compact.ErrEmptySummary
			}
			if n := int64(est.Count(text)); n > size.MaxTokens*3/2 {
				// The writer ignored the output cap: a summary this long
				// would leave no room below the compaction point.
				return "", writer, fmt.Errorf("%w: %d tokens, capped at %d", compact.ErrSummaryLong, n, size.MaxTokens)
			}
			running = text
		}
		if err == nil {
			return running, writer, nil
		}
		if !provider.IsContextOverflow(err) || try >= maxSummaryShrinks {
			return "", writer, err
		}
		shrink *= 2
	}
}

// request makes one summary request, counting its usage in the session
// and in spent.
func (s *summariser) request(ctx context.Context, req provider.Request, budget *summaryBudget, spent *summaryCost) (string, error) {
	held, err := s.reserve(req)
	if err != nil {
		return "", err
	}
	text, usage, err := s.complete(ctx, req, budget)
	cost := 0.0
	if usage != nil {
		cost = s.bill(ctx, req.Model, *usage)
		spent.usage, spent.costUSD = spent.usage.Add(*usage), spent.costUSD+cost
	}
	held.Settle(cost)
	return text, err
}

// complete makes a tool-less summary call and returns its text, with the
// retries budget allows (summaryretry.go).
func (s *summariser) complete(ctx context.Context, req provider.Request, budget *summaryBudget) (string, *message.Usage, error) {
	if err := budget.start(); err != nil {
		return "", nil, err
	}
	for attempt := 1; ; attempt++ {
		began := time.Now()
		text, usage, err := completeOnce(ctx, s.provider, req)
		budget.spent += time.Since(began)
		if err == nil {
			return text, usage, nil
		}
		if ctx.Err() != nil {
			return "", usage, err
		}
		delay, gaveUp := budget.next(SummaryRetryPolicy, attempt, err, s.rnd)
		if gaveUp != nil {
			return "", usage, gaveUp
		}
		if err := s.wait(ctx, attempt, delay, err); err != nil {
			return "", usage, err
		}
		budget.spent += delay
	}
}

// completeOnce makes one tool-less call of p and returns its text and
// usage (a summary's, a title's).
func completeOnce(ctx context.Context, p provider.Provider, req provider.Request) (string, *message.Usage, error) {
	st, err := p.Stream(ctx, req)
	if err != nil {
		return "", nil, err
	}
	defer st.Close()
	var b strings.Builder
	var usage *message.Usage
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), usage, nil
		}
		if err != nil {
			return "", usage, err
		}
		switch ev.Type {
		case provider.EventTextDelta:
			b.WriteString(ev.Text)
		case provider.EventUsage:
			u := *ev.Usage
			usage = &u
		}
	}
}
