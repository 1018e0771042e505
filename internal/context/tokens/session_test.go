package tokens

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// goSources returns real Go files to use as tool outputs.
func goSources(t testing.TB) []string {
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "strings", "*.go"))
	more, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "bufio", "*.go"))
	var out []string
	for _, p := range append(paths, more...) {
		if data, err := os.ReadFile(p); err == nil {
			out = append(out, string(data))
		}
	}
	if len(out) < 5 {
		t.Skip("no Go sources to script a session with")
	}
	return out
}

// fakeServer counts a chat request the way an OpenAI server does, with a
// real tokenizer: every message costs its content plus formatting, tool
// calls their name and arguments plus a wrapper.
type fakeServer struct {
	tok   Estimator
	input int64 // tokens of the conversation so far
}

func (s *fakeServer) message(content string) { s.input += int64(s.tok.Count(content)) + 4 }

// step answers with text and a tool call; it returns the usage.
func (s *fakeServer) step(reply, args string) message.Usage {
	in := s.input + 3
	out := int64(s.tok.Count(reply) + s.tok.Count(args) + 6)
	// The answer is part of the next request, formatted slightly differently.
	s.input += int64(s.tok.Count(reply)+s.tok.Count(args)) + 4 + 11
	return message.Usage{Input: in, Output: out}
}

// On a long scripted session whose server counts with a real tokenizer, the
// median estimate error stays within 5 %, with the tokenizer and with
// chars/4 (which calibration corrects).
func TestEstimateErrorOnScriptedSession(t *testing.T) {
	sources := goSources(t)
	tok := NewEstimator("gpt-4o")
	select {
	case <-Ready(tok):
	case <-time.After(time.Minute):
		t.Fatal("tokenizer not loaded")
	}
	for _, tt := range []struct {
		name               string
		est                Estimator
		minRatio, maxRatio float64 // where calibration should settle
	}{
		{"o200k", tok, 0.95, 1.1},
		// Go source has about 1.2 o200k tokens per 4 bytes.
		{"chars4", Chars{}, 1.1, 1.35},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{tok: tok}
			system := "You are a coding agent. " + strings.Repeat("Follow the rules of the repository. ", 60)
			tools := `{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}`
			srv.message(system)
			srv.input += int64(tok.Count(tools))

			c := NewCalculator(Options{Window: 400000}, tt.est)
			c.SetFixed(int64(tt.est.Count(system))+TokensPerMessage, int64(tt.est.Count(tools)))
			var errs []float64
			for step := range 100 {
				if step%6 == 0 {
					user := fmt.Sprintf("Now look at part %d of the package and tell me what could be simpler.", step)
					srv.message(user)
					c.AddText(user)
					c.AddTokens(TokensPerMessage)
				}
				estimate := c.Reading().Total
				reply := fmt.Sprintf("Reading the next file (%d).", step)
				args := fmt.Sprintf(`{"path":"src/file%d.go"}`, step)
				u := srv.step(reply, args)
				c.Observe(u, estimate)
				if s := c.Reading(); s.EstimateError != nil && step > 0 {
					errs = append(errs, math.Abs(*s.EstimateError))
				}
				src := sources[step%len(sources)]
				output := src[:min(len(src), 300+(step*977)%6000)]
				srv.message(output)
				c.AddText(output)
				c.AddTokens(TokensPerMessage)
			}
			slices.Sort(errs)
			median := errs[len(errs)/2]
			t.Logf("median |error| %.2f%%, p90 %.2f%%, calibration %.3f", 100*median, 100*errs[len(errs)*9/10], c.Reading().Calibration)
			if median > 0.05 {
				t.Errorf("median estimate error %.2f%% > 5%%", 100*median)
			}
			if r := c.Reading().Calibration; r < tt.minRatio || r > tt.maxRatio {
				t.Errorf("calibration settled at %.3f, want within [%v, %v]", r, tt.minRatio, tt.maxRatio)
			}
		})
	}
}
