package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// simServer is a fake provider for long sessions: it counts every request
// with a real tokenizer, refuses requests larger than the window the way
// OpenAI does, reports true usage, and plays a coding session: each turn
// makes a few tool calls with outputs of varied sizes, then answers.
type simServer struct {
	mu        sync.Mutex
	window    int
	tok       tokens.Estimator
	rnd       *rand.Rand
	remaining int
	calls     int
	over      []int // sizes of requests larger than the window
	counted   map[string]int
	largest   int
	summaries int

	// The hostile modes. limit refuses requests above it (the window when
	// 0); statePrompt says the refused request's size in the error;
	// underReport divides the prompt tokens reported in usage;
	// refuseSummaries is the chance that a summary request is refused (400
	// or 503, half each); strict refuses (400) a request with a tool call
	// not answered right after it; overReport multiplies the prompt tokens
	// reported in usage.
	limit           int
	statePrompt     bool
	underReport     int
	overReport      int
	refuseSummaries float64
	strict          bool
	refused         int // summary requests refused on purpose
	unpaired        []string
}

func newSimServer(window int, seed uint64) *simServer {
	tok := tokens.NewEstimator("gpt-4o")
	<-tokens.Ready(tok)
	return &simServer{window: window, tok: tok, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b9)), counted: map[string]int{}}
}

// count is the request's size in tokens as OpenAI counts chat requests.
func (s *simServer) count(req openai.ChatCompletionRequest) int {
	n := 3
	for _, m := range req.Messages {
		n += 4 + s.countText(m.Content) + s.countText(m.ReasoningContent)
		for _, tc := range m.ToolCalls {
			n += s.countText(tc.Function.Name) + s.countText(tc.Function.Arguments) + 3
		}
	}
	if len(req.Tools) > 0 {
		b, _ := json.Marshal(req.Tools)
		n += s.countText(string(b))
	}
	return n
}

// countText tokenizes a text once: requests repeat the history.
func (s *simServer) countText(text string) int {
	if text == "" {
		return 0
	}
	if n, ok := s.counted[text]; ok {
		return n
	}
	n := s.tok.Count(text)
	s.counted[text] = n
	return n
}

func (s *simServer) handle(req pt.Request) pt.Step {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.strict {
		if err := checkPairs(req.Chat.Messages); err != nil {
			s.unpaired = append(s.unpaired, err.Error())
			return pt.HTTPError(400, nil, fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error()))
		}
	}
	prompt := s.count(req.Chat)
	s.largest = max(s.largest, prompt)
	limit := s.window
	if s.limit > 0 {
		limit = s.limit
	}
	if prompt > limit {
		s.over = append(s.over, prompt)
		msg := fmt.Sprintf("This model's maximum context length is %d tokens. Please reduce the length of the messages.", limit)
		if s.statePrompt {
			msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", limit, prompt)
		}
		return pt.HTTPError(400, nil, fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error","code":"context_length_exceeded"}}`, msg))
	}
	msgs := req.Chat.Messages
	last := msgs[len(msgs)-1]
	if isSummaryRequest(msgs) && s.refuseSummaries > 0 && s.rnd.Float64() < s.refuseSummaries {
		s.refused++
		if s.rnd.IntN(2) == 0 {
			return pt.HTTPError(503, nil, `{"error":{"message":"overloaded","type":"server_error"}}`)
		}
		return pt.HTTPError(400, nil, `{"error":{"message":"This request was refused.","type":"invalid_request_error"}}`)
	}
	if isSummaryRequest(msgs) {
		s.summaries++
		body := "## Goal\nKeep improving the project.\n\n## Standing user instructions and constraints\nUse tabs; run the tests after each change.\n\n## Done so far\n" +
			strings.Repeat("- changed a file and ran the tests: they pass.\n", 20) +
			"\n## Files touched\n- internal/x.go\n\n## Current state\nAll green.\n\n## Next steps\nNone."
		return s.reply(prompt, body)
	}
	if last.Role == openai.ChatMessageRoleUser {
		s.remaining = s.rnd.IntN(4)
	}
	if s.remaining > 0 {
		s.remaining--
		s.calls++
		id := "call_" + strconv.Itoa(s.calls)
		var args string
		switch k := s.rnd.IntN(10); {
		case k < 5: // a small command
			args = fmt.Sprintf(`{"command":"seq 1 %d"}`, 20+s.rnd.IntN(200))
		case k < 8: // a medium listing
			args = fmt.Sprintf(`{"command":"seq 100000 %d"}`, 100000+200+s.rnd.IntN(1500))
		default: // a big build log, truncated at the source
			args = fmt.Sprintf(`{"command":"seq 1000000 %d"}`, 1000000+3000+s.rnd.IntN(8000))
		}
		return pt.Reply(append(pt.ToolCallChunks(0, id, "bash", args, 3),
			pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: s.reported(prompt), Completion: 30}))...)
	}
	answer := strings.Repeat("The change is done and the tests pass. ", 5+s.rnd.IntN(40))
	return s.reply(prompt, answer)
}

