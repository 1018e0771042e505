package loop

import "testing"

func TestAsksUser(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"Should I use tabs or spaces?", true},
		{"I found two configs.\n\nWhich one should I change?", true},
		{"Done. Would you like me to add tests as well.", false}, // not the paragraph's start
		{"Done.\n\nWould you like me to add tests as well.", true},
		{"Let me know if you want the other layout.", true},
		{"**Which option do you prefer?**", true},
		{"Fixed the bug in parse.go; all tests pass.", false},
		{"Why did it fail? The index was off by one. Fixed it.", false},
		{"```go\nx := a ? b : c?\n```", false},
		{"", false},
	}
	for _, c := range cases {
		if got := asksUser(c.text); got != c.want {
			t.Errorf("asksUser(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
