package loop

// lost.go: saying what changed that no undo can bring back — files the
// snapshots do not hold (too large; ignored and over the limit for ignored
// files; nested repositories) — in one wording for tool cards, /diff,
// `agent diff` and rewind output: "not restorable: .env (ignored, 3 KB >
// 1 MB)", "big.bin (3 MB > 2 MB)", "vendor/lib (nested repository)".

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/termsafe"
)

// DescribeLost names one file a step changed that cannot be restored,
// with why: "big.bin (3 MB > 2 MB, deleted)".
func DescribeLost(s message.PatchSkip) string {
	var why string
	switch s.Reason {
	case snapshot.ReasonTooLarge:
		why = sizeOver(s.Bytes, s.Limit)
	case snapshot.ReasonIgnoredTooLarge:
		why = "ignored, " + sizeOver(s.Bytes, s.Limit)
	case snapshot.ReasonIgnoredBudget:
		why = "ignored, over the " + humanBytes(s.Limit) + " a snapshot keeps"
	case snapshot.ReasonNested:
		why = "nested repository"
	default:
		why = s.Reason
	}
	if s.Status != "" {
		why += ", " + s.Status
	}
	return termsafe.Strip(s.Path) + " (" + why + ")"
}

func sizeOver(size, limit int64) string {
	if limit <= 0 {
		return humanBytes(size)
	}
	return humanBytes(size) + " > " + humanBytes(limit)
}

// humanBytes is a size for people: 3 KB, 1.5 MB (1024-based).
func humanBytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 || f >= 10 || f == float64(int64(f)) {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// LostOf gathers the changes no undo can take back from patches, each
// path once.
func LostOf(patches []message.PatchState) []message.PatchSkip {
	seen := map[string]bool{}
	var out []message.PatchSkip
	for _, p := range patches {
		for _, l := range p.Lost {
			if !seen[l.Path] {
				seen[l.Path] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// NotRestorableLines is the "not restorable: …" report of lost changes,
// one line per file ("" when none).
func NotRestorableLines(lost []message.PatchSkip) string {
	if len(lost) == 0 {
		return ""
	}
	lines := make([]string, len(lost))
	for i, l := range lost {
		lines[i] = "not restorable: " + DescribeLost(l)
	}
	return strings.Join(lines, "\n")
}
