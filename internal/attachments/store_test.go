package attachments

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// pngBytes encodes a w×h PNG.
func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestStoreAddsOnceByContent: the same image added twice (under two names)
// is one 0600 file in 0700 directories, named by its hash; the part states
// carry the name given, type, size and dimensions.
func TestStoreAddsOnceByContent(t *testing.T) {
	s := ForDataDir(t.TempDir())
	data := pngBytes(t, 12, 7)
	a, err := s.Add("/home/u/shot.png", data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Add("copy.png", data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Store != b.Store || !strings.HasSuffix(a.Store, ".png") || !strings.HasPrefix(a.Store, a.Store[3:5]+"/") {
		t.Errorf("stores %q and %q: want one path ab/abcdef….png", a.Store, b.Store)
	}
	want := message.FileState{Kind: message.AttachImage, Path: "shot.png", Store: a.Store, MIME: "image/png",
		SizeBytes: int64(len(data)), Width: 12, Height: 7}
	if *a != want {
		t.Errorf("state %+v\n want %+v", *a, want)
	}
	var files []string
	err = filepath.WalkDir(s.Dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		if d.IsDir() && fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", path, fi.Mode().Perm())
		}
		if !d.IsDir() {
			files = append(files, path)
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Errorf("files in the store: %q, want one", files)
	}
	url, err := s.DataURL(a)
	if err != nil || !strings.HasPrefix(url, "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("data URL %.40q, %v", url, err)
	}
}

// TestCheckRefuses: too large or not an image format providers accept is
// refused with the reason, whatever the file's name says.
func TestCheckRefuses(t *testing.T) {
	big := append(pngBytes(t, 2, 2), make([]byte, MaxImageBytes)...)
	for _, tt := range []struct {
		name string
		data []byte
		want error
		why  string
	}{
		{"huge.png", big, ErrTooLarge, "larger than 20 MB"},
		{"notes.png", []byte("just some text\n"), ErrUnsupported, "text/plain"},
		{"pic.bmp", append([]byte("BM"), make([]byte, 64)...), ErrUnsupported, "image/bmp"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ForDataDir(dir).AddFile(path)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("%s: %v, want %v naming the file and %q", tt.name, err, tt.want, tt.why)
		}
		if _, err := os.Stat(filepath.Join(dir, "attachments")); !os.IsNotExist(err) {
			t.Errorf("%s: the store was written (%v)", tt.name, err)
		}
	}
	for _, ok := range [][]byte{
		pngBytes(t, 1, 1),
		append([]byte("\xff\xd8\xff\xe0"), make([]byte, 16)...),
		[]byte("GIF89a\x01\x00\x01\x00"),
		append([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), make([]byte, 16)...),
	} {
		if _, err := Check(ok); err != nil {
			t.Errorf("%.12q: %v, want accepted", ok, err)
		}
	}
}
