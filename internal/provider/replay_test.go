package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/provider/providertest"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// outcome is everything a stream produced.
type outcome struct {
	events    []Event
	text      string
	reasoning string
	ends      []ToolCall
	finish    string
	finishes  int
	usage     *Usage
	err       error
}

// collect drains a stream from p, checking the event-order invariants every
// stream must keep whatever the provider sent.
func collect(t *testing.T, ctx context.Context, p Provider) outcome {
	t.Helper()
	var o outcome
	s, err := p.Stream(ctx, Request{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if err != nil {
		o.err = err
		checkError(t, err)
		return o
	}
	defer s.Close()
	started := map[int]ToolCall{}
	deltas := map[int]string{}
	ended := map[int]bool{}
	lastEnd := -1 << 31
	for {
		ev, err := s.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				o.err = err
				checkError(t, err)
				if _, again := s.Recv(); again != err {
					t.Errorf("error is not sticky: %v then %v", err, again)
				}
			} else if o.finishes != 1 {
				t.Errorf("io.EOF after %d finish events, want 1", o.finishes)
			} else if _, again := s.Recv(); !errors.Is(again, io.EOF) {
				t.Errorf("after io.EOF, Recv returned %v", again)
			}
			return o
		}
		if o.finishes > 0 {
			t.Errorf("event %v after the finish", ev.Type)
		}
		o.events = append(o.events, ev)
		switch ev.Type {
		case EventTextDelta:
			o.text += ev.Text
		case EventReasoningDelta:
			o.reasoning += ev.Text
		case EventToolCallStart:
			if _, dup := started[ev.ToolCall.Index]; dup {
				t.Errorf("second start for tool call %d", ev.ToolCall.Index)
			}
			started[ev.ToolCall.Index] = *ev.ToolCall
		case EventToolCallDelta:
			if _, ok := started[ev.ToolCall.Index]; !ok || ended[ev.ToolCall.Index] {
				t.Errorf("delta for tool call %d outside start..end", ev.ToolCall.Index)
			}
			deltas[ev.ToolCall.Index] += ev.ToolCall.ArgsDelta
		case EventToolCallEnd:
			tc := *ev.ToolCall
			if _, ok := started[tc.Index]; !ok || ended[tc.Index] {
				t.Errorf("end for tool call %d without start or twice", tc.Index)
			}
			if tc.Index <= lastEnd {
				t.Errorf("tool call ends out of index order: %d after %d", tc.Index, lastEnd)
			}
			if tc.Arguments != deltas[tc.Index] {
				t.Errorf("tool call %d: end arguments %q != deltas %q", tc.Index, tc.Arguments, deltas[tc.Index])
			}
			if s := started[tc.Index]; s.ID != tc.ID || s.Name != tc.Name || s.ID == "" {
				t.Errorf("tool call %d: start %+v disagrees with end %+v", tc.Index, s, tc)
			}
			ended[tc.Index] = true
			lastEnd = tc.Index
			o.ends = append(o.ends, tc)
		case EventUsage:
			u := *ev.Usage
			o.usage = &u
		case EventFinish:
			o.finishes++
			o.finish = ev.FinishReason
			if len(ended) != len(started) {
				t.Errorf("finish with %d calls started and %d ended", len(started), len(ended))
			}
		default:
			t.Errorf("unknown event type %d", ev.Type)
		}
	}
}

func checkError(t *testing.T, err error) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Errorf("error %T is not *Error: %v", err, err)
	}
}

// span describes a long text by its byte length, start and end.
type span struct {
	n          int
	head, tail string
}

