package tui

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// wireServer is a fake chat-completions server that says when each
// request is on the wire: its whole body received, before it is decoded.
// It answers with a one-word streamed reply.
type wireServer struct {
	url     string
	arrived chan time.Time
}

const wireAnswer = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"}}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":2000,"completion_tokens":1,"total_tokens":2001}}

data: [DONE]

`

func newWireServer(b *testing.B) *wireServer {
	s := &wireServer{arrived: make(chan time.Time, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.arrived <- time.Now()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, wireAnswer)
	}))
	b.Cleanup(srv.Close)
	s.url = srv.URL + "/v1"
	return s
}

// enterBench is a chat driven as Bubble Tea drives it, against a
// wireServer, over a store in a temporary directory.
type enterBench struct {
	b     *testing.B
	srv   *wireServer
	store *storage.Store
	opt   Options
	m     *Model
	d     *benchDriver
	// gcTurns counts the turns in which a garbage collection ended
	// between Enter and the request on the wire (gcahead.go).
	gcTurns int
	// enterAllocs: the bytes allocated from Enter until the request was
	// read, by turn (the process's, the server's reading included).
	enterAllocs []uint64
}

func newEnterBench(b *testing.B, store *storage.Store, dir string, cfgFor func(url string) *config.Config) *enterBench {
	e := &enterBench{b: b, srv: newWireServer(b), store: store}
	cfg := cfgFor(e.srv.url)
	e.opt = Options{Loop: loop.Options{Store: store, Provider: provider.NewOpenAI(provider.Config{BaseURL: e.srv.url, APIKey: "sk-bench"}),
		Tools: tools.NewRegistry(), Config: cfg, Dir: dir, OutputDir: filepath.Join(b.TempDir(), "outputs")}}
	return e
}

// start opens the chat (on sessionID, or a new one) and waits until it
// is ready for a message.
func (e *enterBench) start(sessionID string) {
	opt := e.opt
	opt.SessionID = sessionID
	e.d = newBenchDriver()
	e.m = New(opt)
	e.d.run(e.m.Init())
	e.d.update(e.m, tea.WindowSizeMsg{Width: 120, Height: 40})
	e.pump(func(m *Model) bool { return !m.opening })
}

func (e *enterBench) stop() {
	e.m.Close()
	e.d.stop()
}

// pump applies messages until cond holds.
func (e *enterBench) pump(cond func(*Model) bool) {
	deadline := time.After(30 * time.Second)
	for !cond(e.m) {
		select {
		case msg := <-e.d.msgs:
			e.d.update(e.m, msg)
		case <-deadline:
			e.b.Fatalf("timed out; screen:\n%s", screenOf(e.m))
		}
	}
}

// turn types text, presses Enter and returns the time until the request
// was on the wire; it then waits for the turn to end.
func (e *enterBench) turn(text string) time.Duration {
	for _, r := range text {
		e.d.update(e.m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	// A person takes a second or more to type a message; what starts on
	// the first key (the environment's prefetch, prefetch.go) has had
	// that long when Enter comes. typingPause is far less.
	time.Sleep(typingPause)
	cycles := gcCycles()
	allocs := heapAllocs()
	start := time.Now()
	e.d.update(e.m, tea.KeyPressMsg{Code: tea.KeyEnter})
	var at time.Time
	for at.IsZero() {
		select {
		case at = <-e.srv.arrived:
		case msg := <-e.d.msgs:
			e.d.update(e.m, msg)
		case <-time.After(30 * time.Second):
			e.b.Fatalf("no request; screen:\n%s", screenOf(e.m))
		}
	}
	e.enterAllocs = append(e.enterAllocs, heapAllocs()-allocs)
	if gcCycles() != cycles {
		e.gcTurns++
	}
	e.pump(func(m *Model) bool { return m.runner != nil && !m.busy && !m.runner.Busy() && !m.sending })
	return at.Sub(start)
}

// typingPause stands for the time a person takes to type the message.
const typingPause = 50 * time.Millisecond

func benchConfig(b *testing.B, dir, data string) func(url string) *config.Config {
	return func(url string) *config.Config {
		home := b.TempDir()
		cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: url, DataDir: data}, dir,
			func(k string) string { return map[string]string{"HOME": home}[k] })
		if err != nil {
			b.Fatal(err)
		}
		return cfg
	}
}

// BenchmarkEnterToRequest times a message from the Enter key to its
// request on the wire (the fake server has read the whole body), as the
// chat does it: the key through Update, the runner's send in a command,
// the request built and sent by the loop. FirstTurn is the first message
// of a new chat (the session is created by it); LaterTurn a message in a
// session with a few turns; Resumed10k a message in a resumed session of
// 10,000 parts. Target ≤ 5 ms each; p50 and the worst are reported, and
// gc-turns, the turns with a garbage collection ended in that window.
func BenchmarkEnterToRequest(b *testing.B) {
	b.Run("FirstTurn", func(b *testing.B) {
		dir, data := b.TempDir(), b.TempDir()
		store, err := storage.Open(context.Background(), data)
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		e := newEnterBench(b, store, dir, benchConfig(b, dir, data))
		var ds []time.Duration
		for i := 0; b.Loop(); i++ {
			e.start("")
			ds = append(ds, e.turn(fmt.Sprintf("hello number %d", i)))
			e.stop()
		}
		reportEnter(b, e, ds)
	})
	b.Run("LaterTurn", func(b *testing.B) {
		dir, data := b.TempDir(), b.TempDir()
		store, err := storage.Open(context.Background(), data)
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		e := newEnterBench(b, store, dir, benchConfig(b, dir, data))
		e.start("")
		defer e.stop()
		for i := range 3 {
			e.turn(fmt.Sprintf("warm-up %d", i))
		}
		e.gcTurns = 0
		var ds []time.Duration
		for i := 0; b.Loop(); i++ {
			ds = append(ds, e.turn(fmt.Sprintf("and then %d", i)))
		}
		reportEnter(b, e, ds)
	})
	b.Run("LaterTurnGitChanged", func(b *testing.B) {
		// A repository whose status changes before every message: the
		// new status goes with the message (loop's envcontext.go).
		dir, data := b.TempDir(), b.TempDir()
		if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
			b.Skipf("git init: %v %s", err, out)
		}
		store, err := storage.Open(context.Background(), data)
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		e := newEnterBench(b, store, dir, benchConfig(b, dir, data))
		e.start("")
		defer e.stop()
		e.turn("warm-up")
		e.gcTurns = 0
		var ds []time.Duration
		for i := 0; b.Loop(); i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, e.turn(fmt.Sprintf("and then %d", i)))
		}
		reportEnter(b, e, ds)
	})
	b.Run("Resumed10k", func(b *testing.B) {
		s := newBenchSession(b, 2000) // 10,000 parts
		e := newEnterBench(b, s.store, s.dir, benchConfig(b, s.dir, s.data))
		e.start(s.id)
		defer e.stop()
		var ds []time.Duration
		for i := 0; b.Loop(); i++ {
			ds = append(ds, e.turn(fmt.Sprintf("one more thing %d", i)))
		}
		reportEnter(b, e, ds)
	})
	b.Run("Resumed10kFirst", func(b *testing.B) {
		// The first message after resuming: the chat opened anew each
		// time, the message typed as soon as the editor is ready.
		s := newBenchSession(b, 2000) // 10,000 parts
		e := newEnterBench(b, s.store, s.dir, benchConfig(b, s.dir, s.data))
		var ds []time.Duration
		for i := 0; b.Loop(); i++ {
			e.start(s.id)
			ds = append(ds, e.turn(fmt.Sprintf("first after resume %d", i)))
			e.stop()
		}
		reportEnter(b, e, ds)
	})
}

// heapAllocs is the bytes allocated on the heap so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// gcCycles is the number of garbage collections completed so far.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func reportEnter(b *testing.B, e *enterBench, ds []time.Duration) {
	b.ReportMetric(float64(e.gcTurns), "gc-turns")
	if len(e.enterAllocs) > 0 {
		a := slices.Sorted(slices.Values(e.enterAllocs))
		b.ReportMetric(float64(a[len(a)/2])/1024, "enter-alloc-KiB")
	}
	b.ReportMetric(float64(percentile(ds, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(ds, 1).Microseconds())/1000, "max-ms")
}
