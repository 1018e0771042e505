package tui

import "testing"

// A late notice (the sandbox's first-run note) is shown once it is known,
// as the start's notices are.
func TestLateNoticeIsShown(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, nil, func(o *Options) {
		o.LateNotices = func() []string {
			<-release // known only after the first frame
			return []string{"a note that came late"}
		}
	})
	h.waitScreen("Message the agent")
	close(release)
	h.waitScreen("a note that came late")
}
