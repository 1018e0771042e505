package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// BenchmarkInProcessResume is BenchmarkResumeRun's two commands run
// in this process, for a CPU profile of where a resumed `agent run -c hi`
// spends what a new session's `agent run hi` does not (issue 36 item 1):
// -cpuprofile of "resume" against one of "new". Each resumed run starts
// from a fresh copy of the 10,000-part session (the copy is not timed),
// so that every run sends the same window.
func BenchmarkInProcessResume(b *testing.B) {
	srv := pt.New(b)
	srv.Handle(func(pt.Request) pt.Step { return pt.Text(benchAnswer) })
	srv.SkipDecode("gpt-4.1") // the agent's CPU, not the fake server's decode
	home := b.TempDir()
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, d := range []string{"resume", "new"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	seeded := filepath.Join(home, "seeded")
	seedLongSession(b, seeded, work, 10_000)
	b.Setenv("HOME", home)
	b.Setenv("OPENAI_BASE_URL", srv.URL)
	b.Setenv("OPENAI_API_KEY", "sk-bench")
	b.Setenv("AGENT_MODEL", "gpt-4.1")
	b.Chdir(work)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	stdout := os.Stdout
	run := func(b *testing.B, data string, args ...string) {
		b.Helper()
		b.Setenv("AGENT_DATA_DIR", data)
		os.Stdout = null
		code := execute(args)
		os.Stdout = stdout
		if code != 0 {
			b.Fatalf("agent %v: exit %d", args, code)
		}
	}
	b.Run("resume", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			data := filepath.Join(home, "resume", string(rune('a'+i%26)))
			_ = os.RemoveAll(data)
			if out, err := exec.Command("cp", "-r", seeded, data).CombinedOutput(); err != nil {
				b.Fatalf("copy the session: %v: %s", err, out)
			}
			b.StartTimer()
			run(b, data, "run", "-c", "hi")
		}
	})
	b.Run("new", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			data := filepath.Join(home, "new", string(rune('a'+i%26)))
			_ = os.RemoveAll(data)
			b.StartTimer()
			run(b, data, "run", "hi")
		}
	})
}
