package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBashBasics(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name    string
		command string
		output  string // exact Output
		exit    int
	}{
		{"echo", "echo hello", "hello\n[exit code 0]", 0},
		{"exit code", "echo oops; exit 3", "oops\n[exit code 3]", 3},
		{"stderr interleaved", "echo a; echo b >&2; echo c", "a\nb\nc\n[exit code 0]", 0},
		{"no output", "true", "[exit code 0]", 0},
		{"no trailing newline", "printf x", "x\n[exit code 0]", 0},
		{"runs in the session directory", "basename \"$PWD\"", filepath.Base(env.Dir) + "\n[exit code 0]", 0},
		{"stdin is empty", "cat; echo done", "done\n[exit code 0]", 0},
		{"killed by a signal", "kill -KILL $$", "[killed by SIGKILL, exit code 137]", 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, "bash", map[string]any{"command": tt.command})
			if res.Output != tt.output {
				t.Fatalf("Output = %q, want %q", res.Output, tt.output)
			}
			if res.Metadata["exit_code"] != tt.exit || res.IsError != (tt.exit != 0) {
				t.Fatalf("exit_code = %v, IsError = %v", res.Metadata["exit_code"], res.IsError)
			}
			if res.Title != "bash: "+tt.command {
				t.Fatalf("Title = %q", res.Title)
			}
		})
	}
}

func TestBashEmptyCommand(t *testing.T) {
	res := call(t, newEnv(t), "bash", map[string]any{"command": "  "})
	if !res.IsError || !strings.Contains(res.Output, "command is empty") {
		t.Fatalf("%+v", res)
	}
}

func TestBashPathWithSpaces(t *testing.T) {
	env := newEnv(t)
	env.Dir = filepath.Join(env.Dir, "my project dir")
	writeFiles(t, env.Dir, map[string]string{"a file.txt": "content\n"})
	res := call(t, env, "bash", map[string]any{"command": "pwd; cat 'a file.txt'"})
	if res.Output != env.Dir+"\ncontent\n[exit code 0]" {
		t.Fatalf("Output = %q", res.Output)
	}
}

func TestBashNonUTF8AndEscapes(t *testing.T) {
	env := newEnv(t)
	res := call(t, env, "bash", map[string]any{"command": `printf '\033[1;31mred\033[0m \377\376 bytes\n\033]0;title\007progress 10%%\rprogress 100%%\n'`})
	want := "red \uFFFD bytes\nprogress 100%\n[exit code 0]"
	if res.Output != want {
		t.Fatalf("Output = %q, want %q", res.Output, want)
	}
	if !utf8.ValidString(res.Output) {
		t.Fatal("invalid UTF-8 reached the model")
	}
	if !strings.Contains(res.RawOutput, "\x1b[1;31mred") || !strings.Contains(res.RawOutput, "\xff\xfe") {
		t.Fatalf("RawOutput lost the original: %q", res.RawOutput)
	}
}

func TestBashTruncatesHeadAndTailAndSavesAll(t *testing.T) {
	env := newEnv(t)
	res := call(t, env, "bash", map[string]any{"command": "seq 1 100000"})
	var full strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	if !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("not truncated: %+v", res.Metadata)
	}
	if got := readFile(t, res.FullOutputPath); got != full.String() {
		t.Fatalf("saved file has %d bytes, want the whole %d", len(got), full.Len())
	}
	if !strings.HasPrefix(res.Output, "1\n2\n3\n") || !strings.HasSuffix(res.Output, "99999\n100000\n[exit code 0]") {
		t.Fatalf("head or tail missing:\n%s…%s", res.Output[:50], res.Output[len(res.Output)-50:])
	}
	mustContain(t, res.Output, "cut from the middle", res.FullOutputPath, "100000 lines")
	if len(res.Output) > 30000+1000 {
		t.Fatalf("kept %d bytes, limit 30000", len(res.Output))
	}
	if res.Metadata["lines"] != int64(100000) {
		t.Fatalf("lines = %v", res.Metadata["lines"])
	}
	info, err := os.Stat(res.FullOutputPath)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("saved file mode: %v %v", info.Mode(), err)
	}
}

func TestBashWithoutOutputDir(t *testing.T) {
	env := newEnv(t)
	env.OutputDir = ""
	res := call(t, env, "bash", map[string]any{"command": "seq 1 100000"})
	if !res.Truncated || res.FullOutputPath != "" {
		t.Fatalf("truncated=%v path=%q", res.Truncated, res.FullOutputPath)
	}
	mustContain(t, res.Output, "the full output could not be saved", "100000\n[exit code 0]")
	if res.Metadata["save_error"] == nil {
		t.Fatal("no save_error in metadata")
	}
}

