package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// drainEvents subscribes a reader that discards events, as the TUI would
// consume them, until the benchmark ends.
func drainEvents(b *testing.B, s *Store) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := s.Events().Subscribe(ctx)
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	b.Cleanup(func() { cancel(); <-done })
}

// benchStore opens a store in dir, closed when the test or benchmark ends.
func benchStore(b testing.TB, dir string) *Store {
	b.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchSession(b *testing.B, s *Store) (*message.Session, *message.Message) {
	b.Helper()
	ctx := context.Background()
	sess := &message.Session{Title: "bench", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	m := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant}
	if err := s.CreateMessage(ctx, m); err != nil {
		b.Fatal(err)
	}
	return sess, m
}

// BenchmarkPartUpsert updates a running tool part (status, progress,
// output), as the loop does while a tool runs. It reports the median and
// the 99th percentile of the per-update times.
func BenchmarkPartUpsert(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.TempDir())
	drainEvents(b, s)
	sess, m := benchSession(b, s)
	p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool, Tool: &message.ToolState{
		CallID: "call_1", Name: "bash", Status: message.ToolRunning,
		Input: `{"command":"go test ./... 2>&1 | tail -n 40","timeout_s":120}`, StartedAt: time.Now(),
	}}
	if err := s.UpsertPart(ctx, p); err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("ok  \tgithub.com/ctxloop/agent/internal/x\t0.123s\n", 40) // ≈2 KB
	var durations []time.Duration
	i := 0
	for b.Loop() {
		i++
		p.Tool.Progress = fmt.Sprintf("line %d", i)
		p.Tool.Output = line[:len(line)-i%100]
		start := time.Now()
		if err := s.UpsertPart(ctx, p); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// streamAnswer returns a ≈40 KB answer cut into deltas of about four bytes,
// the size of a token.
func streamAnswer() (answer string, deltas []string) {
	var sb strings.Builder
	words := strings.Fields(`The loop regains control between steps and injects queued
		user messages, decides compaction from the token calculator, streams the next
		step, persists its usage, runs the tools and prunes. "Quoted" text & symbols <ok>.`)
	for i := 0; sb.Len() < 40*1024; i++ {
		sb.WriteString(words[i%len(words)])
		if i%14 == 13 {
			sb.WriteString("\n")
		} else {
			sb.WriteString(" ")
		}
	}
	answer = sb.String()[:40*1024]
	for rest := answer; rest != ""; {
		n := min(4, len(rest))
		deltas = append(deltas, rest[:n])
		rest = rest[n:]
	}
	return answer, deltas
}

func fileSize(b *testing.B, path string) int64 {
	info, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		b.Fatal(err)
	}
	return info.Size()
}