func (s span) check(t *testing.T, what, got string) {
	t.Helper()
	if len(got) != s.n || !strings.HasPrefix(got, s.head) || !strings.HasSuffix(got, s.tail) {
		t.Errorf("%s: got %d bytes %.60q…%.40q, want %d bytes starting %q ending %q",
			what, len(got), got, tail(got, 40), s.n, s.head, s.tail)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

type call struct {
	index          int
	id, name, args string
}

// replayCase is what one recorded or hand-written stream must produce.
type replayCase struct {
	file      string
	text      span
	reasoning span
	calls     []call
	finish    string
	// usage is the usage of a success, or the one a failure carries.
	usage *Usage
	// failure, when set, is the class of the error the stream must end in.
	failure    *Class
	status     int
	retryAfter time.Duration
	message    string // a part of the error message
}

func fails(c Class) *Class { return &c }

func (rc replayCase) check(t *testing.T, o outcome) {
	t.Helper()
	rc.text.check(t, "text", o.text)
	rc.reasoning.check(t, "reasoning", o.reasoning)
	if len(o.ends) != len(rc.calls) {
		t.Errorf("got %d tool calls %+v, want %d", len(o.ends), o.ends, len(rc.calls))
	}
	for i := 0; i < min(len(o.ends), len(rc.calls)); i++ {
		got, want := o.ends[i], rc.calls[i]
		if got.Index != want.index || got.ID != want.id || got.Name != want.name || got.Arguments != want.args {
			t.Errorf("tool call %d: got %+v, want %+v", i, got, want)
		}
		if !json.Valid([]byte(got.Arguments)) {
			t.Errorf("tool call %d: arguments are not valid JSON: %q", i, got.Arguments)
		}
	}
	if rc.failure != nil {
		var pe *Error
		if !errors.As(o.err, &pe) {
			t.Fatalf("want a %v error, got %v", *rc.failure, o.err)
		}
		if pe.Class != *rc.failure {
			t.Errorf("class %v, want %v (%v)", pe.Class, *rc.failure, pe)
		}
		if pe.StatusCode != rc.status {
			t.Errorf("status %d, want %d", pe.StatusCode, rc.status)
		}
		if pe.RetryAfter != rc.retryAfter {
			t.Errorf("retry after %v, want %v", pe.RetryAfter, rc.retryAfter)
		}
		if !strings.Contains(pe.Error(), rc.message) {
			t.Errorf("error %q does not mention %q", pe.Error(), rc.message)
		}
		if pe.StatusCode == 0 && strings.Contains(pe.Error(), "request rejected") {
			t.Errorf("error %q in an accepted stream says the request was rejected", pe.Error())
		}
		switch {
		case rc.usage != nil && pe.Usage == nil:
			t.Errorf("the error has no usage, want %+v", *rc.usage)
		case rc.usage != nil && *pe.Usage != *rc.usage:
			t.Errorf("the error's usage %+v, want %+v", *pe.Usage, *rc.usage)
		}
		if o.finishes != 0 {
			t.Errorf("a failed stream sent a finish event")
		}
		return
	}
	if o.err != nil {
		t.Fatalf("unexpected error: %v", o.err)
	}
	if o.finish != rc.finish {
		t.Errorf("finish %q, want %q", o.finish, rc.finish)
	}
	switch {
	case rc.usage == nil && o.usage != nil:
		t.Errorf("usage %+v, want none", *o.usage)
	case rc.usage != nil && o.usage == nil:
		t.Errorf("no usage, want %+v", *rc.usage)
	case rc.usage != nil && *o.usage != *rc.usage:
		t.Errorf("usage %+v, want %+v", *o.usage, *rc.usage)
	}
}

// stepFromFile turns a recording into a providertest step: *.chunks.txt
// (one chunk JSON a line) gets SSE framing and [DONE]; *.sse is replayed
// verbatim; *.http is a raw HTTP response; *.json a non-streamed answer.
func stepFromFile(t *testing.T, path string) providertest.Step {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case strings.HasSuffix(path, ".chunks.txt"):
		var b strings.Builder
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				b.WriteString("data: " + line + "\n\n")
			}
		}
		b.WriteString("data: [DONE]\n\n")
		return providertest.RawSSE(b.String())
	case strings.HasSuffix(path, ".sse"):
		return providertest.RawSSE(string(data))
	case strings.HasSuffix(path, ".http"):
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(data))), nil)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		headers := map[string]string{}
		for k := range resp.Header {
			headers[k] = resp.Header.Get(k)
		}
		return providertest.HTTPError(resp.StatusCode, headers, string(body))
	case strings.HasSuffix(path, ".json"):
		return providertest.Step{Status: http.StatusOK, Header: map[string]string{"Content-Type": "application/json"}, Body: string(data)}
	}
	t.Fatalf("no replay rule for %s", path)
	return providertest.Step{}
}

func replay(t *testing.T, dir string, cases []replayCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, rc := range cases {
		seen[rc.file] = true
		t.Run(rc.file, func(t *testing.T) {
			srv := providertest.New(t, stepFromFile(t, filepath.Join(dir, rc.file)))
			p := NewOpenAI(Config{BaseURL: srv.URL, APIKey: "sk-test-replay-key"})
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			rc.check(t, collect(t, ctx, p))
		})
	}
	// Every file needs an expectation, so a new recording is not skipped.
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() && d.Name() == "fuzz" {
			return filepath.SkipDir // the fuzz corpus, not recordings
		}
		if err != nil || d.IsDir() || d.Name() == "README.md" {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !seen[filepath.ToSlash(rel)] {
			t.Errorf("%s has no expectation in the table", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sharedFixtures finds ../shared/fixtures/providers next to the repository
// root (the directory holding go.mod).
func sharedFixtures(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root (go.mod) not found above the working directory")
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "..", "shared", "fixtures", "providers")
	if _, err := os.Stat(fixtures); err != nil {
		t.Skipf("shared provider fixtures not found at %s (they live beside the repository, in ../shared): skipping the replay of real recordings", fixtures)
	}
	return fixtures
}