func TestBashSmallLimitInMemory(t *testing.T) {
	// Output that fits in memory (head+tail) but not in the limit is saved
	// whole as well.
	env := newEnv(t)
	env.Limits.BashMaxOutputChars = 1000
	res := call(t, env, "bash", map[string]any{"command": "seq 1 300"}) // 1092 bytes
	if !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("not truncated: %q", res.Output)
	}
	if got := readFile(t, res.FullOutputPath); !strings.HasPrefix(got, "1\n2\n") || !strings.HasSuffix(got, "299\n300\n") {
		t.Fatalf("saved file: %q", got)
	}
	if !strings.HasSuffix(res.Output, "300\n[exit code 0]") {
		t.Fatalf("tail missing: %q", res.Output)
	}
}

// processGone reports whether pid no longer runs (gone, or a zombie
// waiting for a reaper that is not ours).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// waitGone waits a little for the kernel to finish tearing a killed process
// down (the tool returns once the pipe closes, which can precede it by
// microseconds).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func firstLinePID(t *testing.T, out string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]))
	if err != nil {
		t.Fatalf("no pid in %q", out)
	}
	return pid
}

func TestBashBackgroundProcessIsKilledWithItsGroup(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name, command string
	}{
		{"holding the pipe", "sleep 100 & echo $!"},
		{"detached from the pipe", "sleep 100 >/dev/null 2>&1 & echo $!"},
		{"nohup", "nohup sleep 100 >/dev/null 2>&1 & echo $!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := call(t, env, "bash", map[string]any{"command": tt.command})
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("took %v: the background process hung the tool", d)
			}
			if res.IsError {
				t.Fatalf("error: %q", res.Output)
			}
			waitGone(t, firstLinePID(t, res.Output))
		})
	}
}

func TestBashTimeoutKillsTheGroup(t *testing.T) {
	env := newEnv(t)
	start := time.Now()
	res := call(t, env, "bash", map[string]any{"command": "sleep 100 & echo $!; echo started; wait", "timeout_s": 0.3})
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	if !res.IsError || res.Metadata["timed_out"] != true {
		t.Fatalf("not a timeout: %+v", res)
	}
	mustContain(t, res.Output, "started", "timed out after 300ms")
	waitGone(t, firstLinePID(t, res.Output))
}

func TestBashTimeoutEscalatesToSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("waits the 2 s SIGTERM grace")
	}
	env := newEnv(t)
	start := time.Now()
	res := call(t, env, "bash", map[string]any{"command": "trap '' TERM; echo $$; while :; do sleep 0.05; done", "timeout_s": 0.2})
	d := time.Since(start)
	if d < killGrace || d > killGrace+2*time.Second {
		t.Fatalf("took %v, want about 0.2 s + the %v grace", d, killGrace)
	}
	if res.Metadata["timed_out"] != true {
		t.Fatalf("%+v", res)
	}
	waitGone(t, firstLinePID(t, res.Output))
}

func TestBashTimeoutAboveMaximumIsClamped(t *testing.T) {
	env := newEnv(t)
	env.Limits.BashTimeout = 2 * time.Second
	env.Limits.BashMaxTimeout = 5 * time.Second
	res := call(t, env, "bash", map[string]any{"command": "true", "timeout_s": 100})
	mustContain(t, res.Output, "above the maximum; using 5s")
	if res.Metadata["timeout_ms"] != int64(5000) {
		t.Fatalf("timeout_ms = %v", res.Metadata["timeout_ms"])
	}
}

func TestBashCancelKillsTheGroupQuickly(t *testing.T) {
	env := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var cancelledAt atomic.Int64
	c := Call{ID: "c", Name: "bash", Input: []byte(`{"command": "sleep 100 & echo $!; echo ready; wait"}`), Progress: func(last string) {
		if strings.Contains(last, "ready") {
			once.Do(func() {
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			})
		}
	}}
	res := NewRegistry().Run(ctx, env, c)
	if cancelledAt.Load() == 0 {
		t.Fatalf("progress never reported the output: %q", res.Output)
	}
	if d := time.Since(time.Unix(0, cancelledAt.Load())); d > time.Second {
		t.Fatalf("cancel took %v", d)
	}
	if res.Metadata["cancelled"] != true || !res.IsError {
		t.Fatalf("%+v", res)
	}
	mustContain(t, res.Output, "ready", "[Tool execution was interrupted]")
	waitGone(t, firstLinePID(t, res.Output))
}

