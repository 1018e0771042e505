package startup

import (
	"bytes"
	"regexp"
	"strconv"
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
	re := regexp.MustCompile(`^startup: (.+) (\d+\.\d)ms \(at (\d+\.\d)ms(, rss \d+\.\d\+\d+\.\dMiB)?\)$`)
	var names []string
	var durs []float64
	for _, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q", l)
		}
		names = append(names, m[1])
		d, _ := strconv.ParseFloat(m[2], 64)
		durs = append(durs, d)
	}
	if strings.Join(names, ",") != "main,prompt env,open db" {
		t.Fatalf("phases %q", names)
	}
	// The first mark counts from the process's start, a span from its own
	// beginning, the next mark from the previous mark.
	if durs[0] < 10 {
		t.Errorf("main lasted %vms, want it counted from the start (≥ 10ms)", durs[0])
	}
	if durs[1] < 3 {
		t.Errorf("prompt env lasted %vms, want it counted from began (≥ 3ms)", durs[1])
	}
	if durs[2] >= durs[1] {
		t.Errorf("open db lasted %vms, want it counted from the previous mark", durs[2])
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
