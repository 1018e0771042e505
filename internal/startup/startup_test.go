package startup

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestOffWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	tr := newTracer(false, &buf, time.Now)
	tr.mark("main")
	tr.span("prompt env", time.Now())
	if buf.Len() != 0 {
		t.Errorf("off tracer wrote %q", buf.String())
	}
}

func TestMarksAndSpans(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now().Add(-10 * time.Millisecond)
	tr := newTracer(true, &buf, func() time.Time { return start })
	tr.mark("main")
	began := time.Now().Add(-3 * time.Millisecond)
	tr.span("prompt env", began)
	tr.mark("open db")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	re := regexp.MustCompile(`^startup: (.+) (\d+\.\d)ms \(at (\d+\.\d)ms\)$`)
	var names []string
	for _, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q", l)
		}
		names = append(names, m[1])
	}
	if strings.Join(names, ",") != "main,prompt env,open db" {
		t.Errorf("phases %q", names)
	}
	// The first mark counts from the process's start; a span from its own.
	if !strings.HasPrefix(lines[0], "startup: main 1") { // ≥ 10ms
		t.Errorf("main did not count from the start: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "startup: prompt env 3.") && !strings.HasPrefix(lines[1], "startup: prompt env 4.") {
		t.Errorf("span did not count from began: %q", lines[1])
	}
}

func TestProcessStartIsBeforeNow(t *testing.T) {
	s := processStart()
	if d := time.Since(s); d <= 0 || d > time.Hour {
		t.Errorf("process start %v ago", d)
	}
}

func TestHookIsNilWhenOff(t *testing.T) {
	if std.on {
		t.Skip("the trace is on in this environment")
	}
	if Hook() != nil {
		t.Error("Hook() is not nil with the trace off")
	}
}