// BenchmarkStreamPersist streams a 40 KB answer as ≈10,000 deltas through
// a TextStream, flushing 400 times (the 100 ms timer of a 40-second answer)
// and finishing, in a fresh database each time. It reports, relative to the
// answer's size:
//
//   - x-size: how much agent.db grew once the WAL is checkpointed (what the
//     answer costs on disk);
//   - wal-x: every byte written to the WAL while streaming (automatic
//     checkpoints are off, so nothing is overwritten): the I/O, which
//     counts whole pages per flush.
func BenchmarkStreamPersist(b *testing.B) {
	ctx := context.Background()
	answer, deltas := streamAnswer()
	const flushes = 400
	every := len(deltas) / flushes
	var growth, walBytes int64
	runs := 0
	base := b.TempDir()
	for b.Loop() {
		b.StopTimer()
		dir, err := os.MkdirTemp(base, "run")
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		sess, m := benchSession(b, s)
		if _, err := s.db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
			b.Fatal(err)
		}
		if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		before := fileSize(b, s.Path())
		b.StartTimer()

		stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
		if err != nil {
			b.Fatal(err)
		}
		for i, d := range deltas {
			stream.Append(d)
			if (i+1)%every == 0 {
				if err := stream.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		final, err := stream.Finish(ctx)
		if err != nil {
			b.Fatal(err)
		}

		b.StopTimer()
		if final.Text != answer {
			b.Fatal("final text differs from the answer")
		}
		walBytes += fileSize(b, s.Path()+"-wal")
		if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		growth += fileSize(b, s.Path()) - before
		runs++
		s.Close()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	size := float64(len(answer))
	b.ReportMetric(float64(growth)/float64(runs)/size, "x-size")
	b.ReportMetric(float64(walBytes)/float64(runs)/size, "wal-x")
}

// BenchmarkSessionOpen loads a session of 1,000 messages and 10,000 parts
// (step marks, reasoning, text, tool calls with 1–2.6 KB outputs: a
// 20 MB database). LoadHistory reuses an open store; OpenAndLoad opens the database
// read-only first, as `agent -c` or `agent inspect` would.
func BenchmarkSessionOpen(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s := benchStore(b, dir)
	sess, parts := largeSession(b, s)
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	b.Logf("database %.1f MB", float64(fileSize(b, filepath.Join(dir, DBName)))/1e6)

	check := func(history []Entry) {
		n := 0
		for _, e := range history {
			n += len(e.Parts)
		}
		if n != parts {
			b.Fatalf("loaded %d parts, want %d", n, parts)
		}
	}
	b.Run("LoadHistory", func(b *testing.B) {
		for b.Loop() {
			history, err := s.LoadHistory(ctx, sess.ID)
			if err != nil {
				b.Fatal(err)
			}
			check(history)
		}
	})
	// LoadTail is what a resumed chat reads before its first frame
	// (tail.go): the last 60 messages.
	b.Run("LoadTail", func(b *testing.B) {
		for b.Loop() {
			tail, more, err := s.LoadTail(ctx, sess.ID, 60)
			if err != nil || len(tail) != 60 || !more {
				b.Fatalf("tail of %d messages, more %v: %v", len(tail), more, err)
			}
		}
	})
	b.Run("OpenAndLoad", func(b *testing.B) {
		for b.Loop() {
			r, err := OpenReadOnly(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			history, err := r.LoadHistory(ctx, sess.ID)
			if err != nil {
				b.Fatal(err)
			}
			check(history)
			r.Close()
		}
	})
}

// largeSession stores a session of 1,000 messages and 10,000 parts (step
// marks, reasoning, text, tool calls with 1–2.6 KB outputs: a 20 MB
// database) and returns it with its part count.
func largeSession(b *testing.B, s *Store) (*message.Session, int) {
	return largeSessionWith(b, s, nil)
}

// largeSessionWith is largeSession with tool outputs from varied (nil: the
// same listing, cut to 1–2.6 KB).
func largeSessionWith(b *testing.B, s *Store, varied func(i, j int) string) (*message.Session, int) {
	b.Helper()
	ctx := context.Background()
	sess := &message.Session{Title: "big", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	output := strings.Repeat("drwxr-xr-x 2 user user 4096 Jan 1 00:00 some-file.go\n", 50) // ≈2.6 KB
	parts := 0
	for i := 0; parts < 10_000; i++ {
		role := message.RoleAssistant
		if i%10 == 0 {
			role = message.RoleUser
		}
		m := &message.Message{SessionID: sess.ID, Role: role, FinishedAt: time.Now(), FinishReason: "tool_calls"}
		if err := s.CreateMessage(ctx, m); err != nil {
			b.Fatal(err)
		}
		add := func(p message.Part) {
			p.SessionID, p.MessageID = sess.ID, m.ID
			if err := s.UpsertPart(ctx, &p); err != nil {
				b.Fatal(err)
			}
			parts++
		}
		if role == message.RoleUser {
			add(message.Part{Type: message.PartText, Text: "please fix the failing test in internal/loop and run it again"})
			continue
		}
		add(message.Part{Type: message.PartStepStart})
		add(message.Part{Type: message.PartReasoning, Text: strings.Repeat("thinking about it ", 12)})
		add(message.Part{Type: message.PartText, Text: strings.Repeat("Here is what I found. ", 20)})
		toolOutput := func(i, j int) string { return output[:1000+(i*j*97)%1600] }
		if varied != nil {
			toolOutput = varied
		}
		for j := range 6 {
			add(message.Part{Type: message.PartTool, Tool: &message.ToolState{
				CallID: fmt.Sprintf("call_%d_%d", i, j), Name: "bash", Status: message.ToolCompleted,
				Input: `{"command":"ls -la internal/"}`, Output: toolOutput(i, j), Title: "ls -la internal/",
				Metadata: map[string]any{"exit_code": 0}, StartedAt: time.Now(), EndedAt: time.Now(),
			}})
		}
		add(message.Part{Type: message.PartStepFinish, Step: &message.StepState{
			Usage: message.Usage{Input: 12000, Output: 300}, FinishReason: "tool_calls",
		}})
	}
	return sess, parts
}
