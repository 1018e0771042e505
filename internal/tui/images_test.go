package tui

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func writePNG(t *testing.T, path string) {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPastedImagePath: a paste that is one image file's path, as
// terminals paste a dragged file, is an image; anything else is text.
func TestPastedImagePath(t *testing.T) {
	dir := t.TempDir()
	writePNG(t, filepath.Join(dir, "my shot.png"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	abs := filepath.Join(dir, "my shot.png")
	for _, tt := range []struct {
		paste string
		ok    bool
	}{
		{abs, true},
		{"'" + abs + "'", true},
		{strings.ReplaceAll(abs, " ", `\ `) + " ", true},
		{"file://" + strings.ReplaceAll(abs, " ", "%20"), true},
		{"my shot.png", true}, // relative to the session's directory
		{"missing.png", false},
		{"notes.txt", false},
		{abs + "\n" + abs, false},
		{"look at my shot.png", false},
	} {
		got, ok := pastedImagePath(tt.paste, dir)
		if ok != tt.ok || ok && got != abs {
			t.Errorf("%q: %q, %v; want %v", tt.paste, got, ok, tt.ok)
		}
	}
}

// TestClipboardCommand: the tool is chosen by platform and display, and
// none is reported when none is installed.
func TestClipboardCommand(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	have := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, h := range names {
				if h == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	for _, tt := range []struct {
		goos  string
		env   map[string]string
		tools []string
		want  string
	}{
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, []string{"wl-paste", "xclip"}, "wl-paste"},
		{"linux", map[string]string{"DISPLAY": ":0"}, []string{"wl-paste", "xclip"}, "xclip"},
		{"linux", nil, []string{"wl-paste"}, "wl-paste"},
		{"darwin", nil, []string{"pbpaste"}, "pbpaste"},
		{"linux", nil, nil, ""},
	} {
		argv, ok := clipboardCommand(tt.goos, env(tt.env), have(tt.tools...))
		if got := strings.Join(argv, " "); ok != (tt.want != "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s %v %v: %q, %v; want %q", tt.goos, tt.env, tt.tools, got, ok, tt.want)
		}
	}
}

// TestPastedImageIsSent: pasting an image's path attaches it (a chip above
// the editor, not text in it); the next message carries it to the model as
// an image_url part, and the transcript shows its chip.
func TestPastedImageIsSent(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("a square")})
	writePNG(t, filepath.Join(h.dir, "shot.png"))
	h.send(tea.PasteMsg{Content: "'" + filepath.Join(h.dir, "shot.png") + "'"})
	h.waitFor("the image", func(m *Model) bool { return len(m.images) == 1 })
	if v := h.m.editor.value(); v != "" {
		t.Errorf("the path went into the editor: %q", v)
	}
	if s := h.screen(); !strings.Contains(s, "🖼 shot.png · ") {
		t.Errorf("no chip on screen:\n%s", s)
	}
	h.typeText("what is this?")
	h.key("enter")
	h.waitFor("the answer", func(m *Model) bool { return len(h.srv.Requests()) > 0 && !m.busy })
	msgs := h.srv.Requests()[0].Chat.Messages
	last := msgs[len(msgs)-1]
	if len(last.MultiContent) != 2 || last.MultiContent[0].Text != "what is this?" ||
		last.MultiContent[1].Type != openai.ChatMessagePartTypeImageURL ||
		!strings.HasPrefix(last.MultiContent[1].ImageURL.URL, "data:image/png;base64,") {
		t.Errorf("sent %+v", last.MultiContent)
	}
	if len(h.m.images) != 0 {
		t.Errorf("%d images still wait after the send", len(h.m.images))
	}
	if s := h.screen(); !strings.Contains(s, "🖼 shot.png · ") {
		t.Errorf("no chip in the transcript:\n%s", s)
	}
}

// TestImageQueuedWhileBusy: an image pasted while the agent works goes
// with its message into the queue (it was refused, "wait for the turn to
// end"), steering or, with Tab, for after the turn; pulled back (Up) or
// handed back by esc it waits as a chip again with its text in the editor.
func TestImageQueuedWhileBusy(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("working"), pt.Block(release))})
	writePNG(t, filepath.Join(h.dir, "shot.png"))
	h.typeText("go")
	h.key("enter")
	h.waitScreen("working")
	paste := tea.PasteMsg{Content: filepath.Join(h.dir, "shot.png")}

	h.send(paste)
	h.waitFor("the chip", func(m *Model) bool { return len(m.images) == 1 })
	h.typeText("look at this")
	h.key("tab")
	h.waitFor("the queued image", func(m *Model) bool {
		return len(m.queue) == 1 && len(m.queue[0].Images) == 1 && m.queue[0].Kind == message.KindQueue
	})
	if len(h.m.images) != 0 || h.m.editor.value() != "" {
		t.Fatalf("after queueing: %d chips, editor %q", len(h.m.images), h.m.editor.value())
	}
	h.key("up")
	h.waitFor("the pull back", func(m *Model) bool { return len(m.queue) == 0 && len(m.images) == 1 })
	if v := h.m.editor.value(); v != "look at this" {
		t.Errorf("pulled back %q", v)
	}

	h.key("enter") // steers, image and all
	h.waitFor("the steering image", func(m *Model) bool { return len(m.queue) == 1 && len(m.queue[0].Images) == 1 })
	h.key("esc")
	h.waitFor("the cancel", func(m *Model) bool { return idle(m) && len(m.images) == 1 })
	if v := h.m.editor.value(); v != "look at this" {
		t.Errorf("handed back %q", v)
	}
}