func TestBashProgressReportsLastLines(t *testing.T) {
	env := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last string
	c := Call{ID: "c", Name: "bash", Input: []byte(`{"command": "for i in 1 2 3 4 5 6 7; do echo line$i; done; sleep 100"}`), Progress: func(lines string) {
		last = lines // reports come one at a time
		if strings.Contains(lines, "line7") {
			cancel()
		}
	}}
	NewRegistry().Run(ctx, env, c)
	if want := "line3\nline4\nline5\nline6\nline7"; last != want {
		t.Fatalf("last report %q, want the last %d lines %q", last, progressLines, want)
	}
}

// peakHeap samples the heap while f runs and returns the peak growth over
// the heap before.
func peakHeap(f func()) (peakMB float64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	peak := <-done
	if peak < before.HeapAlloc {
		return 0
	}
	return float64(peak-before.HeapAlloc) / (1 << 20)
}

func bigOutputRun(t testing.TB, env *Env, bytes int64) (Result, float64) {
	cmd := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' 'a' | fold -w 100", bytes)
	var res Result
	peak := peakHeap(func() { res = call(t, env, "bash", map[string]any{"command": cmd}) })
	return res, peak
}

func TestBashHugeOutputMemoryBounded(t *testing.T) {
	size := int64(50 << 20)
	if os.Getenv("AGENT_TEST_HUGE_OUTPUT") != "" {
		size = 1 << 30
	}
	env := newEnv(t)
	res, peakMB := bigOutputRun(t, env, size)
	t.Logf("%d MB of output: peak heap growth %.1f MB", size>>20, peakMB)
	if peakMB > 100 {
		t.Fatalf("peak heap grew %.1f MB for %d MB of output", peakMB, size>>20)
	}
	info, err := os.Stat(res.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	// fold puts a newline between every 100 characters.
	if want := size + (size+99)/100 - 1; info.Size() != want {
		t.Fatalf("saved %d bytes, want %d", info.Size(), want)
	}
	if len(res.Output) > 31000 || !res.Truncated {
		t.Fatalf("kept %d bytes", len(res.Output))
	}
}

func BenchmarkBashTrue(b *testing.B) {
	env := newEnv(b)
	r := NewRegistry()
	c := Call{ID: "c", Name: "bash", Input: []byte(`{"command": "true"}`)}
	for b.Loop() {
		if res := r.Run(context.Background(), env, c); res.IsError {
			b.Fatal(res.Output)
		}
	}
}

// BenchmarkBashHugeOutput prints 1 GB and reports the peak heap growth.
func BenchmarkBashHugeOutput(b *testing.B) {
	env := newEnv(b)
	var peak float64
	for b.Loop() {
		_, p := bigOutputRun(b, env, 1<<30)
		peak = max(peak, p)
		os.RemoveAll(env.OutputDir)
	}
	b.ReportMetric(peak, "peak-heap-MB")
}

// TestBashSavedOutputCap: past Limits.SavedOutputMaxBytes the command is
// stopped, the saved file keeps the head and the tail within the cap, and
// the result says why the command ended.
func TestBashSavedOutputCap(t *testing.T) {
	env := newEnv(t)
	env.Limits.SavedOutputMaxBytes = 1 << 20
	start := time.Now()
	// 20 MB, then a sleep the cap must cut short; the pid file shows the
	// whole group is stopped.
	res := call(t, env, "bash", map[string]any{
		"command":   "yes | head -c 20000000; echo after-the-flood; sleep 20; echo finished",
		"timeout_s": 10,
	})
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the command ran %v past the cap", took)
	}
	mustContain(t, res.Output, "output passed the 1 MB cap; the command was stopped")
	if strings.Contains(res.Output, "finished") || res.Metadata["output_capped"] != true || !res.IsError {
		t.Errorf("capped=%v IsError=%v output tail %q", res.Metadata["output_capped"], res.IsError, res.Output[max(len(res.Output)-300, 0):])
	}
	if res.FullOutputPath == "" {
		t.Fatalf("no saved output: %v", res.Metadata)
	}
	saved := readFile(t, res.FullOutputPath)
	if len(saved) > 1<<20+1024 {
		t.Errorf("saved output is %d bytes, cap %d", len(saved), 1<<20)
	}
	if !strings.HasPrefix(saved, "y\ny\n") || !strings.Contains(saved, "passed the 1 MB cap") || !strings.HasSuffix(saved, "y\n") {
		t.Errorf("saved output lacks its head, note or tail: %q … %q", saved[:20], saved[max(len(saved)-300, 0):])
	}
	mustContain(t, res.Output, res.FullOutputPath)
}