// reported is the prompt usage the server reports.
func (s *simServer) reported(prompt int) int {
	if s.underReport > 1 {
		return max(prompt/s.underReport, 1)
	}
	if s.overReport > 1 {
		return prompt * s.overReport
	}
	return prompt
}

func (s *simServer) reply(prompt int, text string) pt.Step {
	return pt.Reply(pt.TextChunk(text), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: s.reported(prompt), Completion: s.countText(text)}))
}

// checkPairs is what strict servers check: every tool call answered by
// exactly one result right after its message, and no result without a call.
func checkPairs(msgs []openai.ChatCompletionMessage) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == openai.ChatMessageRoleTool {
			return fmt.Errorf("message %d: tool result %s follows no tool call", i, m.ToolCallID)
		}
		if len(m.ToolCalls) == 0 {
			continue
		}
		for k, tc := range m.ToolCalls {
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != openai.ChatMessageRoleTool || msgs[j].ToolCallID != tc.ID {
				return fmt.Errorf("message %d: tool call %s has no result right after it", i, tc.ID)
			}
		}
		i += len(m.ToolCalls)
	}
	return nil
}

// simRow is one turn of a long session, for the CSV.
type simRow struct {
	turn                  int
	totalBefore, totalEnd int64
	basis                 string
	compactions, prunes   int
}

// TestLongSession drives the real loop through a long scripted coding
// session in a 32K window. No request may exceed the window, no turn may
// fail, pruning and compaction must both happen, and the context must
// settle into a steady state. `make sim` runs a longer one and writes a CSV
// and an SVG chart (AGENT_SIM_TURNS, AGENT_SIM_OUT).
//
// The hostile mode plays a provider that under-reports usage 3× and refuses
// a tenth of the summary requests (at random, seeded): no turn may fail, no
// request may be refused for its size after the first, and compaction
// requests stay bounded (issue 12).
//
// By default it runs 60 honest and 40 hostile turns: both tiers run (the
// honest session prunes 11 times and compacts 13, the first at turn 13 and
// 9 in the second half, whose rate and totals the steady-state check
// bounds). Until issue 28 the defaults were 300 and 100 turns: 408 s
// under -race on a loaded machine, where the rest of the package took
// ≈ 320 s. The long variants run with AGENT_SIM_TURNS, both modes that
// many turns: `make sim` (TURNS=1000 by default; `make sim TURNS=300` for
// the old honest length).
//
// Its second phase plays a provider that reports ten times the prompt
// tokens: the same script must compact at most twice more than the honest
// run did over as many turns (issue 27: the reports are sanity-checked
// against our own count of the request).
func TestLongSession(t *testing.T) {
	turns, hostileTurns := 60, 40
	if v, err := strconv.Atoi(os.Getenv("AGENT_SIM_TURNS")); err == nil && v > 0 {
		turns, hostileTurns = v, v
	}
	var honest []simRow
	t.Run("honest", func(t *testing.T) {
		honest = runLongSession(t, turns, func(s *simServer) {})
	})
	t.Run("hostile", func(t *testing.T) {
		runLongSession(t, hostileTurns, func(s *simServer) {
			s.underReport, s.refuseSummaries, s.statePrompt, s.strict = 3, 0.1, true, true
		})
		// 60 turns show it (on today's main: 151 compactions in 40) and
		// keep the race-enabled suite short.
		overTurns := min(hostileTurns, 60)
		over := runLongSession(t, overTurns, func(s *simServer) { s.overReport = 10 })
		if len(honest) < overTurns {
			honest = runLongSession(t, overTurns, func(s *simServer) {})
		}
		got, want := over[len(over)-1].compactions, honest[overTurns-1].compactions
		t.Logf("usage ×10: %d compactions in %d turns; honest: %d", got, overTurns, want)
		if got > want+2 {
			t.Errorf("usage reported ×10: %d compactions in %d turns, the honest run made %d (at most %d allowed)", got, overTurns, want, want+2)
		}
	})
}

