package tui

// Images in the editor (issue 17). A paste that is the path of an image
// file (terminals paste the path when a file is dragged onto them)
// attaches the image instead of inserting the text; Ctrl+V attaches the
// image on the clipboard, through wl-paste (Wayland), xclip (X11) or
// pbpaste (macOS), saying so when none is installed or the clipboard holds
// no image. Attached images wait as chips above the editor ("🖼 shot.png ·
// 120 KB"; Backspace on an empty editor removes the last) and go with the
// next message, to a model with vision; the loop refuses otherwise and the
// images stay. While the agent is busy they are queued or steer with their
// message (Tab, Enter) like its text, and come back as chips with it when
// it is pulled back or the turn is interrupted. Reading and storing happen
// in commands, never in Update.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// imageAttachedMsg: an image was stored for the next message, or why not.
type imageAttachedMsg struct {
	f   *message.FileState
	err error
}

// imageExtensions are the file names a pasted path is taken as an image
// for; the content decides in the end (attachments.Check).
var imageExtensions = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// pastedImagePath returns the image file a paste names, if it is one path
// (plain, quoted, backslash-escaped or a file:// URL, as terminals paste a
// dragged file) with an image's extension; relative paths are in dir.
func pastedImagePath(paste, dir string) (string, bool) {
	s := strings.TrimSpace(paste)
	if s == "" || strings.ContainsAny(s, "\n\r") {
		return "", false
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	if strings.HasPrefix(s, "file://") {
		u, err := url.Parse(s)
		if err != nil {
			return "", false
		}
		s = u.Path
	}
	s = strings.ReplaceAll(s, `\ `, " ")
	if strings.HasPrefix(s, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			s = filepath.Join(home, s[2:])
		}
	}
	if !imageExtensions[strings.ToLower(filepath.Ext(s))] {
		return "", false
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(dir, s)
	}
	if fi, err := os.Stat(s); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return s, true
}

// clipboardCommand is the command that prints the clipboard's image, by
// what the session runs on; ok is false when no tool is available.
func clipboardCommand(goos string, getenv func(string) string, lookPath func(string) (string, error)) (argv []string, ok bool) {
	has := func(name string) bool { _, err := lookPath(name); return err == nil }
	switch {
	case goos == "darwin" && has("pbpaste"):
		return []string{"pbpaste"}, true
	case getenv("WAYLAND_DISPLAY") != "" && has("wl-paste"):
		return []string{"wl-paste", "--no-newline", "--type", "image/png"}, true
	case has("xclip"):
		return []string{"xclip", "-selection", "clipboard", "-t", "image/png", "-o"}, true
	case has("wl-paste"):
		return []string{"wl-paste", "--no-newline", "--type", "image/png"}, true
	}
	return nil, false
}

// errNoClipboardTool and errNoClipboardImage are what Ctrl+V says when it
// attaches nothing.
var (
	errNoClipboardTool  = errors.New("no clipboard tool found: install wl-clipboard (Wayland) or xclip (X11), or paste the image's path")
	errNoClipboardImage = errors.New("the clipboard holds no image")
)

// imageStore is the attachment store of cfg's data dir (nil: the
// default's).
func imageStore(cfg *config.Config) attachments.Store {
	dataDir := ""
	if cfg != nil {
		dataDir = cfg.DataDir
	}
	return attachments.ForDataDir(dataDir)
}

// attachImageFile stores the image at path in st for the next message.
func attachImageFile(st attachments.Store, path string) tea.Cmd {
	return func() tea.Msg {
		f, err := st.AddFile(path)
		return imageAttachedMsg{f: f, err: err}
	}
}

// pasteClipboardImage handles Ctrl+V: the clipboard's image, if any,
// stored in st.
func pasteClipboardImage(st attachments.Store) tea.Cmd {
	argv, ok := clipboardCommand(runtime.GOOS, os.Getenv, exec.LookPath)
	if !ok {
		return func() tea.Msg { return imageAttachedMsg{err: errNoClipboardTool} }
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil || out.Len() == 0 {
			return imageAttachedMsg{err: errNoClipboardImage}
		}
		if _, err := attachments.Check(out.Bytes()); err != nil {
			return imageAttachedMsg{err: fmt.Errorf("%w (%v)", errNoClipboardImage, err)}
		}
		f, err := st.Add("clipboard.png", out.Bytes())
		return imageAttachedMsg{f: f, err: err}
	}
}

// handleImageAttached adds a stored image to the next message.
func (m *Model) handleImageAttached(msg imageAttachedMsg) tea.Cmd {
	if msg.err != nil {
		return m.setFlash("not attached: "+msg.err.Error(), 5*time.Second)
	}
	m.images = append(m.images, msg.f)
	return m.setFlash("attached "+imageChip(msg.f)+": it goes with your next message", 3*time.Second)
}

// imageChip is an image's chip: "🖼 shot.png · 120 KB".
func imageChip(f *message.FileState) string {
	return "🖼 " + termsafe.Strip(f.Path) + " · " + truncate.FormatBytes(f.SizeBytes)
}

// imageChipsLine draws the images waiting for the next message.
func imageChipsLine(th *theme, images []*message.FileState, width int) string {
	chips := make([]string, len(images))
	for i, f := range images {
		chips[i] = imageChip(f)
	}
	return " " + th.AccentText.Render(fit(strings.Join(chips, "  "), width-2))
}

// imageTray holds the images attached for the next message, as chips
// above the editor. Its zero value holds none.
type imageTray []*message.FileState

// take returns the waiting images for a message about to be sent through
// r (nil: a session not opened yet), or refuses (the images and the text
// stay) when r's model cannot take them.
func (t *imageTray) take(r *loop.Runner) ([]*message.FileState, error) {
	if len(*t) == 0 {
		return nil, nil
	}
	if r != nil && !r.Vision() {
		return nil, fmt.Errorf("model %s does not take images: pick one with vision (/model), or set models.NAME.vision in your user config", r.Model())
	}
	images := *t
	*t = nil
	return images, nil
}
