package tui

import (
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// runSync runs a command tree on this goroutine and returns the markdown
// renders it produced (timers are not waited for).
func runSync(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runSync(c)...)
		}
		return out
	case renderedMsg:
		return []tea.Msg{msg}
	}
	return nil
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkPageUpHistory opens a session of 10,000 parts (2,000 turns)
// in a 120×40 chat and pages from its end to its start, timing every
// frame (Update + View): each PageUp, and each batch of markdown renders
// applied as it arrives. It reports the frames' p50 and p99 (target p99
// ≤ 16 ms) and the heap in use: a one-turn session's chat (the floor),
// the resumed chat idle, and after paging through the whole history
// (target ≤ 1.3× the floor, as RSS).
func BenchmarkPageUpHistory(b *testing.B) {
	small := newBenchSession(b, 1)
	s := newBenchSession(b, 2000)
	var frames, home []time.Duration
	var floor, idle, paged uint64
	frame := func(m *Model, msg tea.Msg) []tea.Msg {
		start := time.Now()
		_, cmd := m.Update(msg)
		_ = m.View()
		frames = append(frames, time.Since(start))
		return runSync(cmd)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		f := small.openModel(b, 120, 40)
		floor = max(floor, heapInUse())
		f.Close()
		m := s.openModel(b, 120, 40)
		idle = max(idle, heapInUse())
		b.StartTimer()
		for pages := 0; m.chat.follow || m.chat.top != (chatPos{}); pages++ {
			if pages > 100000 {
				b.Fatal("never reached the top")
			}
			renders := frame(m, tea.KeyPressMsg{Code: tea.KeyPgUp})
			for len(renders) > 0 {
				var next []tea.Msg
				for _, r := range renders {
					next = append(next, frame(m, r)...)
				}
				renders = next
			}
		}
		b.StopTimer()
		paged = max(paged, heapInUse())
		// ctrl+end, then ctrl+home: the top in one frame.
		frame(m, tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl})
		start := time.Now()
		frame(m, tea.KeyPressMsg{Code: tea.KeyHome, Mod: tea.ModCtrl})
		home = append(home, time.Since(start))
		if !strings.Contains(screenOf(m), "question 0:") {
			b.Fatalf("ctrl+home shows:\n%s", screenOf(m))
		}
		m.Close()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(frames, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(frames, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(percentile(home, 0.5).Microseconds())/1000, "ctrl-home-ms")
	b.ReportMetric(float64(floor)/(1<<20), "floor-heap-MB")
	b.ReportMetric(float64(idle)/(1<<20), "idle-heap-MB")
	b.ReportMetric(float64(paged)/(1<<20), "paged-heap-MB")
}
