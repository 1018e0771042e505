package loop

import (
	"fmt"
	"strings"
)

// Coalesce joins messages queued while the loop was busy into the text of
// one user message: one message as it is; two as "First: …" / "Also: …";
// three or more numbered "[1]: …", "[2]: …". Empty messages are skipped.
func Coalesce(texts []string) string {
	kept := texts[:0:0]
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			kept = append(kept, t)
		}
	}
	switch len(kept) {
	case 0:
		return ""
	case 1:
		return kept[0]
	case 2:
		return "First: " + kept[0] + "\n\nAlso: " + kept[1]
	}
	var b strings.Builder
	for i, t := range kept {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%d]: %s", i+1, t)
	}
	return b.String()
}
