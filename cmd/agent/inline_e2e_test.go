package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// Native scrollback, copy through tmux, visible compaction and the
// server's models (issue 14), driven in tmux like tui_e2e_test.go.

// history is the pane's whole scrollback and screen.
func (s *tuiScreen) history() string { return s.tmux("capture-pane", "-p", "-S", "-", "-t", "main") }

// waitHistory polls the scrollback and screen until cond holds.
func (s *tuiScreen) waitHistory(what string, cond func(history string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		h := s.history()
		if cond(h) {
			return h
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; history:\n%s", what, h)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// longReply is a reply of n paragraphs, enough to scroll a 40-line pane.
func longReply(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Paragraph %d of the long answer.\n\n", i)
	}
	return b.String()
}

func TestE2EInlineLeavesMessagesInTheScrollback(t *testing.T) {
	const early = "early-question-marker"
	for _, mode := range []string{"inline", "fullscreen"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, pt.Text("short first answer"), pt.Text(longReply(40)))
			var args []string
			if mode == "inline" {
				args = append(args, "--inline")
			}
			s := startTUI(t, e, args...)
			s.send(early)
			s.waitText("short first answer")
			s.idle()
			s.send("now something long")
			s.waitFor("the long answer", func(screen string) bool { return strings.Contains(screen, "Paragraph 39") })
			screen := s.idle()
			if strings.Contains(screen, "▌ "+early) {
				t.Fatalf("the early message is still on screen; the answer did not scroll it off:\n%s", screen)
			}
			inHistory := strings.Contains(s.history(), "▌ "+early)
			switch {
			case mode == "inline" && !inHistory:
				t.Errorf("inline: the early message is not in tmux's scrollback:\n%s", s.history())
			case mode == "fullscreen" && inHistory:
				t.Errorf("fullscreen: the early message is in tmux's scrollback; the alternate screen should have none")
			}
			if mode == "inline" {
				// The turn ends before the answer is printed: it goes to the
				// scrollback once its last Markdown is rendered, a few
				// pieces at a time. Until then its head is nowhere and its
				// tail is in the live region; once printed, every
				// paragraph is in the history exactly once.
				h := s.waitHistory("the whole answer in the scrollback", func(h string) bool {
					for i := range 40 {
						if strings.Count(h, fmt.Sprintf("Paragraph %d of", i)) != 1 {
							return false
						}
					}
					return true
				})
				if strings.Count(h, "▌ "+early) != 1 || strings.Count(h, "Paragraph 7 of") != 1 {
					t.Errorf("inline: messages printed %d and %d times, want once:\n%s", strings.Count(h, "▌ "+early), strings.Count(h, "Paragraph 7 of"), h)
				}
			}
		})
	}
}

func TestE2EInlineCopyEmitsOSC52(t *testing.T) {
	reply := "copy-me line one\n\ncopy-me line two"
	e := newEnv(t, pt.Text(reply))
	s := startTUI(t, e, "--inline")
	s.tmux("set-option", "-g", "set-clipboard", "on")
	raw := filepath.Join(t.TempDir(), "pane.raw")
	s.tmux("pipe-pane", "-t", "main", "-o", "cat >> "+shellQuote(raw))
	s.send("give me text")
	s.waitText("copy-me line two")
	s.idle()
	s.keys("M-y")
	s.waitText("copied 3 lines")
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(reply))
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, _ := os.ReadFile(raw)
		if strings.Contains(string(data), want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pane's output has no OSC 52 sequence for the reply (%q); it has %d bytes", want, len(data))
		}
		time.Sleep(30 * time.Millisecond)
	}
	if buf := s.tmux("show-buffer"); buf != reply {
		t.Errorf("tmux's buffer = %q, want the reply", buf)
	}
}

func TestE2EChatAutomaticCompactionIsVisible(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t,
		pt.Reply(pt.TextChunk("first answer"), pt.FinishChunk("stop"), pt.UsageChunk(pt.Usage{Prompt: 29000, Completion: 10})),
		pt.Reply(pt.Block(release), pt.TextChunk("## Goal\nAnswer.\n\n## Done so far\nOne turn.\n\n## Next steps\nNone."),
			pt.FinishChunk("stop"), pt.AutoUsageChunk()),
		pt.Text("second answer"))
	trustUsage(t, e, "m") // the scripted usage stands for a full context
	s := startTUI(t, e, "--model", "m")
	s.send("first question")
	s.waitText("first answer")
	s.idle()
	s.send("second question")
	screen := s.waitText("compacting · summarising")
	close(release)
	if !strings.Contains(screen, "esc stops") {
		t.Errorf("the compacting status does not say how to stop it:\n%s", screen)
	}
	s.waitText("second answer")
	screen = s.idle()
	var marker []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "context compacted") {
			marker = append(marker, l)
		}
	}
	if len(marker) != 1 || !strings.Contains(marker[0], "automatically") || !strings.Contains(marker[0], "→") {
		t.Fatalf("want one marker line (automatically, tokens before → after), got %q:\n%s", marker, screen)
	}
	if strings.Contains(screen, "## Goal") || strings.Contains(screen, "<user_message>") {
		t.Errorf("the summary is dumped into the chat:\n%s", screen)
	}
}

func TestE2EChatModelPickerListsTheServersModels(t *testing.T) {
	e := newEnv(t)
	e.srv.SetModels("served-alpha-7b", "served-beta-13b")
	s := startTUI(t, e)
	s.send("/model")
	screen := s.waitText("served-beta-13b")
	if !strings.Contains(screen, "served-alpha-7b") {
		t.Errorf("the picker lacks a served model:\n%s", screen)
	}
	if len(e.srv.ModelRequests()) == 0 {
		t.Error("the picker did not ask the server for its models")
	}
}