func runLongSession(t *testing.T, turns int, hostile func(*simServer)) []simRow {
	const window = 32768
	sim := newSimServer(window, 42)
	hostile(sim)
	honest := sim.underReport == 0 && sim.overReport == 0
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "sim-32k"
		c.Models["sim-32k"] = config.ModelInfo{ContextWindow: window, MaxOutput: 4096}
		o.Observer = nil
	})
	h.srv.Handle(sim.handle)

	var rows []simRow
	compactions, attempts, prunes := 0, 0, 0
	sub := h.store.Events().Subscribe(t.Context())
	var evMu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range sub {
			evMu.Lock()
			switch ev.Type {
			case message.EventCompacted:
				attempts++
				if !ev.Compaction.Rejected {
					compactions++
				}
			case message.EventPruned:
				prunes++
			}
			evMu.Unlock()
		}
	}()
	ctx := context.Background()
	maxAttempts := 0
	for i := 1; i <= turns; i++ {
		before := h.r.Reading().Total
		evMu.Lock()
		attemptsBefore := attempts
		evMu.Unlock()
		if _, err := h.r.Send(ctx, fmt.Sprintf("Turn %d: improve the next function and run the tests.", i)); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		res := h.r.Wait(wctx)
		cancel()
		if res.Err != nil {
			t.Fatalf("turn %d failed: %v", i, res.Err)
		}
		snap := h.r.Reading()
		evMu.Lock()
		maxAttempts = max(maxAttempts, attempts-attemptsBefore)
		rows = append(rows, simRow{turn: i, totalBefore: before, totalEnd: snap.Total, basis: string(snap.Basis), compactions: compactions, prunes: prunes})
		evMu.Unlock()
	}
	h.r.Close()
	h.store.Events().Close()
	<-done

	sim.mu.Lock()
	defer sim.mu.Unlock()
	if honest && len(sim.over) > 0 {
		t.Errorf("%d requests exceeded the %d-token window: %v", len(sim.over), window, sim.over)
	}
	if !honest && len(sim.over) > 1 {
		t.Errorf("%d requests refused for their size, want at most the first: %v", len(sim.over), sim.over)
	}
	if len(sim.unpaired) > 0 {
		t.Errorf("%d requests with unpaired tool calls: %v", len(sim.unpaired), sim.unpaired[0])
	}
	if compactions == 0 || prunes == 0 {
		t.Errorf("compactions %d, prunes %d: both tiers should have run", compactions, prunes)
	}
	// Bounded: a turn makes a handful of compaction attempts at most, and
	// summary requests stay proportional to the attempts.
	if maxAttempts > 2*3 || sim.summaries+sim.refused > 4*attempts {
		t.Errorf("at most %d compaction attempts in a turn, %d summary requests (%d refused) for %d attempts", maxAttempts, sim.summaries+sim.refused, sim.refused, attempts)
	}
	// Steady state: over the second half, the context stays inside the
	// usable window and compactions come at a bounded rate, not every turn.
	half := rows[len(rows)/2:]
	for _, r := range half {
		if r.totalEnd > window {
			t.Errorf("turn %d ends at %d tokens", r.turn, r.totalEnd)
		}
	}
	perTurn := float64(half[len(half)-1].compactions-half[0].compactions) / float64(len(half))
	if perTurn > 0.5 {
		t.Errorf("%.2f compactions per turn in the second half: no steady state", perTurn)
	}

	// The estimator against the real tokenizer: median error of the
	// calculator's estimate of each request.
	hist, err := h.store.LoadHistory(ctx, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	var errs []float64
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Step != nil && p.Step.Estimate > 0 && p.Step.Usage.Input > 0 {
				d := float64(p.Step.Estimate-p.Step.Usage.Input) / float64(p.Step.Usage.Input)
				errs = append(errs, max(d, -d))
			}
		}
	}
	sort.Float64s(errs)
	median := errs[len(errs)/2]
	t.Logf("%d turns, %d requests, largest %d tokens, %d compactions (%d attempts, at most %d in a turn), %d prunes, %d summaries (%d refused), %d refused for size, median estimate error %.2f%% over %d calls",
		turns, len(h.srv.Requests()), sim.largest, compactions, attempts, maxAttempts, prunes, sim.summaries, sim.refused, len(sim.over), 100*median, len(errs))
	if honest && median > 0.05 {
		t.Errorf("median estimate error %.1f%% > 5%%", 100*median)
	}
	if out := os.Getenv("AGENT_SIM_OUT"); out != "" && honest {
		if err := writeSim(out, rows, window, h.r.CompactAt()); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// writeSim writes tokens per turn as CSV and as an SVG chart with the
// window, the compaction point and a mark at each compaction.
func writeSim(dir string, rows []simRow, window, compactAt int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var csv strings.Builder
	csv.WriteString("turn,total_before,total_end,basis,compactions,prunes\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%d,%d,%d,%s,%d,%d\n", r.turn, r.totalBefore, r.totalEnd, r.basis, r.compactions, r.prunes)
	}
	if err := os.WriteFile(filepath.Join(dir, "long-session.csv"), []byte(csv.String()), 0o644); err != nil {
		return err
	}
	const w, hgt, left, right, top, bottom = 960.0, 400.0, 60.0, 20.0, 50.0, 40.0
	x := func(turn int) float64 { return left + (w-left-right)*float64(turn-1)/float64(max(1, len(rows)-1)) }
	y := func(tok int64) float64 { return hgt - bottom - (hgt-top-bottom)*float64(tok)/float64(window) }
	var svg strings.Builder
	fmt.Fprintf(&svg, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, hgt)
	svg.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&svg, `<text x="%.0f" y="20" font-size="14">Context tokens at the end of each turn, %d turns in a %d-token window</text>`+"\n", left, len(rows), window)
	fmt.Fprintf(&svg, `<text x="%.0f" y="38" fill="#555">blue: the calculator's total · orange dots: compactions · dashed: window (red) and compaction point (orange)</text>`+"\n", left)
	// Axes and ticks.
	for tok := int64(0); tok <= window; tok += 8192 {
		fmt.Fprintf(&svg, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eee"/><text x="%.0f" y="%.1f" text-anchor="end" fill="#555">%dK</text>`+"\n",
			left, y(tok), w-right, y(tok), left-6, y(tok)+4, tok/1024)
	}
	step := max(1, len(rows)/6/50*50)
	for turn := step; turn <= len(rows); turn += step {
		fmt.Fprintf(&svg, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%d</text>`+"\n", x(turn), hgt-bottom+16, turn)
	}
	fmt.Fprintf(&svg, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#555">turn</text>`+"\n", (w+left)/2, hgt-6)
	fmt.Fprintf(&svg, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="black"/>`+"\n", left, y(0), w-right, y(0))
	fmt.Fprintf(&svg, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="red" stroke-dasharray="5,4"/>`+"\n", left, y(window), w-right, y(window))
	fmt.Fprintf(&svg, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="orange" stroke-dasharray="5,4"/>`+"\n", left, y(compactAt), w-right, y(compactAt))
	svg.WriteString(`<polyline fill="none" stroke="steelblue" stroke-width="1.2" points="`)
	for _, r := range rows {
		fmt.Fprintf(&svg, "%.1f,%.1f ", x(r.turn), y(r.totalEnd))
	}
	svg.WriteString(`"/>` + "\n")
	prev := 0
	for _, r := range rows {
		if r.compactions > prev {
			fmt.Fprintf(&svg, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="orange"/>`+"\n", x(r.turn), y(r.totalEnd))
			prev = r.compactions
		}
	}
	svg.WriteString("</svg>\n")
	return os.WriteFile(filepath.Join(dir, "long-session.svg"), []byte(svg.String()), 0o644)
}
