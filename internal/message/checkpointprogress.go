package message

// checkpointprogress.go: the progress of a slow checkpoint, as the chat
// and the headless run show it.

import (
	"fmt"
	"strconv"
	"time"
)

// CheckpointProgress is how far a checkpoint has got: Done of Total files
// hashed, after Elapsed. Skip (never nil in an event; safe to call more
// than once, and after the checkpoint ended) skips it: the step goes on
// and cannot be undone. Finished marks the last event of a checkpoint.
// Announce marks its first report after it has run a second: where only
// one line is shown (the headless run), it is this one.
type CheckpointProgress struct {
	Done     int           `json:"done"`
	Total    int           `json:"total"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Finished bool          `json:"finished,omitempty"`
	Announce bool          `json:"announce,omitempty"`
	Skip     func()        `json:"-"`
}

// Text is the progress line: "taking a checkpoint… 3,200/13,018 files".
func (c CheckpointProgress) Text() string {
	return fmt.Sprintf("taking a checkpoint… %s/%s files", groupDigits(c.Done), groupDigits(c.Total))
}

// groupDigits writes n with a comma between groups of three digits.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
